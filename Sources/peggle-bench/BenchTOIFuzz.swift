import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleGenerator
import PeggleLab
import PeggleLevel
import PeggleUtilities

/// `peggle-bench toi-fuzz`: version 2's whole-game fuzz (issue 51), the long run of
/// `Benchmarks.toiGameFuzz`. Random whole games under version 2 on generated levels of every
/// distribution, template and power, with confusement and zombie pegs added (so shots are handed
/// to version 1 midway), every shot checked: finite, no ball inside an obstacle or beyond a wall,
/// within the shot time limit, time never going back; `--compare` replays each shot.
struct BenchTOIFuzz: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toi-fuzz",
        abstract: "Version 2's whole-game fuzz: random games on generated levels, every shot checked.",
        discussion: "Level variant i: seed i, distribution i % 2, template (i / 2) % 9, power (i / 18) % 4; two variants "
            + "in three turn a blue peg into a confusement peg, one in three another into a zombie. Each variant plays "
            + "--shots-per-level shots of whole games (random aims and bucket phases) under physics version 2, every shot "
            + "recorded and checked (Benchmarks.toiGameFuzz): no non-finite number, no ball inside an obstacle present the "
            + "whole shot or beyond a wall (version 2's flight; version 1's steps counted apart), no shot past the time "
            + "limit, no game past 1000 shots, no time going back. "
            + "--compare also replays every shot from the state before it and counts shots that differ. The hash "
            + "(FNV-1a over every shot's bits, the variants folded in order) is the same for any thread count.")

    @Option(help: "Shots in all.")
    var shots = 10000

    @Option(help: "Shots on each level variant.")
    var shotsPerLevel = 20

    @Flag(help: "Also replay every shot from the state before it and count shots that differ.")
    var compare = false

    @Option(help: "The physics the games are played on: 2 (the fuzz), or 1 (the same games and checks on version 1, a baseline).")
    var physics = PhysicsVersion.timeOfImpact

    @OptionGroup var threads: BenchThreads

    @OptionGroup var output: BenchOutputOptions

    struct Row: BenchRow {
        struct Columns: Encodable {
            var threads: Int, levels: Int, shots: Int, steps: Int, games: Int, handOffs: Int, turnedShots: Int
            var checkedShots: Int, positions: Int, nonFinite: Int, tunnelled: Int, throughWalls: Int, overLimit: Int
            var longGames: Int, timeBack: Int, mismatches: Int, v1Tunnelled: Int, v1ThroughWalls: Int, squeezed: Int
            var hash: String, seconds: Double
        }
        struct Extra: Encodable {
            var physics: Int, compared: Bool, gamesOver: Int, partlyCheckedShots: Int, runaways: Int, deepest: Double
            var v1Deepest: Double, v1Positions: Int, examples: [String], v1Examples: [String]
        }
        var columns: Columns
        var extra: Extra
    }

    /// 16 lower-case hex digits.
    static func hex(_ h: UInt64) -> String {
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// The run's tally: variant i's `shotsPerLevel` shots (fewer for the last), on `threads`
    /// threads, folded in variant order (so the hash does not depend on the thread count).
    static func run(shots: Int, shotsPerLevel: Int, compare: Bool, threads: Int,
                    physics: PhysicsVersion = .timeOfImpact) throws -> Benchmarks.TOIGameFuzz {
        let levels = (shots + shotsPerLevel - 1) / shotsPerLevel
        let each = Parallel.map(levels, threads: threads, chunksPerThread: 8) { i in
            Result {
                try Benchmarks.toiGameFuzz(level: LevelGenerator.coverageVariant(i), rules: Rules(), seed: UInt64(i),
                                           shots: min(shotsPerLevel, shots - i * shotsPerLevel), compare: compare,
                                           physics: physics)
            }
        }
        return try each.reduce(Benchmarks.TOIGameFuzz()) { try $0 + $1.get() }
    }

    func run() throws {
        guard shots >= 1, shotsPerLevel >= 1 else { throw UserError("--shots and --shots-per-level must be at least 1") }
        var out = try BenchOutput<Row>(output)
        let levels = (shots + shotsPerLevel - 1) / shotsPerLevel
        for t in try threads.counts() {
            let start = BenchClock.now()
            let v = try Self.run(shots: shots, shotsPerLevel: shotsPerLevel, compare: compare, threads: t, physics: physics)
            let row = Row(columns: .init(threads: t, levels: levels, shots: v.shots, steps: v.steps, games: v.games,
                                         handOffs: v.handOffs, turnedShots: v.turnedShots, checkedShots: v.checkedShots,
                                         positions: v.positions, nonFinite: v.nonFinite, tunnelled: v.tunnelled,
                                         throughWalls: v.throughWalls, overLimit: v.overLimit, longGames: v.longGames,
                                         timeBack: v.timeBack, mismatches: v.mismatches, v1Tunnelled: v.v1Tunnelled,
                                         v1ThroughWalls: v.v1ThroughWalls, squeezed: v.squeezed, hash: Self.hex(v.hash),
                                         seconds: BenchClock.round(BenchClock.seconds(since: start), 2)),
                          extra: .init(physics: physics.rawValue, compared: compare, gamesOver: v.gamesOver,
                                       partlyCheckedShots: v.partlyCheckedShots, runaways: v.runaways,
                                       deepest: v.deepest.isFinite ? v.deepest : 0,
                                       v1Deepest: v.v1Deepest.isFinite ? v.v1Deepest : 0, v1Positions: v.v1Positions,
                                       examples: v.examples, v1Examples: v.v1Examples))
            try out.emit(row, text: "physics \(physics), threads \(t): \(v.shots) shots on \(levels) level variants, \(v.games) "
                + "games (\(v.gamesOver) over), \(v.steps) steps; \(v.handOffs) handed off to version 1 midway, "
                + "\(v.turnedShots) on a turned board; \(v.positions) positions checked against the obstacles "
                + "(\(v.v1Positions) of version 1's steps), in \(v.checkedShots) shots whole and \(v.partlyCheckedShots) "
                + "up to a flip; deepest \(v.deepest) (version 1's \(v.v1Deepest))\n"
                + "  violations: \(v.nonFinite) non-finite, \(v.tunnelled) inside an obstacle, \(v.throughWalls) beyond a wall, "
                + "\(v.overLimit) over the time limit, \(v.longGames) long games, \(v.timeBack) time back"
                + (compare ? "; \(v.mismatches) shots differ on replay" : "") + "\n"
                + "  version 1's steps: \(v.v1Tunnelled) inside an obstacle, \(v.v1ThroughWalls) beyond a wall; "
                + "\(v.squeezed) squeezed into a wall by the bucket; \(v.runaways) with a runaway ball (either version)\n"
                + "  hash \(row.columns.hash) (\(row.columns.seconds) s)"
                + v.examples.map { "\n  example: \($0)" }.joined() + v.v1Examples.map { "\n  version 1's: \($0)" }.joined())
        }
        try out.finish()
    }
}
