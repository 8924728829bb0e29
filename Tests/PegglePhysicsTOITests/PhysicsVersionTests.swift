import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI
import PeggleTestSupport
import PeggleUtilities
import Testing

/// Version 2 as every job reaches it: a `GameState` whose rules say `.timeOfImpact`.
@Suite("physics version 2 through the rules")
struct PhysicsVersionTests {
    static let v2: Rules = { var r = Rules(); r.physicsVersion = .timeOfImpact; return r }()

    @Test("a game under version 2's rules is TOIGame's game, shot for shot; version 1's rules still play version 1")
    func rulesChooseTheEngine() throws {
        for file in ["fortress.json", "ghost-story.json", "purple-haze.json"] {
            let level = try TOIGameTests.level(file)
            var byRules = try GameState(level: level, rules: Self.v2, seed: 4)
            var wrapped = try TOIGame(level: level, seed: 4)
            var v1 = try GameState(level: level, seed: 4)
            var differs = false
            for a in TOIGameTests.aims(77, 15) where !byRules.isOver {
                let r = try byRules.shoot(angle: a), w = try wrapped.shoot(angle: a)
                #expect(r == w, "\(file)")
                if !v1.isOver, try v1.shoot(angle: a) != r { differs = true }
            }
            #expect(byRules.pegs == wrapped.state.pegs && byRules.score == wrapped.state.score && byRules.rng == wrapped.state.rng)
            #expect(byRules.rules.physicsVersion == .timeOfImpact && v1.rules.physicsVersion == .fixedStep)
            #expect(differs, "\(file): version 1 played every shot as version 2 did")
        }
    }

    @Test("a search's outcome under version 2 is the shot and status the real shot gives")
    func searchOutcome() throws {
        let level = try TOIGameTests.level("spiral.json")
        var game = try GameState(level: level, rules: Self.v2, seed: 2)
        for a in TOIGameTests.aims(5, 12) where !game.isOver {
            let copy = game
            let (shot, status) = try copy.outcome(ofShooting: a)
            let real = try game.shoot(angle: a)
            #expect(shot == real && status == game.status)
        }
        #expect(game.shotsTaken > 3)
    }

    @Test("a version 2 game saved between shots and restored plays on the same, bit for bit")
    func saveRestore() throws {
        let level = try TOIGameTests.level("purple-haze.json")
        let aims = TOIGameTests.aims(9, 20)
        var game = try GameState(level: level, rules: Self.v2, seed: 6)
        for a in aims.prefix(4) { _ = try game.shoot(angle: a) }
        #expect(game.pegs.contains { $0.isRemoved })
        var restored = try GameState(level: level, rules: Self.v2, seed: 0)
        try restored.restore(game.saved)
        for a in aims.dropFirst(4) where !game.isOver {
            #expect(try game.shoot(angle: a) == restored.shoot(angle: a))
        }
        #expect(game.saved == restored.saved)
    }

    @Test("moving a game between versions keeps its board, and version 1 from there plays as version 1")
    func switching() throws {
        let level = try TOIGameTests.level("fortress.json")
        let aims = TOIGameTests.aims(3, 10)
        var v1 = try GameState(level: level, seed: 8)
        for a in aims.prefix(3) { _ = try v1.shoot(angle: a) }
        var there = try v1.withPhysics(.timeOfImpact)
        var back = try there.withPhysics(.fixedStep)
        #expect(there.pegs == v1.pegs && there.saved == v1.saved)
        // Back on version 1: the same shots as the game that never left.
        var original = v1
        for a in aims.dropFirst(3) where !original.isOver {
            #expect(try original.shoot(angle: a) == back.shoot(angle: a))
        }
        // On version 2 the removed pegs are off its scene: a shot plays as a fresh version 2 game with the same board.
        var fresh = try GameState(level: level, rules: Self.v2, seed: 0)
        try fresh.restore(v1.saved)
        #expect(try there.shoot(angle: aims[3]) == fresh.shoot(angle: aims[3]))
    }

    @Test("a trajectory under version 2: the ball at launch and at every step end, one bucket x each; recording changes nothing")
    func trajectory() throws {
        let level = try TOIGameTests.level("ghost-story.json")
        var plain = try GameState(level: level, rules: Self.v2, seed: 1)
        var drawn = plain
        let h = Self.v2.physics.timeStep
        for a in TOIGameTests.aims(21, 12) where !plain.isOver {
            var shot = try drawn.shoot(angle: a, recordTrajectory: true)
            let t = try #require(shot.trajectory)
            shot.trajectory = nil
            #expect(try plain.shoot(angle: a) == shot)
            let path = try #require(t.paths.first)
            #expect(path.start == 0 && path.points[0] == Self.v2.cannon)
            // One point at launch, one per whole step the ball flew, and (if it left between step
            // ends) one where it left.
            let points = t.paths.reduce(0) { $0 + $1.points.count }
            #expect(t.bucketX.count == points && t.boardAngles.allSatisfy { $0 == 0 })
            #expect(points >= shot.steps + t.paths.count - 1 && points <= shot.steps + t.paths.count + 1, "\(points) \(shot.steps)")
            #expect(t.litPegs.count == shot.hits.total && t.litSteps.allSatisfy { $0 <= t.bucketX.count })
            // Consecutive step ends are one step of flight apart: never farther than the launch speed allows.
            for p in t.paths {
                for (a, b) in zip(p.points, p.points.dropFirst()) { #expect((b - a).length <= 1500 * h) }
            }
        }
        #expect(drawn.saved == plain.saved)
    }

    @Test("where a second ball or a turning board comes in, version 1 plays the rest of the shot: deterministic, powers fire")
    func handOff() throws {
        for file in ["brick-road.json", "zombie-night.json", "upside-down.json", "last-stand.json"] {
            let level = try TOIGameTests.level(file)
            var handed = 0, shots = 0, split = 0, turnedWhole = 0
            for seed: UInt64 in 0..<6 {
                var game = try TOIGame(level: level, seed: seed), again = try TOIGame(level: level, seed: seed)
                for a in TOIGameTests.aims(100 + seed, 25) where !game.state.isOver {
                    let turned = game.state.boardAngle != 0
                    let r = try game.shoot(angle: a, recordTrajectory: true), r2 = try again.shoot(angle: a, recordTrajectory: true)
                    #expect(r == r2, "\(file) seed \(seed)")
                    shots += 1
                    guard game.lastEnd == nil else { continue }
                    handed += 1
                    if turned { turnedWhole += 1 }
                    // A multiball split: version 1's world has the ball and its twin (ids 0 and up),
                    // after version 2's path (ids below 0).
                    let t = try #require(r.trajectory)
                    if level.power == .multiball && r.hits.green > 0 && !turned {
                        #expect(t.paths.first!.ball < 0 && t.paths.filter { $0.ball >= 0 }.count >= 2, "\(file)")
                        split += 1
                    }
                    #expect(t.bucketX.count == t.boardAngles.count)
                }
                #expect(game.state.pegs == again.state.pegs && game.state.score == again.state.score)
            }
            #expect(handed > 0 && handed < shots, "\(file): \(handed) of \(shots) shots handed to version 1")
            if level.power == .multiball { #expect(split > 0, "\(file)") }
            if level.count(of: .confusement) > 0 { #expect(turnedWhole > 0, "\(file): no shot started on a turned board") }
        }
    }
}
