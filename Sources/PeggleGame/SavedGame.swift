import PegglePhysics
import PeggleUtilities

extension GameState {
    /// Everything a game changes while it is played, as plain values: put into a new game of the
    /// same level and rules (`restore`), it gives back this game bit for bit. Left out: the level
    /// and rules, and what they fix (`orangeTotal`, `purpleSlots`), `scratch`, which every use
    /// clears first, and version 2's flight (`toi`), which between shots is the level's scene less
    /// the pegs removed. `SavedStateTests` holds this list to the game's stored properties.
    public struct Saved: Codable, Sendable, Equatable {
        var world: PhysicsWorld.Saved
        var pegs: [PegState]
        var status: GameStatus
        var score: Int
        var ballsLeft: Int
        var shotsTaken: Int
        var elapsed: Double
        var orangeHit: Int
        var orangeCleared: Int
        var cleanShots: Int
        var chances: Int
        var rng: SeededGenerator
        var ballInfo: [BallInfo]
        var pendingExplosions: [Int]
    }

    /// This game's state, for `restore`.
    public var saved: Saved {
        Saved(world: world.saved, pegs: pegs, status: status, score: score, ballsLeft: ballsLeft, shotsTaken: shotsTaken,
              elapsed: elapsed, orangeHit: orangeHit, orangeCleared: orangeCleared, cleanShots: cleanShots, chances: chances,
              rng: rng, ballInfo: ballInfo, pendingExplosions: pendingExplosions)
    }

    /// Puts `saved` back into this game, which must be a new game (nothing played) of the level
    /// and rules it was saved from. Refuses a state that does not fit, naming what, and changes
    /// nothing then.
    public mutating func restore(_ saved: Saved) throws(SavedStateMismatch) {
        guard saved.pegs.count == pegs.count else {
            throw SavedStateMismatch("the saved game has \(saved.pegs.count) pegs; level '\(level.name)' has \(pegs.count)")
        }
        if let bad = saved.pendingExplosions.first(where: { !pegs.indices.contains($0) }) {
            throw SavedStateMismatch("peg \(bad) is outside level '\(level.name)''s 0..<\(pegs.count)")
        }
        guard saved.ballInfo.count <= rules.physics.maxBalls, saved.elapsed.isFinite else {
            throw SavedStateMismatch("the saved game's shot bookkeeping does not fit these rules")
        }
        var w = world
        try w.restore(saved.world)
        world = w
        pegs = saved.pegs
        status = saved.status
        score = saved.score
        ballsLeft = saved.ballsLeft
        shotsTaken = saved.shotsTaken
        elapsed = saved.elapsed
        orangeHit = saved.orangeHit
        orangeCleared = saved.orangeCleared
        cleanShots = saved.cleanShots
        chances = saved.chances
        rng = saved.rng
        ballInfo = saved.ballInfo
        pendingExplosions = saved.pendingExplosions
        // Version 2's scene between shots is the level's less the pegs removed.
        if toi != nil {
            toi!.restoreObstacles()
            for i in pegs.indices where pegs[i].isRemoved { toi!.removeObstacle(i) }
        }
    }
}
