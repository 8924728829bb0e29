import Foundation
import PeggleAgents
import PeggleGame
import PeggleRating
import PeggleStore

extension Bench {
    /// `bench --rating`: a whole rating run (the adaptive method, every agent, default precision)
    /// of the levels in `--rating-levels` into an in-memory database: levels per hour.
    func runRating(_ counts: [Int]) throws -> [[String: Any]] {
        let folder = ratingLevels
        var isDir: ObjCBool = false
        var files: [String]
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue {
            files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }
                .sorted().map { (folder as NSString).appendingPathComponent($0) }
        } else {
            files = folder.split(separator: ",").map(String.init)
        }
        // The physics benchmark scene is not a level anyone rates.
        files.removeAll { ($0 as NSString).lastPathComponent == "bench-grid.json" }
        guard !files.isEmpty else { throw UserError("--rating-levels: \(folder) names no level file") }
        let levels = try files.map { ($0, try Files.loadLevel($0)) }
        var rows: [[String: Any]] = []
        for t in counts {
            // The agents at their defaults (the greedy's screening from --screen).
            var tuning = try AgentOptions.parse([])
            tuning.greedy.screen = screen
            let agents = try ratingAgents.split(separator: ",").map { try tuning.agent(String($0), threads: 1) }
            let config = RatingConfig(agents: agents, adaptive: AdaptiveSettings(budget: budget, precision: precision))
            let store: PeggleStore
            do { store = try PeggleStore() } catch { throw UserError("\(error)") }
            let before = Self.cpuSeconds()
            let run: RatingRun
            do {
                run = try RatingRun(store: store, levels: levels, config: config, command: "bench --rating", threads: t)
            } catch { throw UserError("\(error)") }
            let summary: RatingRun.Summary
            do { summary = try run.run() } catch { throw UserError("\(error)") }
            let cpu = Self.cpuSeconds() - before
            let games: [PlayedGame]
            do { games = try store.games() } catch { throw UserError("\(error)") }
            var perKind: [String: Int] = [:]
            for g in games { perKind[g.agentKind.rawValue, default: 0] += 1 }
            var stops: [String: Int] = [:]
            for m in summary.measurements { stops[m.measurement.stop?.rawValue ?? "unfinished", default: 0] += 1 }
            let row: [String: Any] = [
                "mode": "rating", "levels": levels.count, "threads": t, "agents": agents.map(\.label),
                "budget": budget, "precision": precision, "seconds": Self.round(summary.seconds, 2),
                "cpu_seconds": Self.round(cpu, 2), "games": games.count, "games_per_kind": perKind,
                "levels_per_hour": Self.round(Double(levels.count) * 3600 / summary.seconds, 0),
                "games_per_s": Self.round(Double(games.count) / summary.seconds, 1), "stops": stops,
                "cores": ProcessInfo.processInfo.activeProcessorCount,
            ]
            rows.append(row)
            if json { printLine(JSON.text(row)) } else {
                printLine("threads \(t): rated \(levels.count) levels in \(row["seconds"]!) s (\(row["cpu_seconds"]!) s of CPU): "
                    + "\(row["levels_per_hour"]!) levels/hour, \(games.count) games (" + perKind.sorted { $0.key < $1.key }
                        .map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "); stops: "
                    + stops.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
        }
        return rows
    }

    /// CPU time of this process so far (user + system), seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let t = usage.ru_utime, s = usage.ru_stime
        return Double(t.tv_sec) + Double(t.tv_usec) / 1e6 + Double(s.tv_sec) + Double(s.tv_usec) / 1e6
    }
}
