import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI
import PeggleUtilities

/// `peggle-bench toi-games`: whole games on the second physics (`TOIGame`) against today's
/// (`GameState.shoot`), level by level: the same seeds and aims in both.
struct BenchTOIGames: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toi-games",
        abstract: "Whole games on the second physics (times of impact) against today's: shots per second, and how shots differ.",
        discussion: "Speed: --games games a level, each from its own seed with its own aims (uniform in [-1.3, 1.3]), played to "
            + "their end (or the aims' end) by v1 (GameState.shoot) and by v2 (TOIGame.shoot), one thread, interleaved runs; "
            + "shots/s counts each engine's own shots (the games part ways). Differences: every shot of v1's games played again "
            + "from the same state by v2 (TOIGame(state:)) and by v1 with the aim moved by --nudge radians: pegs lit the same, "
            + "caught the same, and where the ball left play (on the exit line or the mouth; v1's extended along its last step). A level v2 refuses gets a row "
            + "saying why.")

    @Option(help: "Level files, comma-separated (default: Levels/*.json but the benchmark scene bench-grid.json).")
    var levels: CommaList<String>?

    @Option(help: "Games a level.")
    var games = 20

    @Option(help: "Aims a game at most.")
    var aims = 40

    @Option(help: "Runs of each speed measurement; the median is reported.")
    var `repeat` = 3

    @Option(help: "Aim change of the v1-against-v1 comparison, radians.")
    var nudge = 1e-9

    @Flag(help: ArgumentHelp("Speed runs start every game, in both engines, from a copy of one fresh game of the level, reseeded "
        + "(GameState.reseed: the same games), instead of building each (level check, v1's obstacle store and its "
        + "free-flight grid, which v2 builds too and never flies in): shots without the per-game setup."))
    var sharedSetup = false

    @OptionGroup var output: BenchOutputOptions

    struct Row: BenchRow {
        struct Columns: Encodable {
            var level: String, refused: String
            var v1ShotsPerS: Double, v2ShotsPerS: Double, v2OverV1: Double
            var v1Shots: Int, v2Shots: Int
            var v1HitsPerShot: Double, v2HitsPerShot: Double, v1CaughtRate: Double, v2CaughtRate: Double
            var v1Won: Double, v2Won: Double
            var sameHits12: Double, sameCaught12: Double, medianEndGap12: Double, within1Unit12: Double
            var sameHits11: Double, sameCaught11: Double, medianEndGap11: Double, within1Unit11: Double
        }
        struct Extra: Encodable {
            var games: Int, aims: Int, `repeat`: Int, nudge: Double, sharedSetup: Bool
            var v1ShotsPerSRuns: [Double], v2ShotsPerSRuns: [Double]
            var comparedShots: Int
            /// Of the compared shots, those version 2 handed to version 1's steps in part or
            /// whole (a second ball, a turning board): they have no version 2 end.
            var handedOff: Double
            /// The end gaps' 10th, 25th, 50th, 75th and 90th percentiles, v1 against v2 and
            /// against itself nudged (units): the distributions the medians summarise.
            var endGapPercentiles12: [Double], endGapPercentiles11: [Double]
            /// Of the compared shots, the fractions whose pegs lit (all kinds) differ by 0, 1, 2
            /// and 3 or more, v1 against v2 and against itself nudged.
            var pegsLitDifference12: [Double], pegsLitDifference11: [Double]
        }
        var columns: Columns
        var extra: Extra
    }

    static func defaultLevels() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "Levels").filter { $0.hasSuffix(".json") && $0 != "bench-grid.json" }
            .sorted().map { "Levels/" + $0 }
    }

    static func aimList(game: Int, count: Int) -> [Double] {
        var rng = SeededGenerator(seed: 51_000 + UInt64(game))
        return (0..<count).map { _ in -1.3 + 2.6 * Double(rng.next() >> 11) * 0x1p-53 }
    }

    /// Where v1's ball left play: on the exit line or the bucket's mouth, extended along its last
    /// recorded step (a ball that left is not recorded at the step it left in); otherwise (stuck,
    /// timed out) its last recorded point.
    static func v1End(_ shot: ShotResult, rules: Rules) -> Vec2 {
        guard let pts = shot.trajectory?.paths.last?.points, let last = pts.last else { return .zero }
        guard pts.count >= 2, !shot.timedOut, shot.stuckBalls == 0 else { return last }
        let line = shot.caught > 0 ? rules.bucket.top : rules.physics.exitY
        let prev = pts[pts.count - 2]
        guard last.y > prev.y else { return last }
        return last + (last - prev) * ((line - last.y) / (last.y - prev.y))
    }

    func run() throws {
        guard games >= 1, aims >= 1, `repeat` >= 1 else {
            throw UserError("--games \(games), --aims \(aims), --repeat \(`repeat`): each must be at least 1")
        }
        let files = try levels?.values("--levels") ?? Self.defaultLevels()
        var out = try BenchOutput<Row>(output)
        let rules = Rules()
        let round = BenchClock.round
        for file in files {
            let level = try Files.loadLevel(file)
            let rules2 = { var r = rules; r.physicsVersion = .timeOfImpact; return r }()
            let reasons = level.physicsIssues(rules: rules2).map(\.message)
            let gameAims = (0..<games).map { Self.aimList(game: $0, count: aims) }
            var v1: [BenchClock.Run] = [], v2: [BenchClock.Run] = []
            if reasons.isEmpty {
                // Game g in each engine: built, or a reseeded copy of one fresh game (the same game).
                let fresh1 = sharedSetup ? try GameState(level: level, rules: rules, seed: 0) : nil
                let fresh2 = sharedSetup ? try GameState(level: level, rules: rules2, seed: 0) : nil
                @Sendable func newGame(_ g: Int, _ fresh: GameState?, _ rules: Rules) throws -> GameState {
                    guard var s = fresh else { return try GameState(level: level, rules: rules, seed: UInt64(g)) }
                    s.reseed(UInt64(g))
                    return s
                }
                for _ in 0..<`repeat` {
                    v1.append(try BenchClock.timed(threads: 1, count: games) { range in
                        var shots = 0
                        for g in range {
                            var s = try newGame(g, fresh1, rules)
                            for a in gameAims[g] where !s.isOver { _ = try s.shoot(angle: a); shots += 1 }
                        }
                        return BenchClock.Run(shots: shots, steps: 0, seconds: 0)
                    })
                    v2.append(try BenchClock.timed(threads: 1, count: games) { range in
                        var shots = 0
                        for g in range {
                            var s = try newGame(g, fresh2, rules2)
                            for a in gameAims[g] where !s.isOver { _ = try s.shoot(angle: a); shots += 1 }
                        }
                        return BenchClock.Run(shots: shots, steps: 0, seconds: 0)
                    })
                }
            }
            // Whole games' outcomes, and every shot of v1's games again from the same state.
            var hits1 = 0, hits2 = 0, caught1 = 0, caught2 = 0, shots1 = 0, shots2 = 0, won1 = 0, won2 = 0
            var same12 = 0, sameCaught12 = 0, same11 = 0, sameCaught11 = 0, compared = 0
            var gaps12: [Double] = [], gaps11: [Double] = []
            var litDiff12 = [0, 0, 0, 0], litDiff11 = [0, 0, 0, 0]
            if reasons.isEmpty {
                let scene = TOIGame.scene(level: level, rules: rules)
                for g in 0..<games {
                    var s1 = try GameState(level: level, rules: rules, seed: UInt64(g))
                    var s2 = try TOIGame(level: level, rules: rules, seed: UInt64(g), scene: scene)
                    for a in gameAims[g] where !s2.state.isOver {
                        let r = try s2.shoot(angle: a)
                        shots2 += 1; hits2 += r.hits.total; caught2 += r.caught
                    }
                    if s2.state.status == .won { won2 += 1 }
                    for a in gameAims[g] where !s1.isOver {
                        var other = try TOIGame(state: s1, scene: scene)
                        var nudged = s1
                        let r1 = try s1.shoot(angle: a, recordTrajectory: true)
                        let r2 = try other.shoot(angle: a)
                        let r11 = try nudged.shoot(angle: a + nudge, recordTrajectory: true)
                        shots1 += 1; hits1 += r1.hits.total; caught1 += r1.caught
                        compared += 1
                        if r1.hits == r2.hits { same12 += 1 }
                        if r1.caught == r2.caught { sameCaught12 += 1 }
                        if r1.hits == r11.hits { same11 += 1 }
                        if r1.caught == r11.caught { sameCaught11 += 1 }
                        litDiff12[min(abs(r1.hits.total - r2.hits.total), 3)] += 1
                        litDiff11[min(abs(r1.hits.total - r11.hits.total), 3)] += 1
                        // A shot version 1 played in part (a hand-off) has no version 2 end.
                        if let e2 = other.lastEnd {
                            let e1 = Self.v1End(r1, rules: rules)
                            gaps12.append((e1 - e2).length)
                            gaps11.append((e1 - Self.v1End(r11, rules: rules)).length)
                        }
                    }
                    if s1.status == .won { won1 += 1 }
                }
            }
            // A refused level's row has zeros (its `refused` column says why).
            func frac(_ k: Int, _ n: Int) -> Double { n == 0 ? 0 : round(Double(k) / Double(n), 4) }
            func median(_ xs: [Double]) -> Double { xs.isEmpty ? 0 : round(BenchTOI.quantile(xs, 0.5), 4) }
            func percentiles(_ xs: [Double]) -> [Double] {
                xs.isEmpty ? [] : [0.1, 0.25, 0.5, 0.75, 0.9].map { round(BenchTOI.quantile(xs, $0), 4) }
            }
            let p1 = v1.isEmpty ? nil : BenchClock.median(v1), p2 = v2.isEmpty ? nil : BenchClock.median(v2)
            let c = Row.Columns(
                level: file, refused: reasons.joined(separator: "; "),
                v1ShotsPerS: p1.map { round(Double($0.shots) / $0.seconds, 1) } ?? 0,
                v2ShotsPerS: p2.map { round(Double($0.shots) / $0.seconds, 1) } ?? 0,
                v2OverV1: p1.flatMap { a in p2.map { b in round((Double(b.shots) / b.seconds) / (Double(a.shots) / a.seconds), 3) } } ?? 0,
                v1Shots: shots1, v2Shots: shots2,
                v1HitsPerShot: frac(hits1, shots1), v2HitsPerShot: frac(hits2, shots2),
                v1CaughtRate: frac(caught1, shots1), v2CaughtRate: frac(caught2, shots2),
                v1Won: frac(won1, games), v2Won: frac(won2, games),
                sameHits12: frac(same12, compared), sameCaught12: frac(sameCaught12, compared),
                medianEndGap12: median(gaps12), within1Unit12: frac(gaps12.filter { $0 < 1 }.count, gaps12.count),
                sameHits11: frac(same11, compared), sameCaught11: frac(sameCaught11, compared),
                medianEndGap11: median(gaps11), within1Unit11: frac(gaps11.filter { $0 < 1 }.count, gaps11.count))
            let row = Row(columns: c, extra: .init(games: games, aims: aims, repeat: `repeat`, nudge: nudge, sharedSetup: sharedSetup,
                                                   v1ShotsPerSRuns: v1.map { round(Double($0.shots) / $0.seconds, 1) },
                                                   v2ShotsPerSRuns: v2.map { round(Double($0.shots) / $0.seconds, 1) },
                                                   comparedShots: compared, handedOff: frac(compared - gaps12.count, compared),
                                                   endGapPercentiles12: percentiles(gaps12), endGapPercentiles11: percentiles(gaps11),
                                                   pegsLitDifference12: litDiff12.map { frac($0, compared) },
                                                   pegsLitDifference11: litDiff11.map { frac($0, compared) }))
            if !reasons.isEmpty {
                try out.emit(row, text: "\(file): refused: \(c.refused)")
                continue
            }
            try out.emit(row, text: "\(file): v1 \(c.v1ShotsPerS) shots/s, v2 \(c.v2ShotsPerS) (v2/v1 \(c.v2OverV1)); "
                + "games: shots \(shots1)/\(shots2), pegs a shot \(c.v1HitsPerShot)/\(c.v2HitsPerShot), caught \(c.v1CaughtRate)/"
                + "\(c.v2CaughtRate), won \(c.v1Won)/\(c.v2Won); same state, v1-v2: same pegs \(c.sameHits12), same caught "
                + "\(c.sameCaught12), end gap median \(c.medianEndGap12), <1 unit \(c.within1Unit12); v1-v1(+\(nudge)): same pegs "
                + "\(c.sameHits11), same caught \(c.sameCaught11), end gap median \(c.medianEndGap11), <1 unit \(c.within1Unit11)")
        }
        try out.finish()
    }
}
