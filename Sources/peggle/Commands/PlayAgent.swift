import Foundation
import PeggleAgents
import PeggleCommandLine
import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PeggleUtilities

/// `peggle play LEVEL --agent ...`: whole games by an agent, in parallel over episodes.
struct AgentPlay {
    var spec: String
    var episodes: Int
    var sigma: Double
    var tuning: AgentOptions
    var json: Bool

    func run(file: String, seed: UInt64, rules: Rules) throws {
        try tuning.check()
        guard episodes >= 1 else { throw UserError("--episodes: \(episodes) must be at least 1") }
        guard sigma.isFinite, sigma >= 0 else {
            throw UserError("--sigma: \(sigma) is not allowed; aim noise is a standard deviation in radians, 0 or more")
        }
        let level = try Files.loadLevel(file, rules: rules)
        let threads = tuning.threadCount
        // Few games: the greedy search itself spreads over the cores; many: one game per core.
        let agent = try tuning.agent(spec, threads: episodes >= threads ? 1 : threads)
        let sigma = self.sigma
        let prepared: PreparedLevel
        do { prepared = try PreparedLevel(level, rules: rules) } catch { throw UserError("\(file): \(error)") }
        let results = Parallel.map(episodes, threads: episodes >= threads ? threads : 1, chunksPerThread: .max) { k in
            Episode.play(agent, prepared: prepared, seed: seed &+ UInt64(k), sigma: sigma)
        }
        let stats = AgentLevelStats(results)
        let wins = stats.wins, interval = stats.winInterval
        let meanScore = stats.meanScore, orange = stats.orangeFraction
        let meanShots = Double(results.map(\.shots).reduce(0, +)) / Double(results.count)
        if json {
            let eps: [[String: Any]] = results.enumerated().map { k, r in
                ["seed": seed &+ UInt64(k), "status": r.status.rawValue, "won": r.won, "truncated": r.truncated,
                 "score": r.score, "shots": r.shots, "orange_cleared": r.orangeCleared, "orange_total": r.orangeTotal,
                 "balls_used": r.ballsUsed, "game_seconds": r.gameSeconds, "angles": r.shotLog.map(\.angle)]
            }
            var object: [String: Any] = [
                "engine": PeggleGym.version, "level": level.name, "file": file, "agent": agent.label, "sigma": sigma,
                "episodes": eps,
                "summary": ["episodes": results.count, "wins": wins, "win_rate": stats.winRate,
                            "win_rate_low": interval.lowerBound, "win_rate_high": interval.upperBound,
                            "mean_score": meanScore, "orange_fraction": orange, "mean_shots": meanShots] as [String: Any],
            ]
            object["physics"] = rules.physicsVersion.outputNumber
            printLine(try JSON.text(object))
            return
        }
        for (k, r) in results.enumerated() {
            var s = "episode \(k + 1) (seed \(seed &+ UInt64(k))): \(r.truncated ? "unfinished" : r.status.rawValue) in \(r.shots) shots, "
                + "score \(r.score), orange \(r.orangeCleared)/\(r.orangeTotal)"
            if case .classic = level.mode { s += ", balls used \(r.ballsUsed)" }
            printLine(s)
        }
        printLine("\(agent.label) on \(level.name), sigma \(LevelCodec.number(sigma)): \(results.count) episodes, "
            + "won \(wins) (\(Self.f(stats.winRate, 2)), 95% \(Self.f(interval.lowerBound, 2))-\(Self.f(interval.upperBound, 2))), "
            + "mean score \(Self.f(meanScore, 0)), orange cleared \(Self.f(orange, 3)), mean shots \(Self.f(meanShots, 1))"
            + rules.physicsVersion.outputSuffix)
    }

    static func f(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
}
