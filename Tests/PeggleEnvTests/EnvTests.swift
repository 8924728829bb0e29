import PeggleEnv
import PeggleGame
import PeggleLevel
import PegglePhysics
import Testing

@Suite("Spaces and encoders")
struct SpaceTests {
    @Test func spacesAreReportedExactly() throws {
        let env = try PeggleEnv(config: config([tinyLevel()], maxObjects: 40))
        #expect(env.observationSpace == .box(low: -1, high: 1, shape: [17 + 40 * 17]))
        #expect(env.actionSpace == .box(low: -1, high: 1, shape: [1]))
        #expect(env.actionSpace.description == "Box(-1.0, 1.0, (1,), float32)")
        let grid = try PeggleEnv(config: config([tinyLevel()], encoder: .grid))
        #expect(grid.observationSpace == .box(low: -1, high: 1, shape: [9, 30, 40]))
        let discrete = try PeggleEnv(config: config([tinyLevel()], action: .discrete(bins: 31)))
        #expect(discrete.actionSpace == .discrete(n: 31))
        #expect(discrete.actionSpace.description == "Discrete(31)")
    }

    @Test func actionsMapOntoTheAimRange() {
        let rules = Rules()
        #expect(ActionMode.continuous.angle(for: -1, rules: rules) == -1.5)
        #expect(ActionMode.continuous.angle(for: 1, rules: rules) == 1.5)
        #expect(ActionMode.continuous.angle(for: 0.5, rules: rules) == 0.75)
        for bad in [1.0001, -1.5, .nan, .infinity] { #expect(ActionMode.continuous.angle(for: bad, rules: rules) == nil) }
        let d = ActionMode.discrete(bins: 31)
        #expect(d.angle(for: 0, rules: rules) == -1.5)
        #expect(d.angle(for: 15, rules: rules) == 0)
        #expect(d.angle(for: 30, rules: rules) == 1.5)
        for bad in [31.0, -1, 2.5, .nan] { #expect(d.angle(for: bad, rules: rules) == nil) }
    }

    /// Every encoder keeps every value in [-1, 1] through whole games on every bundled level.
    @Test(arguments: [EncoderKind.objects, .grid])
    func observationsStayInBounds(kind: EncoderKind) throws {
        let names = ["first-steps", "upside-down", "score-rush", "needle-s-eye", "last-stand", "zombie-night"]
        var env = try PeggleEnv(config: config(try names.map(bundled), maxShots: 12,
                                               encoder: kind, maxObjects: 128))
        let moves = actions(400, seed: 5)
        var k = 0
        for _ in names {
            var (obs, _) = try env.reset()
            #expect(obs.allSatisfy { $0 >= -1 && $0 <= 1 && $0.isFinite })
            while !env.isDone {
                obs = try env.step(moves[k % moves.count]).observation
                k += 1
                #expect(obs.allSatisfy { $0 >= -1 && $0 <= 1 && $0.isFinite })
            }
        }
    }

    /// The object list: globals, then a slot per peg in level order (zeros once removed), then blocks.
    @Test func objectSlotsFollowTheLevel() throws {
        var env = try PeggleEnv(config: config([tinyLevel()]))
        var (obs, _) = try env.reset(seed: 1)
        let g = ObservationEncoder.globalCount, f = ObservationEncoder.objectFeatures
        for i in 0..<11 {
            let slot = Array(obs[(g + i * f)..<(g + (i + 1) * f)])
            #expect(slot[0] == 1)
            #expect(abs(slot[1] - Float((150 + 50 * Double(i)) / 800 * 2 - 1)) < 1e-6)
            #expect(slot[2] == 0)  // y 300 of 600
            let orange = i == 3 || i == 7
            #expect(slot[8] == (orange ? 0 : 1) && slot[9] == (orange ? 1 : 0))
        }
        #expect(obs[(g + 11 * f)..<(g + 40 * f)].allSatisfy { $0 == 0 })
        // A shot straight down hits pegs; the lit ones are gone from the observation after it.
        let out = try env.step(0.0)
        obs = out.observation
        let game = try #require(env.game)
        let removed = game.pegs.indices.filter { game.pegs[$0].isRemoved }
        #expect(!removed.isEmpty)
        for i in removed { #expect(obs[(g + i * f)..<(g + (i + 1) * f)].allSatisfy { $0 == 0 }) }
    }
}

@Suite("Env")
struct EnvTests {
    @Test func theSameSeedGivesTheSameEpisode() throws {
        // Seeds reach the game through random events: the level order here, and purple roaming.
        let levels = [tinyLevel(), try bundled("purple-haze")]
        var randomOrder = config(levels, maxObjects: 128)
        randomOrder.order = .random
        func run(_ seed: UInt64) throws -> ([Float], [Float]) {
            var env = try PeggleEnv(config: randomOrder)
            var all: [Float] = []
            var rewards: [Float] = []
            all += try env.reset(seed: seed).observation
            for _ in 0..<4 {
                for a in actions(30, seed: 9) where !env.isDone {
                    let s = try env.step(a)
                    all += s.observation
                    rewards.append(s.reward)
                }
                all += try env.reset().observation
            }
            return (all, rewards)
        }
        let a = try run(7), b = try run(7), c = try run(8)
        #expect(a.0 == b.0 && a.1 == b.1)
        #expect(a.0 != c.0 || a.1 != c.1)
    }

    @Test func levelsCycleFromTheFirstAfterASeededReset() throws {
        let levels = [tinyLevel(name: "A"), tinyLevel(name: "B"), tinyLevel(name: "C")]
        var env = try PeggleEnv(config: config(levels))
        #expect(try env.reset(seed: 3).info.level == 0)
        #expect(try env.reset().info.level == 1)
        #expect(try env.reset().info.level == 2)
        #expect(try env.reset().info.level == 0)
        #expect(try env.reset(seed: 3).info.level == 0)
        #expect(try env.reset(level: 2).info.level == 2)
        #expect(throws: EnvError.self) { try env.reset(level: 3) }
    }

    /// With `cycleStart` `.seed`, `reset(seed: k)` every episode plays every level in turn, and a
    /// vector's environments start spread over the levels.
    @Test func aSeededCycleCanStartAtTheSeed() throws {
        var c = config([tinyLevel(name: "A"), tinyLevel(name: "B"), tinyLevel(name: "C")])
        c.cycleStart = .seed
        var env = try PeggleEnv(config: c)
        #expect(try (0..<7).map { try env.reset(seed: UInt64($0)).info.level } == [0, 1, 2, 0, 1, 2, 0])
        #expect(try env.reset(seed: 4).info.level == 1)
        #expect(try env.reset().info.level == 2)
        #expect(try env.reset().info.level == 0)
        var vec = try VectorEnv(config: c, count: 4)
        try vec.reset(seed: 10)
        #expect(vec.infos.map(\.level) == [1, 2, 0, 1])
    }

    @Test func randomOrderIsSeeded() throws {
        var c = config((0..<6).map { tinyLevel(name: "L\($0)") })
        c.order = .random
        func order(_ seed: UInt64) throws -> [Int] {
            var env = try PeggleEnv(config: c)
            var out = [try env.reset(seed: seed).info.level]
            for _ in 0..<11 { out.append(try env.reset().info.level) }
            return out
        }
        #expect(try order(1) == order(1))
        #expect(Set(try order(1)).count > 2)
        #expect(try order(1) != order(2))
    }

    @Test func refusedCalls() throws {
        var env = try PeggleEnv(config: config([tinyLevel()]))
        #expect { try env.step(0) } throws: { ($0 as? EnvError)?.code == .notReset }
        _ = try env.reset()
        for bad in [Double.nan, 1.5, -2, .infinity] {
            #expect { try env.step(bad) } throws: { ($0 as? EnvError)?.code == .badAction }
        }
        #expect(env.shots == 0, "refused actions take no shot")
        #expect(throws: EnvError.self) { try PeggleEnv(config: config([])) }
        var big = config([try bundled("bench-grid")])
        big.maxObjects = 100
        #expect { try PeggleEnv(config: big) } throws: { ($0 as? EnvError)?.message.contains("max_objects 100") == true }
    }

    @Test func episodesEndByTerminationOrTruncation() throws {
        // Truncated at max_shots when the game is not over.
        var env = try PeggleEnv(config: config([try bundled("spiral")], maxShots: 2,
                                               maxObjects: 128))
        _ = try env.reset(seed: 1)
        let first = try env.step(0.9)
        #expect(!first.terminated && !first.truncated)
        let second = try env.step(-0.9)
        #expect(second.truncated && !second.terminated)
        #expect(env.isDone)
        #expect { try env.step(0) } throws: { ($0 as? EnvError)?.code == .episodeOver }
        // Terminated when the game ends: three balls spent on a level nobody clears that fast.
        var short = try PeggleEnv(config: config([tinyLevel(balls: 1)]))
        _ = try short.reset(seed: 1)
        let out = try short.step(1.0)
        #expect(out.terminated != (out.info.status == .playing))
    }

    /// The progress reward: orange cleared / orange total each shot, plus 1 for a win: an episode
    /// that wins sums to exactly 2.
    @Test func progressRewardSumsToTwoOnAWin() throws {
        var env = try PeggleEnv(config: config([tinyLevel(balls: 10)]))
        _ = try env.reset(seed: 1)
        var total: Float = 0
        var won = false
        while !env.isDone {
            // Each shot: the aim whose shot, tried on a copy, earns the most.
            let aims = stride(from: -1.0, through: 1.0, by: 0.025)
            let best = try aims.max { a, b in
                var ca = env, cb = env
                return try ca.step(a).reward < cb.step(b).reward
            }!
            let s = try env.step(best)
            total += s.reward
            won = s.info.status == .won
        }
        try #require(won, "a one-step search should clear two orange pegs in ten balls")
        #expect(abs(total - 2) < 1e-6)
    }

    @Test func infoReportsTheShot() throws {
        var env = try PeggleEnv(config: config([tinyLevel()]))
        let reset = try env.reset(seed: 1).info
        #expect(reset.shot == nil && reset.shots == 0 && reset.ballsLeft == 3 && reset.orangeLeft == 2)
        let s = try env.step(0.0)
        let shot = try #require(s.info.shot)
        #expect(shot.angle == 0)
        #expect(shot.hits.total > 0)
        #expect(s.info.score == shot.points)
        #expect(shot.trajectory == nil, "trajectories only on request")
        var c = config([tinyLevel()])
        c.recordTrajectory = true
        var traced = try PeggleEnv(config: c)
        _ = try traced.reset(seed: 1)
        #expect(try traced.step(0.0).info.shot?.trajectory?.paths.isEmpty == false)
    }
}
