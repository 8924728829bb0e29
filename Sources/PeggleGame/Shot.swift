import PeggleLevel
import PegglePhysics

/// A count per peg kind.
public struct KindCounts: Sendable, Equatable, Hashable, Codable {
    public var blue = 0, orange = 0, green = 0, purple = 0, zombie = 0, confusement = 0

    public init() {}

    public subscript(kind: PegKind) -> Int {
        get {
            switch kind {
            case .blue: blue
            case .orange: orange
            case .green: green
            case .purple: purple
            case .zombie: zombie
            case .confusement: confusement
            }
        }
        set {
            switch kind {
            case .blue: blue = newValue
            case .orange: orange = newValue
            case .green: green = newValue
            case .purple: purple = newValue
            case .zombie: zombie = newValue
            case .confusement: confusement = newValue
            }
        }
    }

    /// Sum over all kinds.
    public var total: Int { blue + orange + green + purple + zombie + confusement }
}

/// Where the balls of one shot went, for rendering.
public struct Trajectory: Sendable, Equatable, Codable {
    /// The path of one ball, sampled every step (world frame, board units). A spooky re-entry
    /// starts a new path.
    public struct Path: Sendable, Equatable, Codable {
        public var ball: Int32
        /// The recorded step of `points[0]` (an index into `bucketX`): balls born mid-shot
        /// (multiball, zombies, spooky re-entries) start late, and an animation needs to know when.
        public var start: Int = 0
        public var points: [Vec2]
    }
    public var paths: [Path] = []
    /// Peg indices in the order they lit up.
    public var litPegs: [Int] = []
    /// The board's turn (radians, confusement flips) at the moment each peg of `litPegs` lit up,
    /// so a picture can put a peg where the ball met it.
    public var litAngles: [Double] = []
    /// The recorded step (an index into `bucketX`) at which each peg of `litPegs` lit up.
    public var litSteps: [Int] = []
    /// Centres of kaboom explosions (world frame).
    public var explosions: [Vec2] = []
    /// Bucket centre x at each recorded step (board units).
    public var bucketX: [Double] = []
    /// The board's turn (radians) at each recorded step: confusement flips turn it mid-shot.
    public var boardAngles: [Double] = []

    public init() {}
}

/// What one shot did.
public struct ShotResult: Sendable, Equatable, Codable {
    /// Aim, radians from straight down.
    public var angle: Double
    /// Pegs lit this shot, by their kind when hit.
    public var hits = KindCounts()
    /// Points scored this shot (multiplier included).
    public var points = 0
    /// Free balls earned: one per ball caught plus one per shot-score threshold passed.
    public var freeBalls = 0
    /// Balls caught by the bucket.
    public var caught = 0
    /// Orange pegs removed this shot.
    public var orangeCleared = 0
    /// Game time the shot took, seconds.
    public var duration = 0.0
    /// Physics steps simulated.
    public var steps = 0
    /// The shot hit the time limit with a ball still in play.
    public var timedOut = false
    /// Pegs removed early by the stuck-ball rule.
    public var stuckRemovals = 0
    /// Balls taken out by the stuck-ball rule (stuck with no lit peg to remove).
    public var stuckBalls = 0
    /// Confusement flips started.
    public var flips = 0
    /// Times a green peg fired the level's power.
    public var powers = 0
    /// Filled in when the shot was asked to record it.
    public var trajectory: Trajectory?

    public init(angle: Double) { self.angle = angle }
}

/// Why a shot could not be taken.
public enum ShotError: Error, Sendable, Equatable, CustomStringConvertible {
    case gameOver
    case angleOutOfRange(angle: Double, limit: Double)

    public var description: String {
        switch self {
        case .gameOver: "the game is over"
        case let .angleOutOfRange(a, limit):
            a.isNaN ? "angle is not a number" : "angle \(a) is outside -\(limit)...\(limit) radians"
        }
    }
}
