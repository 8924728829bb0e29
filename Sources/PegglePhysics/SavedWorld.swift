/// Why a saved state cannot be put back: it does not fit what it is put into.
public struct SavedStateMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

extension PhysicsWorld {
    /// Everything a world changes while it is played, as plain values: with the world its
    /// level and rules make (`config`, the store's obstacles), `restore` gives back this world
    /// bit for bit. What is left out is fixed by the level (`config`, the store's geometry and
    /// its free-flight bound), or a cache that never changes a result (`inverseTurns`), or
    /// rewritten by every step before it is read (the contacts and sub-step scratch in
    /// `buffers`). `SavedStateTests` holds this list to the world's stored properties.
    public struct Saved: Codable, Sendable, Equatable {
        var nextBallId: Int32
        var bucket: KinematicBucket?
        var frame: RotatingFrame
        var time: Double
        var balls: [Ball]
        /// The obstacles `ObstacleStore.disable` took out, in id order.
        var disabled: [Int32]
        var freeFlight: FreeFlight
        var freeFlightTally: FreeFlightTally
    }

    /// This world's state, for `restore`.
    public var saved: Saved {
        Saved(nextBallId: nextBallId, bucket: bucket, frame: frame, time: time, balls: Array(balls),
              disabled: (0..<store.count).filter { !store.isEnabled($0) }.map(Int32.init),
              freeFlight: freeFlight, freeFlightTally: freeFlightTally)
    }

    /// Puts `saved` back into this world, which must be the world its level and rules made and
    /// nothing has played yet (every obstacle enabled). Refuses a state that does not fit it,
    /// naming what, and changes nothing then.
    public mutating func restore(_ saved: Saved) throws(SavedStateMismatch) {
        guard (bucket == nil) == (saved.bucket == nil) else {
            throw SavedStateMismatch(saved.bucket == nil ? "the saved board has no bucket; this level's has one"
                                                          : "the saved board has a bucket; this level's has none")
        }
        guard saved.balls.count <= config.maxBalls else {
            throw SavedStateMismatch("\(saved.balls.count) balls in play; at most \(config.maxBalls) fit")
        }
        for b in saved.balls {
            guard b.position.isFinite, b.velocity.isFinite, b.id >= 0, b.id < saved.nextBallId else {
                throw SavedStateMismatch("ball \(b.id) is at \(b.position) moving \(b.velocity): not a ball of this world")
            }
        }
        if let b = saved.bucket {
            guard [b.x, b.direction, b.width, b.rimRadius, b.top, b.depth, b.speed, b.restitution, b.minX, b.maxX]
                .allSatisfy(\.isFinite) else { throw SavedStateMismatch("the bucket holds a number that is not finite") }
        }
        let f = saved.frame
        guard f.center.isFinite, f.angle.isFinite, f.target.isFinite, f.angularSpeed.isFinite, saved.time.isFinite else {
            throw SavedStateMismatch("the board's frame or clock holds a number that is not finite")
        }
        if let bad = saved.disabled.first(where: { $0 < 0 || Int($0) >= store.count }) {
            throw SavedStateMismatch("obstacle \(bad) is outside this board's 0..<\(store.count)")
        }
        // Disabling is per obstacle and touches only its lanes, so the order does not matter.
        for id in saved.disabled { store.disable(Int(id)) }
        nextBallId = saved.nextBallId
        bucket = saved.bucket
        frame = saved.frame
        time = saved.time
        freeFlight = saved.freeFlight
        freeFlightTally = saved.freeFlightTally
        makeUnique()
        buffers.ballCount = 0
        buffers.contactCount = 0
        for b in saved.balls {
            buffers.balls[buffers.ballCount] = b
            buffers.ballCount += 1
        }
    }
}
