import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI
import PeggleTestSupport
import PeggleUtilities
import Testing

/// Whole shots and games on v2 (`TOIGame`) with v1's rules.
@Suite("v2 games")
struct TOIGameTests {
    let rules = Rules()
    var h: Double { rules.physics.timeStep }

    static func level(_ file: String) throws -> Level { try LevelCodec.decode(Repository.data("Levels/" + file)) }

    /// Aim 0 from the cannon (400, 20) at 600 units/s down: y = 20 + 600 t + 250 t^2 reaches `y` at this t.
    static func straightDown(to y: Double) -> Double { (-600 + (600.0 * 600 + 1000 * (y - 20)).squareRoot()) / 500 }

    /// An orange peg the straight shot grazes (centre 20 to its left) and one far off.
    static let twoPegs = Level(name: "Two Pegs", mode: .classic(balls: 10), pegs: [
        Peg(id: 1, kind: .orange, center: Vec2(380, 300)),
        Peg(id: 2, kind: .orange, center: Vec2(100, 400)),
    ])

    @Test("a peg lights on contact and leaves between shots: the second shot falls through where it was")
    func litThenRemoved() throws {
        var game = try TOIGame(level: Self.twoPegs, seed: 1)
        let first = try game.shoot(angle: 0)
        #expect(first.hits[.orange] == 1 && first.hits.total == 1 && first.points == 100 && first.orangeCleared == 1)
        #expect(game.state.pegs[0].isRemoved && !game.state.pegs[1].isRemoved && game.state.status == .playing)
        #expect(game.state.score == 100 && game.state.ballsLeft == 9)
        // The same aim again: nothing in the way down to the exit line (y 620), at the closed-form
        // time, counted in v1's steps (the step in which it left): ceil(0.7596 * 120) = 92.
        let second = try game.shoot(angle: 0)
        #expect(second.hits.total == 0 && second.caught == 0 && !second.timedOut)
        #expect(second.steps == Int((Self.straightDown(to: 620) / h).rounded(.up)) && second.steps == 92)
        #expect(second.duration == 92 * h)
        // v1 plays the same two shots alike.
        var v1 = try GameState(level: Self.twoPegs, seed: 1)
        let a = try v1.shoot(angle: 0), b = try v1.shoot(angle: 0)
        #expect(a.hits == first.hits && a.caught == first.caught && b.hits == second.hits && b.steps == second.steps)
        #expect(abs(a.steps - first.steps) <= 1, "\(a.steps) \(first.steps)")
    }

    @Test("the bucket, placed to be under the straight shot when it reaches the rims' line, catches it")
    func caughtInGame() throws {
        let level = Level(name: "Sides", mode: .classic(balls: 10), pegs: [
            Peg(id: 1, kind: .orange, center: Vec2(100, 300)), Peg(id: 2, kind: .blue, center: Vec2(700, 300)),
        ])
        // The centre crosses y = 575 at t*; the bucket must be at 400 then: at 400 - 150 t* moving
        // right at the start, phase (x - 60) / (2 * 680) of its cycle.
        let t = Self.straightDown(to: 575)
        let phase = (400 - 150 * t - 60) / 1360
        var game = try TOIGame(level: level, seed: 3)
        game.placeBucket(phase: phase)
        let shot = try game.shoot(angle: 0)
        #expect(shot.caught == 1 && shot.freeBalls == 1 && shot.hits.total == 0)
        #expect(shot.steps == Int((t / h).rounded(.up)) && shot.steps == 86)
        #expect(game.state.ballsLeft == 10)
        // The bucket moved on by the shot's 86 steps.
        #expect(abs(game.state.bucket.x - (400 - 150 * t + 150 * 86 * h)) < 1e-9 && game.state.bucket.direction == 1)
        var v1 = try GameState(level: level, seed: 3)
        v1.placeBucket(phase: phase)
        let w = try v1.shoot(angle: 0)
        #expect(w.caught == 1 && w.steps == 86)
        #expect(abs(v1.bucket.x - game.state.bucket.x) < 1e-9)
    }

    @Test("version 2 plays every level; only rules with sub-steps are refused, saying why")
    func refusals() throws {
        let p = "physics 2 cannot play this yet: "
        var v2 = Rules()
        v2.physicsVersion = .timeOfImpact
        for file in try LevelEndsTests.levelFiles() {
            #expect(try LevelCodec.decode(Repository.data(file)).validate(rules: v2).isEmpty, "\(file)")
        }
        var sub = Rules()
        sub.physics.substeps = 2
        let substeps = #expect(throws: LevelIssue.self) { try TOIGame(level: Self.twoPegs, rules: sub, seed: 1) }
        #expect(substeps?.description == p + "physics substeps 2 (version 2 budgets events per timeStep, as version 1 with substeps 1)")
        sub.physicsVersion = .timeOfImpact
        let game = #expect(throws: LevelIssue.self) { try GameState(level: Self.twoPegs, rules: sub, seed: 1) }
        #expect(game == substeps)
        sub.physicsVersion = .fixedStep
        #expect(Self.twoPegs.validate(rules: sub).isEmpty)
    }

    /// A game to its end or `aims.count` shots: each shot's result and the final score and status.
    static func play(_ level: Level, seed: UInt64, aims: [Double], scene: TOIScene) throws -> ([ShotResult], Int, GameStatus) {
        var game = try TOIGame(level: level, seed: seed, scene: scene)
        var shots: [ShotResult] = []
        for a in aims where !game.state.isOver { shots.append(try game.shoot(angle: a)) }
        return (shots, game.state.score, game.state.status)
    }

    static func aims(_ seed: UInt64, _ n: Int) -> [Double] {
        var rng = SeededGenerator(seed: seed)
        return (0..<n).map { _ in -1.3 + 2.6 * Double(rng.next() >> 11) * 0x1p-53 }
    }

    @Test("a game from a reseeded copy of one fresh game is the game built from its seed, on v2 and v1")
    func sharedSetupSameGames() throws {
        // `peggle-bench toi-games --shared-setup` times games started this way: the per-game
        // setup (level check, v1's store and free-flight grid) is most of a game's time otherwise.
        for file in ["fortress.json", "score-rush.json", "spiral.json"] {
            let level = try Self.level(file)
            let scene = TOIGame.scene(level: level, rules: rules)
            let fresh = try GameState(level: level, rules: rules, seed: 0)
            for seed: UInt64 in [1, 2, 3] {
                let aims = Self.aims(51_000 + seed, 40)
                var built = try TOIGame(level: level, rules: rules, seed: seed, scene: scene)
                var copy = fresh
                copy.reseed(seed)
                var copied = try TOIGame(state: copy, scene: scene)
                var v1Built = try GameState(level: level, rules: rules, seed: seed), v1Copied = copy
                var shots = 0
                for a in aims where !built.state.isOver {
                    let b = try built.shoot(angle: a), c = try copied.shoot(angle: a)
                    #expect(b == c, "\(file) seed \(seed) shot \(shots)")
                    #expect(built.lastEnd == copied.lastEnd)
                    shots += 1
                }
                #expect(copied.state.isOver == built.state.isOver && copied.state.score == built.state.score)
                #expect(copied.state.pegs == built.state.pegs && copied.state.rng == built.state.rng, "\(file) seed \(seed)")
                for a in aims where !v1Built.isOver {
                    let b = try v1Built.shoot(angle: a), c = try v1Copied.shoot(angle: a)
                    #expect(b == c, "\(file) seed \(seed) v1")
                }
                #expect(v1Copied.score == v1Built.score && v1Copied.pegs == v1Built.pegs)
                #expect(shots > 1)
            }
            // The fresh game was copied, never changed.
            #expect(fresh.shotsTaken == 0 && fresh.pegs.allSatisfy { !$0.isRemoved && !$0.isLit })
        }
    }

    @Test("whole games on every level v2 plays: the same bit for bit again and on four threads")
    func gamesDeterministic() throws {
        let files = try LevelEndsTests.levelFiles()
        #expect(files.count == 15)
        let levels = try files.map { try LevelCodec.decode(Repository.data($0)) }
        let scenes = levels.map { TOIGame.scene(level: $0, rules: Rules()) }
        let n = levels.count * 2
        @Sendable func game(_ i: Int) throws -> ([ShotResult], Int, GameStatus) {
            try Self.play(levels[i % levels.count], seed: UInt64(i), aims: Self.aims(UInt64(51 + i), 12), scene: scenes[i % levels.count])
        }
        let first = try (0..<n).map(game)
        let again = try (0..<n).map(game)
        let parallel = Parallel.map(n, threads: 4, chunksPerThread: 2) { i in try! game(i) }
        for i in 0..<n {
            #expect(first[i].0 == again[i].0 && first[i].1 == again[i].1 && first[i].2 == again[i].2, "\(files[i % levels.count])")
            #expect(first[i].0 == parallel[i].0 && first[i].1 == parallel[i].1, "\(files[i % levels.count])")
        }
        // These games light pegs, end, and use the rules' parts v2 drives.
        let shots = first.flatMap(\.0)
        #expect(shots.reduce(0) { $0 + $1.hits.total } > 100)
        #expect(first.contains { $0.2 != .playing })
        #expect(shots.contains { $0.powers > 0 })
    }
}
