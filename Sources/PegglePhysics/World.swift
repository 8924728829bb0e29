/// The simulation: balls moving under gravity through a store of static obstacles, three walls,
/// an optional moving bucket, and a frame that can turn all obstacles (the confusement flip).
///
/// Collision is continuous and event driven: within each sub-step every ball's path is swept
/// against everything, the earliest contact of all balls is found, all balls advance to it, the
/// contact is resolved, and the search repeats for the rest of the sub-step. Nothing tunnels at
/// any speed. Integration is kick-drift-kick (leapfrog): symplectic, exact for free flight under
/// constant gravity, so energy never drifts upward between contacts.
///
/// `step()` allocates nothing: balls and contacts live in buffers reserved at creation. The world is a value: copying it copies the game's physics exactly.
public struct PhysicsWorld: Sendable {
    public let config: PhysicsConfig
    /// Static obstacles in their local frame.
    public var store: ObstacleStore
    /// Id the next ball will get.
    public internal(set) var nextBallId: Int32 = 0
    /// The moving bucket, if the scene has one.
    public var bucket: KinematicBucket?
    /// Orientation of the obstacles.
    public internal(set) var frame: RotatingFrame
    /// Simulated time, seconds.
    public internal(set) var time: Double = 0
    /// Balls, scratch and contacts (copy on write).
    @usableFromInline var buffers: WorldBuffers
    /// The trig of the frame's recent angles (a cache: it never changes a result).
    var inverseTurns = InverseTurns()
    /// Whether steps skip store sweeps the free-flight bound proves empty (never changes a
    /// result; `.off` and `.checked` are for tests and measurements). Copies keep it.
    public var freeFlight: FreeFlight = .on
    /// In `.checked` mode, the skipped sweeps and the contacts they would have found.
    public internal(set) var freeFlightTally = FreeFlightTally()

    public init(config: PhysicsConfig, store: ObstacleStore, bucket: KinematicBucket? = nil) {
        precondition(config.maxBalls >= 1 && config.maxBalls <= 64, "maxBalls must be in 1...64")
        self.config = config
        self.store = store
        self.bucket = bucket
        self.frame = RotatingFrame(center: Vec2(config.boardWidth / 2, config.boardHeight / 2))
        // Every event involves one or two balls and each ball has its own budget per sub-step;
        // ball-ball events write two contacts; each ball can leave the board once per sub-step.
        let perSubstep = 2 * config.maxEventsPerSubstep * config.maxBalls + config.maxBalls
        buffers = WorldBuffers(ballCapacity: config.maxBalls, contactCapacity: perSubstep * max(1, config.substeps),
                               config: config)
    }

    public init(config: PhysicsConfig, obstacles: [Obstacle], bucket: KinematicBucket? = nil) {
        self.init(config: config, store: ObstacleStore(obstacles: obstacles, config: config), bucket: bucket)
    }

    /// Gives this world its own buffers before it changes them.
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffers) { buffers = buffers.copy() }
    }

    // MARK: Balls

    /// Balls in play, in the order they entered. Refer to a ball by its `id`, not its index.
    @inlinable public var balls: BallList { BallList(owner: buffers, base: buffers.balls, count: buffers.ballCount) }

    /// Events of the latest `step()`, in order.
    @inlinable public var contacts: ContactList {
        ContactList(owner: buffers, base: buffers.contacts, count: buffers.contactCount)
    }

    /// Number of balls in play.
    @inlinable public var activeBallCount: Int { buffers.ballCount }

    /// The ball at `index` of `balls`, read directly (for hot loops; `balls` makes a view).
    @inlinable public func ball(at index: Int) -> Ball {
        precondition(index >= 0 && index < buffers.ballCount, "ball index out of range")
        return buffers.balls[index]
    }

    /// Number of contacts of the latest step.
    @inlinable public var contactCount: Int { buffers.contactCount }

    /// The contact at `index` of `contacts`, read directly (for hot loops).
    @inlinable public func contact(at index: Int) -> Contact {
        precondition(index >= 0 && index < buffers.contactCount, "contact index out of range")
        return buffers.contacts[index]
    }

    /// Puts a ball in play at `position` (world) with `velocity`, returning its id, or nil if
    /// `config.maxBalls` are already in play or the values are not finite.
    @discardableResult
    public mutating func spawnBall(position: Vec2, velocity: Vec2) -> Int32? {
        guard position.isFinite, velocity.isFinite, buffers.ballCount < config.maxBalls else { return nil }
        makeUnique()
        let id = nextBallId
        nextBallId += 1
        buffers.balls[buffers.ballCount] = Ball(id: id, position: position, velocity: velocity)
        buffers.ballCount += 1
        return id
    }

    /// Index in `balls` of the ball with `id`, if it is in play.
    public func index(of id: Int32) -> Int? { balls.firstIndex { $0.id == id } }

    /// Takes the ball with `id` out of play.
    public mutating func removeBall(id: Int32) {
        guard let i = index(of: id) else { return }
        makeUnique()
        buffers.removeBall(at: i)
    }

    /// Takes every ball out of play.
    public mutating func removeAllBalls() {
        guard buffers.ballCount > 0 else { return }
        makeUnique()
        buffers.ballCount = 0
    }

    /// Moves the ball with `id` to `position` with `velocity` (world frame).
    public mutating func placeBall(id: Int32, position: Vec2, velocity: Vec2) {
        guard let i = index(of: id) else { return }
        makeUnique()
        buffers.balls[i].position = position
        buffers.balls[i].velocity = velocity
    }

    /// Pushes the ball with `id` out of any obstacle or wall it overlaps (after a spawn or a
    /// teleport; swept motion never needs this).
    public mutating func separateBall(id: Int32) {
        guard let i = index(of: id) else { return }
        var q = frame.toLocal(balls[i].position, angle: frame.angle)
        q = store.pushedOut(q, slop: config.contactSlop)
        var p = frame.toWorld(q, angle: frame.angle)
        let r = config.ballRadius
        if config.leftWall { p.x = max(p.x, r + config.contactSlop) }
        if config.rightWall { p.x = min(p.x, config.boardWidth - r - config.contactSlop) }
        if config.topWall { p.y = max(p.y, r + config.contactSlop) }
        makeUnique()
        buffers.balls[i].position = p
    }

    // MARK: Obstacles

    /// Starts turning every obstacle by `angle` radians about the board centre, at `rate`
    /// radians per second. A turn asked for while one is under way extends it.
    public mutating func startTurn(by angle: Double, rate: Double) {
        frame.target += angle
        frame.angularSpeed = rate
    }

    /// Finishes any turn at once (for when no ball is in play, so nothing can be pushed), and
    /// reduces the angle to (-pi, pi], snapping whole and half turns to exactly 0 and pi.
    public mutating func completeTurn() {
        let a = Self.reducedTurn(frame.target)
        frame.angle = a
        frame.target = a
    }

    /// `angle` reduced to (-pi, pi], whole and half turns snapped to exactly 0 and pi.
    static func reducedTurn(_ angle: Double) -> Double {
        let twoPi = 2 * Trig.pi
        var a = angle - twoPi * (angle / twoPi).rounded()
        if abs(a) < 1e-9 { a = 0 }
        if abs(abs(a) - Trig.pi) < 1e-9 { a = Trig.pi }
        return a
    }

    /// World position of a local point under the current frame.
    public func worldPoint(_ local: Vec2) -> Vec2 { frame.toWorld(local, angle: frame.angle) }

    /// Local position of a world point under the current frame.
    public func localPoint(_ world: Vec2) -> Vec2 { frame.toLocal(world, angle: frame.angle) }

}

/// Scalar swept tests, for the few kinematic primitives outside the store.
public enum Sweep {
    /// Fraction s in [0, 1) at which a point moving from `q0` by `dq` reaches distance `radius`
    /// of `center` while approaching; 0 if already inside and approaching; nil if never.
    @inlinable
    public static func circle(from q0: Vec2, by dq: Vec2, center: Vec2, radius: Double) -> Double? {
        let a = dq.lengthSquared
        guard a > 0 else { return nil }
        let m = q0 - center
        let b = m.dot(dq)
        guard b < 0 else { return nil }
        let c = m.lengthSquared - radius * radius
        if c <= 0 { return 0 }
        let disc = b * b - a * c
        guard disc >= 0 else { return nil }
        let s = (-b - disc.squareRoot()) / a
        return s < 1 ? s : nil
    }

    /// Fraction s in [0, 1) at which a point crosses the line `p . normal == offset` while
    /// closing, with `t0 <= p . along <= t1` there; 0 if already within the band and closing.
    @inlinable
    public static func edge(from q0: Vec2, by dq: Vec2, normal n: Vec2, offset: Double, ballRadius: Double,
                            along u: Vec2, t0: Double, t1: Double) -> Double? {
        let dn = dq.dot(n)
        guard dn < -1e-12 else { return nil }
        let dist = q0.dot(n) - offset
        guard dist > -ballRadius else { return nil }
        let s = max(dist, 0) / -dn
        guard s < 1 else { return nil }
        let t = (q0 + dq * s).dot(u)
        return t >= t0 && t <= t1 ? s : nil
    }
}
