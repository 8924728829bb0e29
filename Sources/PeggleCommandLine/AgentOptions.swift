import ArgumentParser
import Foundation
import PeggleAgents
import PeggleGame

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

    /// The agent named by `text` ("random", "greedy" or "linear:FILE").
    package func agent(_ text: String, threads: Int = 1) throws -> any Agent {
        try check()
        return try agent(AgentSpec.parse(text), threads: threads)
    }
}

/// How the greedy agent searches: its own group, so `bench greedy` and `bench rating`, which
/// take thread counts of their own, tune it with the same options as `play` and `rate`.
package struct GreedyTuning: ParsableArguments, AgentMaker {
    package init() {}

    @Option(help: "Greedy: angles in the coarse sweep over the aim range.")
    package var candidates = 48

    @Option(name: .customLong("refine"), help: "Greedy: refinement rounds x angles per round, e.g. 2x8.")
    package var refine = "2x8"

    @Option(help: "Greedy: shots per candidate angle under aim noise (sigma > 0).")
    package var samples = 8

    @Option(help: "Greedy: under aim noise, value only the best 1/N of each round's candidates on every sample, after a two-sample screen (0: no screening).")
    package var screen = GreedyAgent.defaultScreen

    package func check() throws {
        guard candidates >= 2 && candidates <= 10_000 else {
            throw UserError("--candidates: \(candidates) is outside 2...10000")
        }
        _ = try refineSpec()
        guard samples >= 1 && samples <= 1000 else { throw UserError("--samples: \(samples) is outside 1...1000") }
        guard screen >= 0 && screen <= 1000 else { throw UserError("--screen: \(screen) is outside 0...1000") }
    }

    package func refineSpec() throws -> (rounds: Int, perRound: Int) {
        let parts = refine.split(separator: "x")
        guard parts.count == 2, let r = Int(parts[0]), let n = Int(parts[1]), (0...20).contains(r), (0...1000).contains(n) else {
            throw UserError("--refine: '\(refine)' is not ROUNDSxANGLES with rounds 0...20 and angles 0...1000 (e.g. 2x8)")
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

    /// The agent named by `spec`, the greedy one tuned by these options.
    package func agent(_ spec: AgentSpec, threads: Int = 1) throws -> any Agent {
        try check()
        switch spec {
        case .random: return RandomAgent()
        case .greedy: return try greedyAgent(threads: threads)
        case let .linear(file): return try LinearAgentLoader.load(file)
        }
    }
}

/// An agent as the command line names it: its kind, and for a linear agent the weights file it
/// needs ("random", "greedy", "linear:FILE").
package enum AgentSpec: Equatable, ListElement {
    case random, greedy
    case linear(file: String)

    package var kind: AgentKind {
        switch self {
        case .random: .random
        case .greedy: .greedy
        case .linear: .linear
        }
    }

    /// How a kind is written: a linear agent takes its file after a colon.
    package static func syntax(_ kind: AgentKind) -> String { kind == .linear ? kind.rawValue + ":FILE" : kind.rawValue }

    /// `text` (spaces around it ignored), or `--agent`'s refusal of it.
    package static func parse(_ text: String) throws(UserError) -> AgentSpec {
        do { return try element(text.trimmingCharacters(in: .whitespaces)) } catch { throw UserError("--agent: \(error.reason)") }
    }

    package static func element(_ text: String) throws(ElementRefusal) -> AgentSpec {
        let linear = AgentKind.linear.rawValue
        if text.hasPrefix(linear + ":") { return .linear(file: String(text.dropFirst(linear.count + 1))) }
        switch AgentKind(rawValue: text) {
        case .random: return .random
        case .greedy: return .greedy
        case .linear:
            throw ElementRefusal(reason: "\(linear) needs its weights file: \(syntax(.linear)) (e.g. \(linear):Agents/linear.json)")
        case .human:
            throw ElementRefusal(reason: "\(text) games are played by people in `peggle studio`, not by a program")
        case nil:
            let all = AgentKind.builtIn.map(syntax)
            throw ElementRefusal(reason: "unknown agent '\(text)' (expected \(all.dropLast().joined(separator: ", ")) or \(all.last!))")
        }
    }

    package init?(argument: String) {
        guard let spec = try? Self.element(argument.trimmingCharacters(in: .whitespaces)) else { return nil }
        self = spec
    }

    /// The text that names it (the help shows defaults this way).
    package var defaultValueDescription: String {
        if case let .linear(file) = self { kind.rawValue + ":" + file } else { kind.rawValue }
    }
}

/// Loads `linear:FILE` weights; every problem names the file.
package enum LinearAgentLoader {
    package static func load(_ path: String) throws -> any Agent {
        do { return try Bundled.linearAgent(path) } catch { throw UserError("--agent linear:\(path): \(error)") }
    }
}
