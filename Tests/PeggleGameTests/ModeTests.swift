import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import Testing

/// Winning and losing in the three modes.
@Suite("Game modes")
struct ModeTests {
    /// Pegs on the left only; the right half is open.
    static func leftPegs(_ mode: GameMode) -> Level {
        makeLevel(mode: mode, pegs: [peg(1, .orange, 100, 250), peg(2, .blue, 160, 300), peg(3, .blue, 220, 350)])
    }

    /// Shoots the first aim of `angles` whose shot has `property`, on the real state.
    @discardableResult
    func shootWhere(_ state: inout GameState, _ angles: [Double] = aims(-1.4...1.4, count: 141),
                    sourceLocation: SourceLocation = #_sourceLocation,
                    _ property: (ShotResult) -> Bool) throws -> ShotResult {
        let t = try #require(scan(state, angles) { property($0.result) }, "no aim has the property",
                             sourceLocation: sourceLocation)
        let r = try state.shoot(angle: t.angle, recordTrajectory: true)
        #expect(r == t.result, "a shot on the real state must equal the same shot on a copy", sourceLocation: sourceLocation)
        return r
    }

    func isMiss(_ r: ShotResult) -> Bool { r.hits.total == 0 && r.caught == 0 && !r.timedOut }

    // MARK: Classic

    @Test func classicIsLostWhenBallsRunOutWithOrangeLeft() throws {
        var state = try game(Self.leftPegs(.classic(balls: 2)))
        #expect(state.ballsLeft == 2)
        try shootWhere(&state) { isMiss($0) }
        #expect(state.ballsLeft == 1)
        #expect(state.status == .playing)
        try shootWhere(&state) { isMiss($0) }
        #expect(state.ballsLeft == 0)
        #expect(state.status == .lost)
        #expect(state.orangeRemaining == 1)
        #expect(throws: ShotError.gameOver) { try state.shoot(angle: 0) }
    }

    @Test func classicLastBallCaughtKeepsTheGameGoing() throws {
        var state = try game(Self.leftPegs(.classic(balls: 1)))
        let r = try shootWhere(&state) { $0.caught == 1 && $0.hits.total == 0 }
        #expect(r.freeBalls == 1)
        #expect(state.ballsLeft == 1)
        #expect(state.status == .playing)
    }

    @Test func classicIsWonOnTheLastBall() throws {
        var state = try game(Self.leftPegs(.classic(balls: 1)))
        let r = try shootWhere(&state) { $0.hits.orange == 1 }
        #expect(r.orangeCleared == 1)
        #expect(state.status == .won, "clearing the last orange wins, even with no ball left")
    }

    // MARK: Beat the score

    @Test func beatTheScoreIsWonOnReachingTheTarget() throws {
        let level = makeLevel(mode: .beatTheScore(targetScore: 20, timeLimit: 60),
                              pegs: [peg(1, .blue, 405, 200), peg(2, .blue, 150, 300), peg(3, .blue, 650, 300)])
        var state = try game(level)
        #expect(state.ballsLeft == 0)
        #expect(state.timeLeft == 60)
        let first = try state.shoot(angle: 0, recordTrajectory: true)
        try #require(first.lit == [0], "shot 0 should light only the first peg: \(first.lit)")
        #expect(state.score == 10)
        #expect(state.status == .playing, "10 < 20")
        #expect(abs(state.timeLeft! - (60 - first.duration)) < 1e-9)
        try shootWhere(&state) { $0.points >= 10 }
        #expect(state.score >= 20)
        #expect(state.status == .won)
    }

    @Test func beatTheScoreIsLostWhenGameTimeRunsOut() throws {
        let level = makeLevel(mode: .beatTheScore(targetScore: 1_000_000, timeLimit: 1),
                              pegs: [peg(1, .blue, 100, 300)])
        var state = try game(level)
        // A straight shot leaves the board in about 0.76 s.
        let first = try state.shoot(angle: 0)
        #expect(!first.timedOut)
        #expect(state.status == .playing)
        let left = try #require(state.timeLeft)
        #expect(left > 0 && left < 0.5)
        // The next shot is cut off by the game clock, not the 30 s shot limit.
        let second = try state.shoot(angle: 0)
        #expect(second.timedOut)
        #expect(second.duration >= left - 1e-9 && second.duration < left + 1.0 / 120.0 + 1e-9)
        #expect(state.status == .lost)
        #expect(state.timeLeft == 0)
        #expect(state.elapsed >= 1 - 1e-9)
        #expect(throws: ShotError.gameOver) { try state.shoot(angle: 0) }
    }

    @Test func beatTheScoreBallsAreUnlimited() throws {
        var state = try game(Self.leftPegs(.beatTheScore(targetScore: 1_000_000, timeLimit: 30)))
        for _ in 0..<12 {
            try shootWhere(&state, aims(0.3...1.4, count: 56)) { isMiss($0) }
        }
        #expect(state.status == .playing)
        #expect(state.shotsTaken == 12)
        #expect(state.ballsLeft == 0)
    }

    // MARK: Dodge

    @Test func dodgeIsWonAfterTheCleanShots() throws {
        var state = try game(Self.leftPegs(.dodge(shots: 3)))
        #expect(state.ballsLeft == 3)
        for k in 1...3 {
            #expect(state.status == .playing)
            try shootWhere(&state) { isMiss($0) }
            #expect(state.cleanShots == k)
            #expect(state.ballsLeft == 3 - k)
        }
        #expect(state.status == .won)
    }

    @Test func dodgeIsLostOnTouchingAPeg() throws {
        var state = try game(Self.leftPegs(.dodge(shots: 3)))
        let r = try shootWhere(&state) { $0.hits.total > 0 && $0.caught == 0 }
        #expect(r.hits.total > 0)
        #expect(state.status == .lost)
        #expect(state.cleanShots == 0)
    }

    @Test func dodgeBlocksAreFine() throws {
        let level = makeLevel(mode: .dodge(shots: 1), pegs: [peg(1, .blue, 100, 250)],
                              blocks: [Block(id: 2, shape: .rectangle, center: Vec2(400, 300), width: 120, height: 20,
                                             rotation: 0.3)])
        var state = try game(level)
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        // The ball bounced off the block: somewhere above it, it moved up.
        let pts = r.paths[0].points
        #expect((1..<pts.count).contains { pts[$0].y < pts[$0 - 1].y && pts[$0].y < 320 })
        #expect(r.hits.total == 0, "aim 0 should only touch the block")
        #expect(state.status == .won)
    }

    @Test func dodgeBucketCatchForgivesOneTouch() throws {
        var state = try game(Self.leftPegs(.dodge(shots: 3)))
        // A clean shot caught by the bucket: one touch forgiven in advance.
        try shootWhere(&state) { $0.caught == 1 && $0.hits.total == 0 }
        #expect(state.chances == 1)
        #expect(state.cleanShots == 1)
        // A touch: forgiven, the game goes on, the touching shot does not count as clean.
        try shootWhere(&state) { $0.hits.total > 0 && $0.caught == 0 }
        #expect(state.status == .playing)
        #expect(state.chances == 0)
        #expect(state.cleanShots == 1)
        #expect(state.ballsLeft == 2)
        // A second touch is not.
        try shootWhere(&state) { $0.hits.total > 0 && $0.caught == 0 }
        #expect(state.status == .lost)
    }
}
