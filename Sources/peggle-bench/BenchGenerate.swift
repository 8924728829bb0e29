import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleEnv
import PeggleGame
import PeggleGenerator
import PeggleLevel

/// `peggle-bench generate`: microseconds per generated level, per new game built from one, and
/// what a reset costs with procedural levels against file levels, next to the episode it starts.
struct BenchGenerate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "The level generator: microseconds per level, per new game, per reset with procedural levels.",
        discussion: "For each distribution: --levels levels from seeds 0 up, validated, a new game built from each; "
            + "resets of an environment with procedural levels (a new level every reset; 200 levels kept), against resets "
            + "on file levels; and whole episodes on generated levels with a fixed cycle of aims.")

    @Option(help: "Levels per distribution.")
    var levels = 2000

    @OptionGroup var output: BenchOutputOptions

    /// One row per distribution.
    struct Row: BenchRow {
        struct Columns: Encodable {
            var mode: String, distribution: String, levels: Int, meanPegs: Double
            var usPerLevel: Double, usPerValidate: Double, usPerNewGame: Double
            var usPerResetGenerated: Double, usPerResetKept: Double, usPerResetFile: Double, usPerEpisode: Double
        }
        struct Extra: Encodable {
            var episodes: Int, meanStepsPerEpisode: Double
            /// What a new generated level adds to a reset, as a share of the episode it starts.
            var resetShareOfEpisode: Double
        }
        var columns: Columns
        var extra: Extra
    }

    func run() throws {
        guard levels >= 1 else { throw UserError("--levels: \(levels) must be at least 1") }
        var out = try BenchOutput<Row>(output)
        let n = levels
        let round = BenchClock.round
        func micros(_ start: UInt64, _ count: Int) -> Double { round(Double(BenchClock.now() - start) / 1e3 / Double(count), 1) }
        for d in LevelDistribution.allCases {
            var pegs = 0
            var t = BenchClock.now()
            var generated: [Level] = []
            generated.reserveCapacity(n)
            for s in 0..<n { generated.append(LevelGenerator.generate(seed: UInt64(s), distribution: d)) }
            let generate = micros(t, n)
            for l in generated { pegs += l.pegs.count }
            t = BenchClock.now()
            var issues = 0
            for l in generated { issues += l.validate().count }
            let validate = micros(t, n)
            guard issues == 0 else { throw UserError("bench generate: \(issues) problems in generated \(d.rawValue) levels (a bug)") }
            t = BenchClock.now()
            for l in generated { _ = try GameState(level: l, seed: 0) }
            let build = micros(t, n)

            // Resets: every one a new level (unlimited seeds), against the same number over 100
            // file levels (a reset then copies a prepared game).
            var obs = [Float](repeating: 0, count: EnvConfig(levels: []).observationEncoder.size)
            var procedural = try PeggleEnv(config: EnvConfig(procedural: ProceduralLevels(distribution: DistributionMode(d))), seed: 1)
            t = BenchClock.now()
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<n { try procedural.reset(into: p) } }
            let resetGenerated = micros(t, n)
            // Procgen's usual training set, 200 levels: each is generated once, then kept.
            var kept = try PeggleEnv(config: EnvConfig(procedural: ProceduralLevels(numLevels: 200, distribution: DistributionMode(d))), seed: 1)
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<2000 { try kept.reset(into: p) } }
            t = BenchClock.now()
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<n { try kept.reset(into: p) } }
            let resetKept = micros(t, n)
            var config = EnvConfig(levels: Array(generated.prefix(100)))
            config.order = .random
            var files = try PeggleEnv(config: config, seed: 1)
            t = BenchClock.now()
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<n { try files.reset(into: p) } }
            let resetFile = micros(t, n)

            // Whole episodes on generated levels with a fixed cycle of aims: time per episode.
            let episodes = max(1, n / 20)
            var steps = 0
            t = BenchClock.now()
            try obs.withUnsafeMutableBufferPointer { p in
                for e in 0..<episodes {
                    try procedural.reset(into: p)
                    var k = e
                    while true {
                        let result = try procedural.step(Double((k * 7) % 19) / 9 - 1, into: p)
                        steps += 1
                        k += 1
                        if result.terminated || result.truncated { break }
                    }
                }
            }
            let episode = micros(t, episodes)
            let row = Row(
                columns: .init(mode: "generate", distribution: d.rawValue, levels: n, meanPegs: round(Double(pegs) / Double(n), 1),
                               usPerLevel: generate, usPerValidate: validate, usPerNewGame: build,
                               usPerResetGenerated: resetGenerated, usPerResetKept: resetKept, usPerResetFile: resetFile,
                               usPerEpisode: episode),
                extra: .init(episodes: episodes, meanStepsPerEpisode: round(Double(steps) / Double(episodes), 1),
                             resetShareOfEpisode: round((resetGenerated - resetFile) / episode, 4)))
            try out.emit(row, text: "\(d.rawValue): \(generate) us per level (\(row.columns.meanPegs) pegs), validate \(validate) us, "
                + "new game \(build) us; reset \(resetGenerated) us with a new generated level, \(resetKept) us with 200 "
                + "levels (kept), \(resetFile) us on file levels; an episode (\(row.extra.meanStepsPerEpisode) shots) takes \(episode) us")
        }
        try out.finish()
    }
}
