/// A ball in play. Position and velocity are in the world frame (board units, units/s).
public struct Ball: Sendable, Equatable, Hashable, Codable {
    /// Identity, unique within a world for its whole life (never reused).
    public var id: Int32
    public var position: Vec2
    public var velocity: Vec2

    public init(id: Int32, position: Vec2, velocity: Vec2) {
        self.id = id
        self.position = position
        self.velocity = velocity
    }
}

/// What a contact was with.
public enum ContactKind: UInt8, Sendable {
    /// A static obstacle; `other` is its id.
    case obstacle
    /// A wall; `other` is 0 left, 1 right, 2 top.
    case wall
    /// A rim of the moving bucket.
    case bucketRim
    /// Another ball; `other` is its id.
    case ball
    /// The ball dropped into the bucket's mouth and was taken out of play.
    case caught
    /// The ball's centre passed below `PhysicsConfig.exitY` and was taken out of play.
    case fellOut
}

/// One event of a step, reported to the game in order of occurrence.
public struct Contact: Sendable, Equatable {
    public var kind: ContactKind
    /// Id of the ball concerned.
    public var ball: Int32
    /// Obstacle id, wall index, or the other ball's id (see `ContactKind`); -1 otherwise.
    public var other: Int32
    /// Ball centre at the event, world frame.
    public var point: Vec2
    /// Contact normal (from the other body toward the ball), world frame; zero if none.
    public var normal: Vec2
    /// Closing speed along the normal before the response, units/s (>= 0).
    public var impactSpeed: Double
    /// Ball velocity at the moment of the event, before the response, units/s.
    public var velocityBefore: Vec2
    /// Simulated time of the event, seconds (between the step's start and end).
    public var time: Double

    public init(kind: ContactKind, ball: Int32, other: Int32, point: Vec2, normal: Vec2, impactSpeed: Double,
                velocityBefore: Vec2, time: Double) {
        self.kind = kind
        self.ball = ball
        self.other = other
        self.point = point
        self.normal = normal
        self.impactSpeed = impactSpeed
        self.velocityBefore = velocityBefore
        self.time = time
    }
}

/// The bucket: two rims (vertical capsules) that slide left and right along the bottom at a steady
/// speed, turning at the travel limits. A ball whose centre drops through the mouth between the
/// rims is caught. It moves with game time, shot after shot.
public struct KinematicBucket: Sendable, Equatable, Hashable, Codable {
    /// Distance between the rims' centre lines, board units.
    public var width: Double = 100
    /// Radius of each rim capsule, board units.
    public var rimRadius: Double = 4
    /// y of the rims' top caps, board units.
    public var top: Double = 575
    /// How far the rims reach down from `top`, board units (past the board's bottom edge).
    public var depth: Double = 60
    /// Horizontal speed, units/s.
    public var speed: Double = 150
    /// Restitution of the rims.
    public var restitution: Double = 0.8
    /// Centre x, board units.
    public var x: Double = 400
    /// +1 moving right, -1 moving left.
    public var direction: Double = 1
    /// Travel limits of the centre x, board units.
    public var minX: Double = 60, maxX: Double = 740

    public init() {}

    /// Centre x and direction after `dt` seconds, bouncing between the travel limits.
    @inlinable public func advanced(by dt: Double) -> (x: Double, direction: Double) {
        var x = self.x + direction * speed * dt
        var dir = direction
        // A step is far shorter than a traversal, so at most one turn happens per call.
        if x > maxX { x = maxX - (x - maxX); dir = -1 }
        if x < minX { x = minX + (minX - x); dir = 1 }
        return (min(max(x, minX), maxX), dir)
    }
}

/// Rotation of every static obstacle about `center` (the confusement flip). Obstacles are stored
/// in their own (local) frame; the world frame is the local frame turned by `angle`. While
/// `angle` moves toward `target` the obstacles are kinematic: their surfaces carry velocity.
public struct RotatingFrame: Sendable, Equatable, Hashable, Codable {
    /// Centre of rotation, board units.
    public var center: Vec2
    /// Current angle, radians.
    public var angle: Double = 0
    /// Angle being turned toward, radians.
    public var target: Double = 0
    /// Turning rate, radians per second.
    public var angularSpeed: Double = Trig.pi

    public init(center: Vec2) { self.center = center }

    /// Whether the obstacles are turning.
    @inlinable public var isTurning: Bool { angle != target }

    /// Angle after `dt` seconds.
    @inlinable public func advanced(by dt: Double) -> Double {
        let step = angularSpeed * dt
        return angle < target ? min(angle + step, target) : max(angle - step, target)
    }

    /// World point of a local point at frame angle `theta`.
    @inlinable public func toWorld(_ q: Vec2, angle theta: Double) -> Vec2 {
        if theta == 0 { return q }
        return center + (q - center).rotated(by: theta)
    }

    /// Local point of a world point at frame angle `theta`.
    @inlinable public func toLocal(_ p: Vec2, angle theta: Double) -> Vec2 {
        if theta == 0 { return p }
        return center + (p - center).rotated(by: -theta)
    }

    /// `toLocal(p, angle: theta)` with the cosine and sine of `-theta` already computed
    /// (`InverseTurns`): the same operations on the same values, so the same bits.
    @inlinable package func toLocal(_ p: Vec2, angle theta: Double, inverse: (c: Double, s: Double)) -> Vec2 {
        if theta == 0 { return p }
        return center + (p - center).rotated(cos: inverse.c, sin: inverse.s)
    }
}

/// The cosine and sine of `-angle`, computed exactly as `Vec2.rotated(by: -angle)` computes
/// them, for the last two frame angles asked. A turned board (upside down at rest) asks for the
/// same angle every sub-step, and a turning one starts each sub-step at the angle the last one
/// ended on; without this, every sweep computed two cosines and two sines (16% of the time on a
/// flipped level).
package struct InverseTurns: Sendable {
    var angle0: UInt64, c0: Double, s0: Double
    var angle1: UInt64, c1: Double, s1: Double

    package init() {
        angle0 = 0.0.bitPattern
        c0 = Trig.cos(-0.0)
        s0 = Trig.sin(-0.0)
        (angle1, c1, s1) = (angle0, c0, s0)
    }

    /// cos(-angle) and sin(-angle); the angle is compared by bit pattern.
    package mutating func of(_ angle: Double) -> (c: Double, s: Double) {
        let bits = angle.bitPattern
        if bits == angle0 { return (c0, s0) }
        if bits == angle1 { return (c1, s1) }
        let c = Trig.cos(-angle), s = Trig.sin(-angle)
        (angle1, c1, s1) = (angle0, c0, s0)
        (angle0, c0, s0) = (bits, c, s)
        return (c, s)
    }
}
