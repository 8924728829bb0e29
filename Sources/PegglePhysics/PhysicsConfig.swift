/// Every physical constant in one place. Units: board units (the board is `boardWidth` wide,
/// origin top-left, +y down), seconds, radians.
public struct PhysicsConfig: Sendable, Equatable, Hashable {
    /// Board width in board units.
    public var boardWidth: Double = 800
    /// Board height in board units; the bottom edge is open.
    public var boardHeight: Double = 600
    /// Gravity in board units per second squared (+y is down).
    public var gravity: Vec2 = Vec2(0, 500)
    /// Fixed step in seconds. Every simulation advances by exactly this much per `step()`.
    public var timeStep: Double = 1.0 / 120.0
    /// Sub-steps per fixed step (the collision search is continuous, so 1 is exact enough).
    public var substeps: Int = 1
    /// Radius of every ball, board units.
    public var ballRadius: Double = 10
    /// Restitution of the left, right and top walls.
    public var wallRestitution: Double = 0.8
    /// Restitution between two balls.
    public var ballRestitution: Double = 0.8
    /// Closing speeds below this (units/s) are treated as resting contact and do not bounce.
    /// A step of gravity adds 500/120 = 4.2 units/s, so this stops endless micro-bounces.
    public var restingSpeed: Double = 10
    /// Which walls exist: left (x = 0), right (x = boardWidth), top (y = 0).
    public var leftWall = true, rightWall = true, topWall = true
    /// A ball whose centre is below this y (board units) has left the board.
    public var exitY: Double = 620
    /// Collision events one ball may take part in per sub-step; a ball past it is parked for the
    /// rest of the sub-step (it can only lose energy, never tunnel) while the others go on.
    public var maxEventsPerSubstep: Int = 32
    /// Edge length of a uniform-grid cell, board units.
    public var gridCellSize: Double = 40
    /// Most balls in play at once (multiball and zombie pegs add balls).
    public var maxBalls: Int = 16
    /// Distance a resolved contact leaves between surfaces, board units (guards round-off).
    public var contactSlop: Double = 1e-6

    public init() {}

    /// Seconds per sub-step.
    @inlinable public var substepDuration: Double { timeStep / Double(max(1, substeps)) }
}
