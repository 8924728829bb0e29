import ArgumentParser
import Foundation
import PeggleAgents

/// Options that make the built-in agents from their names, checked before the first is made.
package protocol AgentMaker {
    func check() throws
    func agent(_ spec: AgentSpec, threads: Int) throws -> any Agent
}

/// Options that choose and tune the built-in agents (`play --agent`, `rate --agents`).
package struct AgentOptions: ParsableArguments, AgentMaker {
    package init() {}

    @OptionGroup package var greedy: GreedyTuning

    @Option(help: "Worker threads (default: the machine's cores).")
    package var threads: Int?

    package var threadCount: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }

    /// Checked in `run()` (not `validate()`), so bad values get our message and exit code 2.
    package func check() throws {
        try greedy.check()
        if let threads, threads < 1 || threads > 256 { throw UserError("--threads: \(threads) is outside 1...256") }
    }

    /// The agent named by `spec`, tuned by these options.
    package func agent(_ spec: AgentSpec, threads: Int = 1) throws -> any Agent {
        try check()
        return try greedy.agent(spec, threads: threads)
    }

    /// The agent named by `text` (`AgentFactory.syntaxList`: "random", "greedy" or "linear:FILE").
    package func agent(_ text: String, threads: Int = 1) throws -> any Agent {
        try check()
        return try agent(AgentSpec.parse(text), threads: threads)
    }
}

/// How the greedy agent searches: its own group, so `bench greedy` and `bench rating`, which
/// take thread counts of their own, tune it with the same options as `play` and `rate`. The
/// defaults and ranges are `GreedyAgent`'s; agents are made by `AgentFactory`.
package struct GreedyTuning: ParsableArguments, AgentMaker {
    package init() {}

    @Option(help: "Greedy: angles in the coarse sweep over the aim range.")
    package var candidates = GreedyAgent.defaultCandidates

    @Option(name: .customLong("refine"), help: "Greedy: refinement rounds x angles per round, e.g. 2x8.")
    package var refine = "\(GreedyAgent.defaultRefineRounds)x\(GreedyAgent.defaultRefineCandidates)"

    @Option(help: "Greedy: shots per candidate angle under aim noise (sigma > 0).")
    package var samples = GreedyAgent.defaultNoiseSamples

    @Option(help: "Greedy: under aim noise, value only the best 1/N of each round's candidates on every sample, after a two-sample screen (0: no screening).")
    package var screen = GreedyAgent.defaultScreen

    package func check() throws {
        try Self.inRange("--candidates", candidates, GreedyAgent.candidatesRange)
        _ = try refineSpec()
        try Self.inRange("--samples", samples, GreedyAgent.noiseSamplesRange)
        try Self.inRange("--screen", screen, GreedyAgent.screenRange)
    }

    static func inRange(_ option: String, _ value: Int, _ range: ClosedRange<Int>) throws {
        guard range.contains(value) else {
            throw UserError("\(option): \(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
    }

    package func refineSpec() throws -> (rounds: Int, perRound: Int) {
        let parts = refine.split(separator: "x")
        let rounds = GreedyAgent.refineRoundsRange, angles = GreedyAgent.refineCandidatesRange
        guard parts.count == 2, let r = Int(parts[0]), let n = Int(parts[1]), rounds.contains(r), angles.contains(n) else {
            throw UserError("--refine: '\(refine)' is not ROUNDSxANGLES with rounds \(rounds.lowerBound)...\(rounds.upperBound) "
                + "and angles \(angles.lowerBound)...\(angles.upperBound) (e.g. 2x8)")
        }
        return (r, n)
    }

    /// The greedy agent these options describe, searching on `threads` threads.
    package func greedyAgent(threads: Int) throws -> GreedyAgent {
        try check()
        let (r, n) = try refineSpec()
        return GreedyAgent(candidates: candidates, refineRounds: r, refineCandidates: n, noiseSamples: samples, screen: screen,
                           threads: threads)
    }

    /// The agent named by `spec`, made by `AgentFactory` with the greedy agent tuned by these
    /// options and a linear agent's weights read as `Bundled` does. A weights file that cannot
    /// be read is refused naming the agent ("--agent linear:FILE: ...").
    package func agent(_ spec: AgentSpec, threads: Int = 1) throws -> any Agent {
        let tuning = AgentTuning(greedy: try greedyAgent(threads: threads), threads: threads,
                                 loadLinear: { path in try Bundled.linearAgent(path) })
        do { return try AgentFactory.make(spec, tuning) } catch { throw UserError("--agent \(spec.text): \(error)") }
    }
}

/// An agent as the command line names it (`AgentSpec`, PeggleAgents'): parsed there, refused
/// here as `--agent`'s or `--agents`' element.
extension AgentSpec: ListElement {
    /// `text` (spaces around it ignored), or `--agent`'s refusal of it.
    package static func parse(_ text: String) throws(UserError) -> AgentSpec {
        do { return try element(text.trimmingCharacters(in: .whitespaces)) } catch { throw UserError("--agent: \(error.reason)") }
    }

    package static func element(_ text: String) throws(ElementRefusal) -> AgentSpec {
        do { return try AgentSpec(text) } catch { throw ElementRefusal(reason: error.reason) }
    }

    public init?(argument: String) {
        guard let spec = try? Self.element(argument.trimmingCharacters(in: .whitespaces)) else { return nil }
        self = spec
    }

    /// The text that names it (the help shows defaults this way).
    public var defaultValueDescription: String { text }
}
