import ArgumentParser
import Foundation
import PeggleAgents
import PeggleCommandLine
import PeggleGame
import PeggleLevel

/// `peggle play LEVEL --angles ...`: scripted shots, one line each, then a summary.
/// `peggle play LEVEL --agent NAME`: whole games by a built-in agent, one line each, then a summary.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play scripted shots, or let an agent play whole games, on a level.",
        discussion: "Angles are radians from straight down, positive toward +x, within the aim range. "
            + "The same level, seed and angles give the same output, byte for byte. "
            + "With --agent, episode k uses seed --seed + k (game events, the agent's choices and the aim "
            + "noise all derive from it), so the output does not depend on --threads.")

    @OptionGroup var script: ScriptedShots

    @Option(help: "Let an agent play instead of --angles: \(AgentFactory.syntaxList).")
    var agent: String?

    @Option(help: "With --agent: games to play.")
    var episodes = 10

    @Option(help: "With --agent: aim noise, radians (standard deviation added to every chosen angle).")
    var sigma = 0.0

    @OptionGroup var tuning: AgentOptions

    @OptionGroup var physicsOption: PhysicsOption

    @Flag(help: "Print one JSON object instead of text (each shot lists the ids of the pegs it lit).")
    var json = false

    func run() throws {
        let rules = physicsOption.rules()
        if let agent {
            guard script.angles == nil else { throw UserError("--angles and --agent: give one or the other") }
            return try AgentPlay(spec: agent, episodes: episodes, sigma: sigma, tuning: tuning, json: json)
                .run(file: script.level, seed: script.seed, rules: rules)
        }
        guard script.angles != nil else {
            throw UserError("--angles: give the shots to play, e.g. --angles 0.1,-0.35 (or let an agent play: --agent greedy)")
        }
        let (lvl, aims) = try script.load(rules: rules)
        var game = try GameState(level: lvl, rules: rules, seed: script.seed)
        var records: [[String: Any]] = []
        var played = 0
        for (k, a) in aims.enumerated() where !game.isOver {
            let r = try game.shoot(angle: a, recordTrajectory: json)
            played += 1
            records.append(Self.record(k + 1, r, game))
            if !json { printLine(Self.line(k + 1, r, game)) }
        }
        let summary: [String: Any] = [
            "won": game.status == .won, "status": game.status.rawValue, "score": game.score,
            "shots": game.shotsTaken, "orange_cleared": game.orangeCleared, "orange_total": game.orangeTotal,
            "balls_left": game.ballsLeft, "angles_unused": aims.count - played,
            "game_seconds": game.elapsed,
        ]
        if json {
            var object: [String: Any] = [
                "engine": PeggleGym.version, "level": lvl.name, "file": script.level, "seed": script.seed,
                "mode": lvl.mode.name, "shots": records, "summary": summary,
            ]
            object["physics"] = rules.physicsVersion.outputNumber
            printLine(try JSON.text(object))
            return
        }
        var s = "\(game.status == .won ? "won" : game.status == .lost ? "lost" : "playing"): score \(game.score), "
            + "shots \(game.shotsTaken), orange cleared \(game.orangeCleared)/\(game.orangeTotal)"
        switch lvl.mode {
        case .classic: s += ", balls left \(game.ballsLeft)"
        case .beatTheScore: s += ", game time \(String(format: "%.2f", game.elapsed)) s of \(LevelCodec.number(game.timeLeft! + game.elapsed)) s"
        case .dodge: s += ", clean shots \(game.cleanShots), chances \(game.chances)"
        }
        if played < aims.count { s += " (game over; \(aims.count - played) angles not played)" }
        s += rules.physicsVersion.outputSuffix
        printLine(s)
    }

    static func hitsText(_ h: KindCounts) -> String {
        let parts = PegKind.allCases.filter { h[$0] > 0 }.map { "\(h[$0]) \($0.rawValue)" }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    static func line(_ n: Int, _ r: ShotResult, _ g: GameState) -> String {
        var s = "shot \(n): angle \(String(format: "%+.4f", r.angle)), hit \(r.hits.total)\(hitsText(r.hits)), "
            + "+\(r.points) points, free balls \(r.freeBalls), caught \(r.caught > 0 ? "yes" : "no"), "
            + "\(String(format: "%.2f", r.duration)) s"
        if r.timedOut { s += ", timed out" }
        if r.stuckRemovals > 0 { s += ", \(r.stuckRemovals) pegs removed early (stuck ball)" }
        if r.flips > 0 { s += ", board flipped" }
        return s + " -> score \(g.score), orange left \(g.orangeRemaining)"
    }

    static func record(_ n: Int, _ r: ShotResult, _ g: GameState) -> [String: Any] {
        var hits: [String: Any] = [:]
        for k in PegKind.allCases { hits[k.rawValue] = r.hits[k] }
        return [
            "shot": n, "angle": r.angle, "hits": hits, "pegs_hit": r.hits.total, "points": r.points,
            "free_balls": r.freeBalls, "caught": r.caught, "orange_cleared": r.orangeCleared,
            "seconds": r.duration, "steps": r.steps, "timed_out": r.timedOut, "stuck_removals": r.stuckRemovals,
            "flips": r.flips, "score": g.score, "balls_left": g.ballsLeft, "status": g.status.rawValue,
            "lit_pegs": (r.trajectory?.litPegs ?? []).map { g.level.pegs[$0].id },
        ]
    }
}
