import ArgumentParser
import Foundation
import PeggleAgents
import PeggleGame

/// Options that choose and tune the built-in agents (`play --agent`, `rate --agents`).
struct AgentOptions: ParsableArguments {
    @Option(help: "Greedy: angles in the coarse sweep over the aim range.")
    var candidates = 48

    @Option(name: .customLong("refine"), help: "Greedy: refinement rounds x angles per round, e.g. 2x8.")
    var refine = "2x8"

    @Option(help: "Greedy: shots per candidate angle under aim noise (sigma > 0).")
    var samples = 8

    @Option(help: "Greedy: under aim noise, value only the best 1/N of each round's candidates on every sample, after a two-sample screen (0: no screening).")
    var screen = GreedyAgent.defaultScreen

    @Option(help: "Worker threads (default: the machine's cores).")
    var threads: Int?

    var threadCount: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }

    /// Checked in `run()` (not `validate()`), so bad values get our message and exit code 2.
    func check() throws {
        guard candidates >= 2 && candidates <= 10_000 else {
            throw UserError("--candidates: \(candidates) is outside 2...10000")
        }
        _ = try refineSpec()
        guard samples >= 1 && samples <= 1000 else { throw UserError("--samples: \(samples) is outside 1...1000") }
        guard screen >= 0 && screen <= 1000 else { throw UserError("--screen: \(screen) is outside 0...1000") }
        if let threads, threads < 1 || threads > 256 { throw UserError("--threads: \(threads) is outside 1...256") }
    }

    func refineSpec() throws -> (rounds: Int, perRound: Int) {
        let parts = refine.split(separator: "x")
        guard parts.count == 2, let r = Int(parts[0]), let n = Int(parts[1]), (0...20).contains(r), (0...1000).contains(n) else {
            throw UserError("--refine: '\(refine)' is not ROUNDSxANGLES with rounds 0...20 and angles 0...1000 (e.g. 2x8)")
        }
        return (r, n)
    }

    /// The agent named by `spec`: "random", "greedy" or "linear:FILE".
    func agent(_ spec: String, threads: Int = 1) throws -> any Agent {
        try check()
        let name = spec.trimmingCharacters(in: .whitespaces)
        switch name {
        case "random":
            return RandomAgent()
        case "greedy":
            let (r, n) = try refineSpec()
            return GreedyAgent(candidates: candidates, refineRounds: r, refineCandidates: n, noiseSamples: samples, screen: screen,
                               threads: threads)
        default:
            if name.hasPrefix("linear:") {
                return try LinearAgentLoader.load(String(name.dropFirst("linear:".count)))
            }
            if name == "linear" {
                throw UserError("--agent: linear needs its weights file: linear:FILE (e.g. linear:Agents/linear.json)")
            }
            throw UserError("--agent: unknown agent '\(name)' (expected random, greedy or linear:FILE)")
        }
    }
}

/// Loads `linear:FILE` weights; every problem names the file.
enum LinearAgentLoader {
    static func load(_ path: String) throws -> any Agent {
        do { return try LinearAgent.load(path: path) } catch { throw UserError("--agent linear:\(path): \(error)") }
    }
}
