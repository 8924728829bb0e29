import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleEstimate
import PeggleGame
import PeggleLevel

/// `peggle-bench estimate`: what the instant estimate costs a level under a physics (issue 51).
/// Its features play shots (a sweep of first shots, the second shot's sweep, two short greedy
/// rollouts), so `--physics 2` flies them on version 2; the model was fitted on version 1's
/// features, so the estimate printed beside the time is only to compare, not to use.
struct BenchEstimate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "estimate",
        abstract: "The instant estimate's cost: milliseconds of a level's features (and the estimate) under a physics.",
        discussion: "Each level is prepared once (level check and the start state, as `peggle estimate` does), then its "
            + "features (LevelFeatures) are computed --repeat times, one thread; a row per level with the median (and, "
            + "without --json, a last line with the median over levels). The sigma50 column is the built-in model's, fitted on version 1.")

    @Option(help: "Level files, comma-separated (default: Levels/*.json but the benchmark scene bench-grid.json).")
    var levels: CommaList<String>?

    @Option(help: "Runs of each level's features; the median is reported.")
    var `repeat` = 3

    @OptionGroup var physicsOption: PhysicsOption

    @OptionGroup var output: BenchOutputOptions

    struct Row: BenchRow {
        struct Columns: Encodable {
            var level: String, physics: Int, ms: Double, sigma50: Double
        }
        struct Extra: Encodable { var `repeat`: Int }
        var columns: Columns
        var extra: Extra
    }

    func run() throws {
        guard `repeat` >= 1 else { throw UserError("--repeat: \(`repeat`) must be at least 1") }
        let files = try levels?.values("--levels") ?? BenchTOIGames.defaultLevels()
        var out = try BenchOutput<Row>(output)
        let rules = physicsOption.rules()
        let physics = physicsOption.physics.rawValue
        var times: [Double] = []
        for file in files {
            let level = try Files.loadLevel(file)
            let prepared: PreparedLevel
            do { prepared = try PreparedLevel(level, rules: rules) } catch { throw UserError("\(file): \(error)") }
            var runs: [Double] = []
            var features: LevelFeatures?
            for _ in 0..<`repeat` {
                let start = BenchClock.now()
                features = LevelFeatures(prepared)
                runs.append(BenchClock.seconds(since: start) * 1000)
            }
            let ms = runs.sorted()[runs.count / 2]
            times.append(ms)
            guard let features else { continue }
            let sigma50 = Sigma50Estimate(features: features, model: .builtIn).sigma50
            try out.emit(Row(columns: .init(level: file, physics: physics, ms: BenchClock.round(ms, 3),
                                            sigma50: BenchClock.round(sigma50, 5)),
                             extra: .init(repeat: `repeat`)),
                         text: "\(file): \(BenchClock.round(ms, 2)) ms, sigma50 about \(BenchClock.round(sigma50, 4)) [physics \(physics)]")
        }
        if !output.json {
            printLine("median of \(files.count) levels: \(BenchClock.round(times.sorted()[times.count / 2], 2)) ms a level [physics \(physics)]")
        }
        try out.finish()
    }
}
