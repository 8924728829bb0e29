import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleLab
import PeggleLevel

/// `peggle-bench physics`: physics and full-game throughput on the shared benchmark scene.
struct BenchPhysics: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "physics",
        abstract: "Physics and full-game throughput on the benchmark scene (Levels/bench-grid.json): steps and shots per second.",
        discussion: "Physics only: N shots at angles spread over [-1.3, 1.3], pegs never removed, no bucket, "
            + "each until the ball falls below y = 620 or 30 s (the scene of the pymunk and Box2D comparison in docs/performance.md). "
            + "Full game: shots/10 complete classic games with every rule on (episode e: seed e, the same "
            + "angles taken in turn from offset 7e).")

    @Option(help: "Scene to run (grid is the only one).")
    var scene = "grid"

    @OptionGroup var workload: BenchLevel

    @Option(help: "Shots per run.")
    var shots = 400

    @OptionGroup var threads: BenchThreads

    @OptionGroup var output: BenchOutputOptions

    /// One row per thread count: the median run of each part.
    struct Row: BenchRow {
        struct Columns: Encodable {
            var threads: Int, shots: Int, steps: Int, seconds: Double
            var stepsPerS: Double, shotsPerS: Double, meanStepsPerShot: Double
            var gameShotsPerS: Double, gameMeanStepsPerShot: Double
        }
        struct Extra: Encodable {
            var engine: String, scene: String, pegs: Int, `repeat`: Int, cores: Int
            var stepsPerSRuns: [Double], gameShotsPerSRuns: [Double]
            var gameEpisodes: Int, gameShots: Int, gameSteps: Int, gameSeconds: Double
        }
        var columns: Columns
        var extra: Extra
    }

    func run() throws {
        guard scene == "grid" else { throw UserError("--scene: unknown scene '\(scene)' (expected grid)") }
        guard shots >= 2 else { throw UserError("--shots: \(shots) is too few; give at least 2") }
        let counts = try threads.counts()
        let level = try workload.load()
        var out = try BenchOutput<Row>(output)
        let rules = Rules()
        let angles = Benchmarks.gridAngles(shots)
        let episodes = max(1, shots / 10)
        let round = BenchClock.round
        for t in counts {
            var physics: [BenchClock.Run] = [], game: [BenchClock.Run] = []
            for _ in 0..<workload.repeat {
                physics.append(try BenchClock.timed(threads: t, count: angles.count) { range in
                    BenchClock.Run(shots: range.count, steps: Benchmarks.physicsSteps(level: level, rules: rules, angles: angles[range]),
                                   seconds: 0)
                })
                game.append(try BenchClock.timed(threads: t, count: episodes) { range in
                    let r = try Benchmarks.gameEpisodes(level: level, rules: rules, episodes: range, angles: angles)
                    return BenchClock.Run(shots: r.shots, steps: r.steps, seconds: 0)
                })
            }
            let p = BenchClock.median(physics), g = BenchClock.median(game)
            let row = Row(
                columns: .init(threads: t, shots: shots, steps: p.steps, seconds: round(p.seconds, 4),
                               stepsPerS: round(Double(p.steps) / p.seconds, 1), shotsPerS: round(Double(shots) / p.seconds, 1),
                               meanStepsPerShot: round(Double(p.steps) / Double(shots), 1),
                               gameShotsPerS: round(Double(g.shots) / g.seconds, 1),
                               gameMeanStepsPerShot: round(Double(g.steps) / Double(g.shots), 1)),
                extra: .init(engine: "peggle-gym \(PeggleGym.version)", scene: scene, pegs: level.pegs.count,
                             repeat: workload.repeat, cores: BenchClock.cores,
                             stepsPerSRuns: physics.map { round(Double($0.steps) / $0.seconds, 1) },
                             gameShotsPerSRuns: game.map { round(Double($0.shots) / $0.seconds, 1) },
                             gameEpisodes: episodes, gameShots: g.shots, gameSteps: g.steps, gameSeconds: round(g.seconds, 4)))
            let c = row.columns
            try out.emit(row, text: "threads \(t): physics \(c.stepsPerS) steps/s, \(c.shotsPerS) shots/s, "
                + "\(c.meanStepsPerShot) steps/shot; full game \(c.gameShotsPerS) shots/s (median of \(workload.repeat))")
        }
        try out.finish()
    }
}
