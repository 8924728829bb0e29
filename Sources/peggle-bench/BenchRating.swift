import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleRating
import PeggleStore

/// `peggle-bench rating`: a whole rating run into an in-memory database, with the options of
/// `peggle rate` (one group), measured at each thread count: levels per hour.
struct BenchRating: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rating",
        abstract: "A whole rating run (by default the adaptive method, every agent, default precision): levels per hour.",
        discussion: "The levels are rated as `peggle rate` rates them with the same options, into an in-memory database "
            + "(nothing is written), once per thread count; wall and CPU seconds, games and how each level stopped.")

    @Argument(help: "Level files, or folders whose *.json files are levels (bench-grid.json, the physics scene, is left out).")
    var levels: [String] = ["Levels"]

    @OptionGroup var rating: RateOptions

    @OptionGroup var greedy: GreedyTuning

    @OptionGroup var threads: BenchThreads

    @OptionGroup var output: BenchOutputOptions

    /// One row per thread count.
    struct Row: BenchRow {
        struct Columns: Encodable {
            var mode: String, levels: Int, threads: Int, budget: Int, precision: Double, seconds: Double, cpuSeconds: Double
            var games: Int, levelsPerHour: Double
        }
        struct Extra: Encodable {
            var agents: [String], gamesPerKind: [String: Int], gamesPerS: Double
            /// Levels by how their measurement stopped.
            var stops: [String: Int]
            var cores: Int
            /// Adaptive: where batches went, and the median over levels of the final 95% interval's
            /// high / low (the skill agent's; a bound's interval too).
            var placement: String? = nil
            var prior: String? = nil
            var stop: String? = nil
            var medianIntervalRatio: Double? = nil
        }
        var columns: Columns
        var extra: Extra
    }

    func run() throws {
        let counts = try threads.counts()
        let settings = try rating.settings()
        let agents = try rating.agentList(greedy)
        var files = try Files.levelFiles(levels)
        // The physics benchmark scene is not a level anyone rates.
        files.removeAll { ($0 as NSString).lastPathComponent == "bench-grid.json" }
        guard !files.isEmpty else {
            throw UserError("\(levels.joined(separator: ", ")): no level to rate (bench-grid.json, the physics scene, is left out)")
        }
        let loaded = try files.map { ($0, try Files.loadLevel($0, rules: rating.physicsOption.rules())) }
        var out = try BenchOutput<Row>(output)
        let round = BenchClock.round
        for t in counts {
            let config = rating.config(settings, agents: agents)
            let store: PeggleStore
            do { store = try PeggleStore() } catch { throw UserError("\(error)") }
            let before = BenchClock.cpuSeconds()
            let summary: RatingRun.Summary
            do {
                summary = try RatingRun(store: store, levels: loaded, config: config, command: "bench rating", threads: t).run()
            } catch { throw UserError("\(error)") }
            let cpu = BenchClock.cpuSeconds() - before
            let games: [PlayedGame]
            do { games = try store.games() } catch { throw UserError("\(error)") }
            var perKind: [String: Int] = [:]
            for g in games { perKind[g.agentKind.rawValue, default: 0] += 1 }
            var stops: [String: Int] = [:]
            for m in summary.measurements { stops[m.measurement.stop?.rawValue ?? "unfinished", default: 0] += 1 }
            let ratios = summary.measurements.map { m in
                let fit = m.measurement.posterior.summary()
                return fit.high / fit.low
            }.sorted()
            let medianRatio: Double? = ratios.isEmpty ? nil
                : ratios.count % 2 == 1 ? ratios[ratios.count / 2] : (ratios[ratios.count / 2 - 1] + ratios[ratios.count / 2]) / 2
            let row = Row(
                columns: .init(mode: "rating", levels: loaded.count, threads: t, budget: settings.adaptive.budget,
                               precision: settings.adaptive.precision, seconds: round(summary.seconds, 2), cpuSeconds: round(cpu, 2),
                               games: games.count, levelsPerHour: round(Double(loaded.count) * 3600 / summary.seconds, 0)),
                extra: .init(agents: agents.map(\.label), gamesPerKind: perKind, gamesPerS: round(Double(games.count) / summary.seconds, 1),
                             stops: stops, cores: BenchClock.cores,
                             placement: settings.adaptive.placement.rawValue, prior: settings.adaptive.prior.rawValue,
                             stop: settings.adaptive.stop.rawValue, medianIntervalRatio: medianRatio.map { round($0, 3) }))
            func list(_ counts: [String: Int]) -> String {
                counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            try out.emit(row, text: "threads \(t): rated \(loaded.count) levels in \(row.columns.seconds) s (\(row.columns.cpuSeconds) s of CPU): "
                + "\(row.columns.levelsPerHour) levels/hour, \(games.count) games (\(list(perKind))); stops: \(list(stops))"
                + (medianRatio.map { "; placement \(settings.adaptive.placement.rawValue), prior \(settings.adaptive.prior.rawValue), stop \(settings.adaptive.stop.rawValue), median interval high/low \(round($0, 3))" } ?? ""))
        }
        try out.finish()
    }
}
