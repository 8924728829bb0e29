import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics

/// The game for the page: a board state and the last shot's recorded trajectory, which the page
/// animates. Nothing is kept between requests: a request names the level, the seed and every
/// shot so far, and the engine's determinism makes replaying them exact (a game of 20 shots
/// replays in a few milliseconds).
public struct BoardState: Sendable, Encodable, Equatable {
    public var status: String
    public var score: Int
    /// Classic mode only.
    public var ballsLeft: Int?
    public var shotsTaken: Int
    public var multiplier: Int
    public var orangeTotal: Int, orangeRemaining: Int
    /// Beat the score: game seconds left.
    public var timeLeft: Double?
    /// Dodge: clean shots so far.
    public var cleanShots: Int?
    /// The board's turn about its centre (confusement flips), radians.
    public var boardAngle: Double
    public var bucketX: Double
    /// Every peg of the level by id: its kind now (purple roams), lit or removed.
    public var pegs: [PegView]

    public struct PegView: Sendable, Encodable, Equatable {
        public var id: Int
        public var kind: String
        public var lit: Bool
        public var removed: Bool
    }

    init(_ game: GameState) {
        status = game.status.rawValue
        score = game.score
        if case .classic = game.level.mode { ballsLeft = game.ballsLeft }
        shotsTaken = game.shotsTaken
        multiplier = game.multiplier
        orangeTotal = game.orangeTotal
        orangeRemaining = game.orangeRemaining
        timeLeft = game.timeLeft
        if case .dodge = game.level.mode { cleanShots = game.cleanShots }
        boardAngle = game.boardAngle
        bucketX = game.bucket.x
        pegs = zip(game.level.pegs, game.pegs).map {
            PegView(id: $0.id, kind: $1.kind.rawValue, lit: $1.isLit, removed: $1.isRemoved)
        }
    }
}

/// One shot as the page animates it. Coordinates are board units (world frame), rounded to a
/// hundredth: finer than a pixel at any size the page draws.
public struct ShotView: Sendable, Encodable, Equatable {
    public var angle: Double
    public var points: Int
    public var pegsHit: Int
    public var freeBalls: Int
    public var caught: Int
    public var steps: Int
    public var seconds: Double
    public var timedOut: Bool
    /// Recorded steps (one per 1/120 s; index 0 is the launch).
    public var frames: Int
    public var paths: [Path]
    /// Pegs in the order they lit, with the frame they lit at.
    public var lit: [Lit]
    public var bucketX: [Double]
    /// The board's turn at each frame; empty when it never turns.
    public var boardAngles: [Double]
    public var explosions: [[Double]]

    public struct Path: Sendable, Encodable, Equatable {
        public var ball: Int
        public var start: Int
        /// x0, y0, x1, y1, ...
        public var xy: [Double]
    }

    public struct Lit: Sendable, Encodable, Equatable {
        public var id: Int
        public var frame: Int
    }

    init(_ shot: ShotResult, level: Level) {
        let t = shot.trajectory ?? Trajectory()
        func r(_ v: Double) -> Double { (v * 100).rounded() / 100 }
        angle = shot.angle
        points = shot.points
        pegsHit = shot.hits.total
        freeBalls = shot.freeBalls
        caught = shot.caught
        steps = shot.steps
        seconds = shot.duration
        timedOut = shot.timedOut
        frames = t.bucketX.count
        paths = t.paths.map { p in Path(ball: Int(p.ball), start: p.start, xy: p.points.flatMap { [r($0.x), r($0.y)] }) }
        lit = zip(t.litPegs, t.litSteps).map { Lit(id: level.pegs[$0].id, frame: $1) }
        bucketX = t.bucketX.map(r)
        boardAngles = t.boardAngles.contains { $0 != 0 } ? t.boardAngles.map { ($0 * 10_000).rounded() / 10_000 } : []
        explosions = t.explosions.map { [r($0.x), r($0.y)] }
    }
}

extension StudioAPI {
    /// The state after the request's shots, and the last shot recorded.
    public struct Played: Sendable, Encodable {
        /// The state the last shot started from (nil when no shot was asked).
        public var before: BoardState?
        public var shot: ShotView?
        public var state: BoardState
    }

    /// Most shots a request may replay: a classic level has at most 99 balls plus free balls.
    public static let maxShots = 500

    public func play(_ request: PlayRequest) throws(StudioError) -> Played {
        let level = try Self.level(request.level)
        let issues = level.validate(rules: rules)
        if let first = issues.first {
            throw .refused("the level cannot be played yet: \(first)"
                + (issues.count > 1 ? " (and \(issues.count - 1) more problems)" : ""))
        }
        guard request.angles.count <= Self.maxShots else {
            throw .badRequest("bad request: angles: \(request.angles.count) shots; at most \(Self.maxShots)")
        }
        var game = try Self.newGame(level, rules: rules, seed: request.seed ?? 0)
        var before: BoardState?
        var last: ShotResult?
        for (k, angle) in request.angles.enumerated() {
            let isLast = k == request.angles.count - 1
            if isLast { before = BoardState(game) }
            do {
                let shot = try game.shoot(angle: angle, recordTrajectory: isLast)
                if isLast { last = shot }
            } catch {
                throw .refused("angles[\(k)]: \(error)")
            }
        }
        return Played(before: before, shot: last.map { ShotView($0, level: level) }, state: BoardState(game))
    }
}
