import PegglePhysics

/// Every rule and default of the game in one place. Units: board units, seconds, radians.
/// The numbers follow original Peggle where it has them; docs/levels.md lists them.
public struct Rules: Sendable, Equatable, Hashable {
    /// Physical constants: board size, gravity, step, ball radius, walls.
    public var physics = PhysicsConfig()
    /// Which physics flies the ball: version 1 (fixed steps) unless a run asks for version 2.
    public var physicsVersion = PhysicsVersion.standard

    // MARK: Cannon and shots
    /// Cannon position, board units. Every shot starts here.
    public var cannon = Vec2(400, 20)
    /// Largest aim angle, radians from straight down (either side).
    public var maxAim: Double = 1.5
    /// Launch speed, units/s.
    public var launchSpeed: Double = 600
    /// A shot ends after this much game time even if a ball is still in play, seconds.
    public var shotTimeLimit: Double = 30

    // MARK: Objects
    /// Restitution of pegs and plain blocks.
    public var restitution: Double = 0.8
    /// Extra restitution of a block with springiness 1 (scaled linearly).
    public var springBoost: Double = 0.6
    /// Default, smallest and largest circular peg radius, board units.
    public var pegRadius: Double = 12, minPegRadius: Double = 6, maxPegRadius: Double = 30
    /// Brick side limits, board units.
    public var minBrickSide: Double = 6, maxBrickSide: Double = 80
    /// Block side limits, board units.
    public var minBlockSide: Double = 6, maxBlockSide: Double = 400
    /// No object may come within this distance of the cannon, board units.
    public var cannonClearance: Double = 50
    /// No object may reach below this y: the bucket's lane, board units.
    public var laneTop: Double = 560
    /// Most pegs plus blocks in one level.
    public var maxObjects: Int = 1000

    // MARK: Bucket
    /// The moving bucket (starts at the board centre moving right).
    public var bucket = KinematicBucket()

    // MARK: Scoring
    /// Base points per peg kind.
    public var bluePoints = 10, orangePoints = 100, greenPoints = 10, purplePoints = 500
    public var zombiePoints = 10, confusementPoints = 10
    /// Orange-cleared fractions at which the multiplier rises, and the multiplier from there.
    public var multiplierSteps: [MultiplierStep] = [
        MultiplierStep(fraction: 0.40, multiplier: 2), MultiplierStep(fraction: 0.60, multiplier: 3),
        MultiplierStep(fraction: 0.76, multiplier: 5), MultiplierStep(fraction: 0.88, multiplier: 10),
    ]
    /// Points within one shot that each earn a free ball.
    public var freeBallScores: [Int] = [25_000, 75_000, 125_000]

    // MARK: Stuck ball
    /// A ball that stays within this distance of one spot for `stuckTime` is stuck, board units.
    public var stuckDistance: Double = 1
    /// Seconds a ball may stay put before it counts as stuck.
    public var stuckTime: Double = 2
    /// Bounces (impacts at or above the resting speed) on one peg in one shot that mean a ball is trapped.
    public var stuckImpacts: Int = 30
    /// Lit pegs within this gap of a stuck ball are removed early, board units.
    public var stuckReach: Double = 2

    // MARK: Powers and special pegs
    /// Kaboom: pegs whose surface is within this distance of an exploding green peg's centre light up.
    public var kaboomRadius: Double = 48
    /// Spooky: how many times a ball re-enters at the top after the power fires.
    public var spookyReentries: Int = 1
    /// Multiball: the two balls leave the split this many radians apart.
    public var multiballSplit: Double = 0.5
    /// Confusement: seconds the half-turn of the board takes.
    public var flipDuration: Double = 1.0

    public init() {}

    /// Base points of a peg kind.
    public func points(for kind: PegKind) -> Int {
        switch kind {
        case .blue: bluePoints
        case .orange: orangePoints
        case .green: greenPoints
        case .purple: purplePoints
        case .zombie: zombiePoints
        case .confusement: confusementPoints
        }
    }

    /// Score multiplier when `hit` of `total` orange pegs have been hit.
    public func multiplier(orangeHit hit: Int, of total: Int) -> Int {
        guard total > 0 else { return 1 }
        var m = 1
        for step in multiplierSteps where Double(hit) >= step.fraction * Double(total) - 1e-9 {
            m = step.multiplier
        }
        return m
    }

    /// Free balls earned by scoring `points` in one shot.
    public func freeBalls(forShotPoints points: Int) -> Int {
        freeBallScores.filter { points >= $0 }.count
    }
}

/// One rung of the orange multiplier ladder.
public struct MultiplierStep: Sendable, Equatable, Hashable {
    public var fraction: Double
    public var multiplier: Int
    public init(fraction: Double, multiplier: Int) {
        self.fraction = fraction
        self.multiplier = multiplier
    }
}
