import PeggleTestSupport
import Foundation
import Testing
import PeggleGame
@testable import PeggleEnv

// The learnability level sampler (docs/environment.md, "Level sampler"): decayed wins and plays
// per level, weights p(1 - p), a quarter of the draws uniform.

@Suite("Level sampler")
struct LevelSamplerTests {
    @Test("Scores decay by 0.9 per outcome; the win rate is (wins + 1/2) / (plays + 1); learnability p(1 - p)")
    func scoresByHand() {
        var s = LevelScores(levels: 3)
        #expect(s.winRate(2) == 0.5 && s.learnability(2) == 0.25)  // never played
        s.record(0, won: true)
        s.record(0, won: true)
        s.record(0, won: false)
        // wins ((1 * 0.9) + 1) * 0.9 + 0 = 1.71; plays ((1 * 0.9) + 1) * 0.9 + 1 = 2.71.
        #expect(abs(s.wins[0] - 1.71) < 1e-12)
        #expect(abs(s.plays[0] - 2.71) < 1e-12)
        let p = 2.21 / 3.71
        #expect(abs(s.winRate(0) - p) < 1e-12)
        #expect(abs(s.learnability(0) - p * (1 - p)) < 1e-12)
        #expect(s.wins[1] == 0 && s.plays[1] == 0)
    }

    @Test("Draws follow a quarter uniform plus three quarters by learnability")
    func drawFrequencies() {
        var s = LevelScores(levels: 2)
        for _ in 0..<30 { s.record(1, won: true) }
        // Level 1 won 30 times: wins = plays = 10 (1 - 0.9^30); level 0 never played (0.25).
        let n1 = 10 * (1 - pow(0.9, 30.0))
        let p1 = (n1 + 0.5) / (n1 + 1)
        let l1 = p1 * (1 - p1)
        let expected = 0.25 * 0.5 + 0.75 * 0.25 / (0.25 + l1)  // 0.7604
        var rng = SeededGenerator(seed: 11)
        let draws = 20_000
        var zeros = 0
        for _ in 0..<draws where s.draw(&rng) == 0 { zeros += 1 }
        let sd = (expected * (1 - expected) / Double(draws)).squareRoot()
        let share = Double(zeros) / Double(draws)
        #expect(abs(share - expected) < 4 * sd, "level 0 drawn \(share) of the time; expected \(expected)")
    }

    static func config(sampler: LevelSamplerKind, levels: Int = 20) -> EnvConfig {
        var p = ProceduralLevels(numLevels: levels, startLevel: 500, distribution: .easy)
        p.sampler = sampler
        var c = EnvConfig(procedural: p)
        c.maxShots = 3  // short episodes, some won, most not
        return c
    }

    /// The level seeds of `episodes` episodes of random shots, and the environment after them.
    static func play(_ c: EnvConfig, seed: UInt64, episodes: Int) throws -> ([UInt64], PeggleEnv) {
        var e = try PeggleEnv(config: c)
        var seeds: [UInt64] = []
        var shots = SeededGenerator(seed: seed ^ 0xABCD)
        for k in 0..<episodes {
            let info = try k == 0 ? e.reset(seed: seed).info : e.reset().info
            seeds.append(info.levelSeed!)
            while !e.isDone { _ = try e.step(shots.nextUnit() * 2 - 1) }
        }
        return (seeds, e)
    }

    @Test("The learnability sampler records every ended episode, draws within the range, the same levels for the same seed")
    func environmentDraws() throws {
        let c = Self.config(sampler: .learnability)
        let (a, e) = try Self.play(c, seed: 4, episodes: 60)
        #expect(a == (try Self.play(c, seed: 4, episodes: 60)).0)
        // A seeded reset forgets the scores: the same seed again draws the same levels.
        var again = e
        var shots = SeededGenerator(seed: 4 ^ 0xABCD)
        var b: [UInt64] = []
        for k in 0..<60 {
            b.append(try (k == 0 ? again.reset(seed: 4) : again.reset()).info.levelSeed!)
            while !again.isDone { _ = try again.step(shots.nextUnit() * 2 - 1) }
        }
        #expect(b == a)
        #expect(a.allSatisfy { (500..<520).contains($0) })
        let scores = try #require(e.levelScores)
        // Only a level's own episodes change its plays: played m times, plays = 10 (1 - 0.9^m).
        for k in 0..<20 {
            let m = a.filter { $0 == UInt64(500 + k) }.count
            #expect(abs(scores.plays[k] - 10 * (1 - pow(0.9, Double(m)))) < 1e-9, "level \(k) played \(m) times")
        }
        // The uniform sampler keeps nothing and draws what it always drew.
        let (u, ue) = try Self.play(Self.config(sampler: .uniform), seed: 4, episodes: 60)
        #expect(ue.levelScores == nil)
        #expect(u != a)
    }

    @Test("A vector's learnability draws do not depend on the thread count")
    func vectorThreads() throws {
        func run(threads: Int) throws -> [UInt64] {
            var v = try VectorEnv(config: Self.config(sampler: .learnability), count: 4, autoreset: .sameStep,
                                  threads: threads, seed: 9)
            try v.reset(seed: 9)
            var seeds: [UInt64] = []
            var g = SeededGenerator(seed: 3)
            for _ in 0..<40 {
                try v.step((0..<4).map { _ in g.nextUnit() * 2 - 1 })
                seeds += v.infos.map { $0.levelSeed! }
            }
            return seeds
        }
        #expect(try run(threads: 1) == run(threads: 2))
    }

    @Test("Learnability needs a finite range of at most 100,000 levels")
    func needsFiniteRange() throws {
        var p = ProceduralLevels(numLevels: 0)
        p.sampler = .learnability
        #expect(p.problem == "level_sampler learnability needs num_levels in 1...100000 (it keeps each level's win rate); num_levels is 0")
        #expect(throws: EnvError.self) { try PeggleEnv(config: EnvConfig(procedural: p)) }
        p.numLevels = 100_000
        #expect(p.problem == nil)
    }
}
