import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleLevel
import PeggleUtilities

/// `peggle-bench greedy`: the greedy agent's search time per decision, and candidate shots
/// simulated per second, with the search spread over T threads.
struct BenchGreedy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: AgentKind.greedy.rawValue,
        abstract: "The greedy agent's search: time per decision, candidate shots simulated per second.",
        discussion: "Decision states: fresh games of the level and games 1 to 3 seeded random shots in (the board thins out). "
            + "The agent is tuned as `play --agent greedy` and `rate` tune it.")

    @OptionGroup var workload: BenchLevel

    @Option(help: "Decisions per run.")
    var decisions = 40

    @Option(help: "Aim noise the greedy agent plans for, radians (above 0: --samples shots per candidate).")
    var sigma = 0.0

    @Flag(help: "With --sigma above 0: also make every decision without screening and count the same choices.")
    var compareUnscreened = false

    @OptionGroup var greedy: GreedyTuning

    @OptionGroup var physicsOption: PhysicsOption

    @OptionGroup var threads: BenchThreads

    @OptionGroup var output: BenchOutputOptions

    /// One row per thread count.
    struct Row: BenchRow {
        struct Columns: Encodable {
            var mode: String, threads: Int, sigma: Double, decisions: Int, simulations: Int, seconds: Double
            var msPerDecision: Double, simulationsPerS: Double
        }
        struct Extra: Encodable {
            var level: String, agent: String, decisionsPerS: Double, cores: Int
            /// With --compare-unscreened: how often, and at what cost, screening changes the choice.
            var sameChoiceAsUnscreened: Int?, meanValueRegret: Double?, medianValueFull: Double?
        }
        var columns: Columns
        var extra: Extra
    }

    func run() throws {
        let counts = try threads.counts()
        let level = try workload.load()
        guard decisions >= 1 else { throw UserError("--decisions: \(decisions) must be at least 1") }
        guard sigma.isFinite && sigma >= 0 else { throw UserError("--sigma: \(sigma) must be a number >= 0 (radians)") }
        try greedy.check()
        var out = try BenchOutput<Row>(output)
        let states = try decisionStates(level)
        let round = BenchClock.round
        for t in counts {
            let agent = try greedy.greedyAgent(threads: t)
            var runs: [(seconds: Double, sims: Int)] = []
            var choices: [Double] = [], values: [Double] = []
            for _ in 0..<workload.repeat {
                let start = BenchClock.now()
                var sims = 0
                choices = []
                values = []
                for g in states {
                    let r = agent.searchCounting(g, sigma: sigma)
                    sims += r.simulations
                    choices.append(r.angle)
                    values.append(r.value)
                }
                runs.append((BenchClock.seconds(since: start), sims))
            }
            let m = runs.sorted { $0.seconds < $1.seconds }[runs.count / 2]
            var row = Row(
                columns: .init(mode: AgentKind.greedy.rawValue, threads: t, sigma: sigma, decisions: states.count, simulations: m.sims,
                               seconds: round(m.seconds, 4), msPerDecision: round(1000 * m.seconds / Double(states.count), 2),
                               simulationsPerS: round(Double(m.sims) / m.seconds, 0)),
                extra: .init(level: level.name, agent: agent.label, decisionsPerS: round(Double(states.count) / m.seconds, 1),
                             cores: BenchClock.cores))
            var comparison = ""
            if compareUnscreened && sigma > 0 {
                // The same decisions without screening: how often the screen changes the choice.
                var full = agent
                full.screen = 0
                let fullSearch = states.map { full.search($0, sigma: sigma) }
                let same = zip(choices, fullSearch).filter { $0 == $1.angle }.count
                // What the screen costs: the full search's best value minus the screened choice's
                // (both exact means over every offset), over the decisions where they differ.
                let regrets = zip(values, fullSearch).map { max(0, $1.value - $0) }
                let regret = round(regrets.reduce(0, +) / Double(max(1, regrets.count)), 1)
                let median = round(fullSearch.map(\.value).sorted()[fullSearch.count / 2], 1)
                row.extra.sameChoiceAsUnscreened = same
                row.extra.meanValueRegret = regret
                row.extra.medianValueFull = median
                comparison = "; same choice as unscreened in \(same) of \(states.count), mean value regret \(regret) "
                    + "(median best value \(median))"
            }
            try out.emit(row, text: "threads \(t): greedy \(row.columns.msPerDecision) ms per decision, "
                + "\(row.columns.simulationsPerS) candidate shots/s (\(states.count) decisions, sigma \(sigma), median of \(workload.repeat))"
                + comparison)
        }
        try out.finish()
    }

    /// Fresh games, and games a few seeded random shots in (the board thins out); games that
    /// ended are left out. The random shots are version 1's whatever `--physics` says, so both
    /// versions decide from the same states; the decisions are the chosen physics's.
    func decisionStates(_ level: Level) throws -> [GameState] {
        try v1DecisionStates(level).map { try $0.withPhysics(physicsOption.physics) }
    }

    func v1DecisionStates(_ level: Level) throws -> [GameState] {
        let rules = Rules()
        var states: [GameState] = []
        for s in 0..<decisions {
            var g = try GameState(level: level, rules: rules, seed: UInt64(s))
            var rng = SeededGenerator(seed: UInt64(s))
            for _ in 0..<(s % 4) where !g.isOver {
                _ = try g.shoot(angle: (rng.nextUnit() * 2 - 1) * rules.maxAim * 0.9)
            }
            if !g.isOver { states.append(g) }
        }
        guard !states.isEmpty else { throw UserError("--level: every decision state ended the game; pick a longer level") }
        return states
    }
}
