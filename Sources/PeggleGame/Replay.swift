import PeggleLevel
import PeggleUtilities

/// The random streams of one episode, each derived from the episode's seed: the game's own
/// random events, the agent's stream and the aim noise. The episode runner plays with them, and a
/// stored game replays with the same `game` seed, so the derivation is written once, here.
public struct EpisodeSeeds: Sendable, Equatable {
    public let game: UInt64, agent: UInt64, noise: UInt64

    public init(episode seed: UInt64) {
        var master = SeededGenerator(seed: seed)
        game = master.next()
        agent = master.next()
        noise = master.next()
    }
}

/// Why a stored game does not replay to its stored outcome.
public enum ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The game was read without its shots, or stored with fewer shots than it took.
    case missingShots(stored: Int, taken: Int)
    /// The engine refused a stored angle (the game ended early, or the angle is out of range).
    case refused(shot: Int, ShotError)
    /// A shot or the end differs from what was stored: another engine, or other rules, played it.
    case differs(shot: Int?, field: String)

    public var description: String {
        switch self {
        case let .missingShots(stored, taken): "\(stored) shots stored for a game of \(taken) shots"
        case let .refused(shot, error): "shot \(shot + 1) was refused: \(error)"
        case let .differs(shot?, field): "shot \(shot + 1) replays with another \(field)"
        case let .differs(nil, field): "the game replays with another \(field)"
        }
    }
}

extension PreparedLevel {
    /// Plays `game` again from its seed and stored fired angles and returns the state it ends in.
    /// The engine is deterministic, so a game stored by this engine under these rules ends
    /// exactly as stored; every shot's hits, points, orange cleared and free balls, and the end's
    /// status, score, shots and orange cleared, are checked, and any difference is an error
    /// (nothing is attributed to pegs from a game that went otherwise).
    public func replay(_ game: PlayedGame) throws(ReplayError) -> GameState {
        guard game.shotLog.count == game.shots else {
            throw .missingShots(stored: game.shotLog.count, taken: game.shots)
        }
        var state = newGame(seed: EpisodeSeeds(episode: game.seed).game)
        for (k, stored) in game.shotLog.enumerated() {
            let r: ShotResult
            do { r = try state.shoot(angle: stored.angle) } catch { throw .refused(shot: k, error) }
            if r.hits != stored.hits { throw .differs(shot: k, field: "hits") }
            if r.points != stored.points { throw .differs(shot: k, field: "points") }
            if r.orangeCleared != stored.orangeCleared { throw .differs(shot: k, field: "orange cleared") }
            if r.freeBalls != stored.freeBalls { throw .differs(shot: k, field: "free balls") }
        }
        if state.status != game.status { throw .differs(shot: nil, field: "status") }
        if state.score != game.score { throw .differs(shot: nil, field: "score") }
        if state.orangeCleared != game.orangeCleared { throw .differs(shot: nil, field: "orange cleared") }
        return state
    }
}
