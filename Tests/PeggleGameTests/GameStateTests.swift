import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleUtilities
import PeggleTestSupport
import Testing

/// `GameState` as a value: copies are independent, shots are reproducible, bad shots refused.
@Suite("Game state")
struct GameStateTests {
    /// Every kind and a block, multiball power (so shots can add balls), roaming purple; two
    /// orange pegs in the top corners make games last.
    static var mixed: Level {
        makeLevel(power: .multiball, pegs: [
            peg(1, .orange, 405, 200), peg(2, .blue, 350, 260), peg(3, .green, 460, 260),
            peg(4, .purple, 300, 320), peg(5, .zombie, 500, 320), peg(6, .confusement, 400, 380),
            peg(7, .blue, 250, 420), peg(8, .orange, 560, 420), peg(9, .blue, 150, 300), peg(10, .blue, 650, 300),
            peg(12, .orange, 40, 120), peg(13, .orange, 760, 120),
        ], blocks: [Block(id: 11, shape: .triangle, center: Vec2(400, 480), width: 80, height: 40)])
    }

    /// Everything observable about a state, to compare before and after.
    struct Snapshot: Equatable {
        var score, ballsLeft, shotsTaken, orangeHit, orangeCleared: Int
        var status: GameStatus
        var pegs: [PegState]
        var elapsed: Double
        var worldTime: Double
        var frame: RotatingFrame
        var bucket: KinematicBucket?
        var enabled: [Bool]
        var balls: [Ball]
        var rng: SeededGenerator

        init(_ s: GameState) {
            score = s.score
            ballsLeft = s.ballsLeft
            shotsTaken = s.shotsTaken
            orangeHit = s.orangeHit
            orangeCleared = s.orangeCleared
            status = s.status
            pegs = s.pegs
            elapsed = s.elapsed
            worldTime = s.world.time
            frame = s.world.frame
            bucket = s.world.bucket
            enabled = (0..<s.world.store.count).map { s.world.store.isEnabled($0) }
            balls = Array(s.world.balls)
            rng = s.rng
        }
    }

    @Test func shootingACopyLeavesTheOriginalUntouched() throws {
        var original = try game(Self.mixed, seed: 9)
        _ = try original.shoot(angle: 0.2)  // so purple roams on later shots
        let before = Snapshot(original)

        var copy = original
        let fromCopy = try copy.shoot(angle: 0, recordTrajectory: true)
        try #require(fromCopy.hits.total > 0, "the copy's shot should change something")
        #expect(Snapshot(copy) != before)
        #expect(Snapshot(original) == before, "shooting a copy changed the original")

        // The original, shot the same way, does exactly what the copy did.
        let fromOriginal = try original.shoot(angle: 0, recordTrajectory: true)
        #expect(fromOriginal == fromCopy)
        #expect(Snapshot(original) == Snapshot(copy))
    }

    @Test func manyCopiesDivergeIndependently() throws {
        let base = try game(Self.mixed, seed: 4)
        var copies = Array(repeating: base, count: 5)
        var results: [ShotResult] = []
        for k in copies.indices { results.append(try copies[k].shoot(angle: -0.4 + 0.2 * Double(k))) }
        #expect(Snapshot(base) == Snapshot(try game(Self.mixed, seed: 4)))
        for k in copies.indices {
            var fresh = try game(Self.mixed, seed: 4)
            #expect(try fresh.shoot(angle: -0.4 + 0.2 * Double(k)) == results[k])
            #expect(Snapshot(fresh) == Snapshot(copies[k]))
        }
    }

    @Test func sameSeedAndAnglesGiveIdenticalShots() throws {
        let angles = [0.0, 0.35, -0.6, 1.2, -1.1, 0.05, 0.8, -0.25, 0.5, -0.9]
        func play(seed: UInt64) throws -> ([ShotResult], Snapshot) {
            var s = try game(Self.mixed, seed: seed)
            var out: [ShotResult] = []
            for a in angles where !s.isOver { out.append(try s.shoot(angle: a, recordTrajectory: true)) }
            return (out, Snapshot(s))
        }
        let (a, sa) = try play(seed: 77)
        let (b, sb) = try play(seed: 77)
        #expect(a == b)
        #expect(sa == sb)
        #expect(a.count > 3)
        // Recording the trajectory changes nothing else.
        var quiet = try game(Self.mixed, seed: 77)
        for (k, angle) in angles.prefix(a.count).enumerated() {
            var r = try quiet.shoot(angle: angle)
            #expect(r.trajectory == nil)
            r.trajectory = a[k].trajectory
            #expect(r == a[k])
        }
    }

    @Test func shootingAfterTheGameIsOverThrows() throws {
        var state = try game(makeLevel(pegs: [peg(1, .orange, 405, 300)]))
        _ = try state.shoot(angle: 0)
        try #require(state.status == .won)
        let before = Snapshot(state)
        #expect(throws: ShotError.gameOver) { try state.shoot(angle: 0) }
        #expect(Snapshot(state) == before)
    }

    @Test(arguments: [1.5000001, -1.6, 3.0, Double.nan, Double.infinity, -Double.infinity, Double.greatestFiniteMagnitude])
    func anglesOutOfRangeThrow(angle: Double) throws {
        var state = try game(GameStateTests.mixed)
        let before = Snapshot(state)
        do {
            _ = try state.shoot(angle: angle)
            Issue.record("angle \(angle) was accepted")
        } catch {
            guard case let .angleOutOfRange(a, limit) = error else {
                Issue.record("expected angleOutOfRange, got \(error)")
                return
            }
            #expect(a.bitPattern == angle.bitPattern)
            #expect(limit == 1.5)
            #expect(error.description.contains(angle.isNaN ? "not a number" : "outside"))
        }
        #expect(Snapshot(state) == before, "a refused shot must not change the state")
    }

    @Test func theAimLimitsThemselvesAreLegal() throws {
        var state = try game(Self.mixed)
        _ = try state.shoot(angle: 1.5)
        _ = try state.shoot(angle: -1.5)
        #expect(state.shotsTaken == 2)
    }

    @Test func theShotStartsAtTheCannonWithTheLaunchVelocity() throws {
        for angle in [0.0, 0.7, -1.2] {
            var state = try game(Self.mixed)
            let r = try state.shoot(angle: angle, recordTrajectory: true)
            let pts = r.paths[0].points
            #expect(pts[0] == Vec2(400, 20))
            // First step of free flight under gravity (leapfrog is exact for it).
            let dt = 1.0 / 120.0
            let expected = Vec2(400 + 600 * sin(angle) * dt, 20 + 600 * cos(angle) * dt + 250 * dt * dt)
            #expect((pts[1] - expected).length < 1e-9, "aim \(angle): \(pts[1]) vs \(expected)")
            #expect(r.trajectory?.bucketX.count == r.steps + 1)
            #expect(abs(r.duration - Double(r.steps) / 120) < 1e-12)
        }
    }

    @Test func anInvalidLevelIsRefusedWithItsFirstIssue() throws {
        let level = makeLevel(pegs: [peg(1, .blue, 100, 300)])  // classic without orange
        // The error is the validation's own issue (place, field, value), not a format error.
        #expect(throws: level.validate().first!) { try GameState(level: level, seed: 1) }
        do {
            _ = try GameState(level: level, seed: 1)
            Issue.record("an invalid level was accepted")
        } catch {
            #expect(error.message.contains("orange"))
        }
    }

    @Test func initialState() throws {
        let state = try game(Self.mixed)
        #expect(state.status == .playing)
        #expect(state.score == 0 && state.shotsTaken == 0)
        #expect(state.ballsLeft == 10)
        #expect(state.orangeTotal == 4 && state.orangeRemaining == 4)
        #expect(state.multiplier == 1)
        #expect(state.boardAngle == 0)
        #expect(state.timeLeft == nil)
        #expect(state.pegs.map(\.kind) == Self.mixed.pegs.map(\.kind))
        #expect(state.pegs.allSatisfy { !$0.isLit && !$0.isRemoved })
        #expect(state.world.store.count == 13, "pegs then blocks")
        for i in Self.mixed.pegs.indices { #expect(state.pegCenter(i) == Self.mixed.pegs[i].center) }
    }

    /// The game refuses a level the validation refuses, with the same place in the message: here a
    /// bare NaN that JSON decoding let through.
    @Test func aLevelWithANaNFieldIsRefusedByTheGameAndThePreparedLevel() throws {
        let text = #"{"format": 1, "name": "E", "mode": {"type": "classic", "balls": 3}, "pegs": [{"id": 1, "kind": "orange", "x": NaN, "y": 200}]}"#
        let level = try LevelCodec.decode(Data(text.utf8))
        let issues = level.validate()
        #expect(issues.first?.description == "pegs[0] (id 1): x: NaN is not a number")
        #expect(throws: issues[0]) { try GameState(level: level, seed: 1) }
        do {
            _ = try PreparedLevel(level)
            Issue.record("an invalid level was prepared")
        } catch {
            #expect(error.description == "pegs[0] (id 1): x: NaN is not a number")
        }
    }
}
