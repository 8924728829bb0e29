import Foundation
import PeggleEnv
import PeggleDifficulty
import PeggleEstimate
import PeggleGame
import PeggleGenerator
import PeggleLevel
import PeggleTestSupport
import Testing

// Procedural levels in the environment (Procgen's num_levels / start_level / distribution_mode):
// levels drawn from a seed range by the environment's generator, the seed in the info.

@Suite("Procedural levels")
struct ProceduralLevelTests {
    static func env(_ p: ProceduralLevels, seed: UInt64 = 0, screen: (any TierScreen)? = nil) throws -> PeggleEnv {
        var config = EnvConfig(procedural: p)
        config.tierScreen = screen
        return try PeggleEnv(config: config, seed: seed)
    }

    /// The instant estimate's screen for one tier, as `peggle serve`'s `EstimatedTiers` gives it
    /// (the tool declares that one; PeggleEnv's tests cannot import the tool). Records the
    /// distributions it is asked about.
    final class EstimateTierScreen: TierScreen, @unchecked Sendable {
        let tier: Tier
        var asked: [DistributionMode] = []
        init(_ tier: Tier) { self.tier = tier }
        func generatorSeed(levelSeed: UInt64, distribution: DistributionMode, candidate: (UInt64) -> Level) -> UInt64 {
            asked.append(distribution)
            return EstimateScreen(target: .tier(tier)).screenedSeed(levelSeed: levelSeed, level: candidate).seed
        }
    }

    /// The level seeds of `episodes` resets of an environment reset first with `seed`.
    static func levelSeeds(_ p: ProceduralLevels, seed: UInt64, episodes: Int) throws -> [UInt64] {
        var e = try env(p)
        var out = [try e.reset(seed: seed).info.levelSeed!]
        for _ in 1..<episodes { out.append(try e.reset().info.levelSeed!) }
        return out
    }

    @Test("Episodes draw different levels from the range, the same ones for the same seed; the info names the seed")
    func drawsFromTheRange() throws {
        let p = ProceduralLevels(numLevels: 50, startLevel: 1000, distribution: .easy)
        let a = try Self.levelSeeds(p, seed: 7, episodes: 40)
        #expect(a == (try Self.levelSeeds(p, seed: 7, episodes: 40)))
        #expect(a != (try Self.levelSeeds(p, seed: 8, episodes: 40)))
        #expect(a.allSatisfy { (1000..<1050).contains($0) })
        #expect(Set(a).count >= 20, "40 draws from 50 levels hit only \(Set(a).count)")
        // The episode plays the level of its seed; info.level is the index in the range.
        var e = try Self.env(p)
        let info = try e.reset(seed: 7).info
        #expect(info.level == Int(info.levelSeed! - 1000))
        #expect(e.game!.level == LevelGenerator.generate(seed: info.levelSeed!, distribution: .easy))
        // Pinned: the environment's seeded generator picks these level seeds on every machine.
        #expect(Array(a.prefix(5)) == [1035, 1041, 1049, 1003, 1020])
    }

    @Test("A train range and a test range never share a level")
    func trainAndTestAreDisjoint() throws {
        let train = ProceduralLevels(numLevels: 200, startLevel: 0, distribution: .hard)
        let test = ProceduralLevels(numLevels: 200, startLevel: 200, distribution: .hard)
        let trainSeeds = Set(try Self.levelSeeds(train, seed: 1, episodes: 400))
        let testSeeds = Set(try Self.levelSeeds(test, seed: 1, episodes: 400))
        #expect(trainSeeds.isDisjoint(with: testSeeds))
        // Disjoint seeds are disjoint levels: no test level has the content of a train level.
        let trainHashes = Set(try (0..<200).map { try train.level(seed: UInt64($0)).contentHash })
        let testHashes = Set(try (200..<400).map { try test.level(seed: UInt64($0)).contentHash })
        #expect(trainHashes.count == 200 && testHashes.count == 200)
        #expect(trainHashes.isDisjoint(with: testHashes))
    }

    @Test("Unlimited levels (num_levels 0) draw from start_level up to 2^63; one level is always that level")
    func unlimitedAndSingle() throws {
        let unlimited = try Self.levelSeeds(ProceduralLevels(numLevels: 0, startLevel: 5), seed: 3, episodes: 20)
        #expect(unlimited.allSatisfy { $0 >= 5 && $0 < ProceduralLevels.seedLimit })
        #expect(Set(unlimited).count == 20)
        let top = try Self.levelSeeds(ProceduralLevels(numLevels: 0, startLevel: Int.max), seed: 3, episodes: 3)
        #expect(top == [UInt64(Int.max), UInt64(Int.max), UInt64(Int.max)])
        #expect(try Self.levelSeeds(ProceduralLevels(numLevels: 1, startLevel: 42), seed: 9, episodes: 5) == [42, 42, 42, 42, 42])
    }

    @Test("reset(level: k) plays seed start_level + k; out of range is refused")
    func forcedLevel() throws {
        var e = try Self.env(ProceduralLevels(numLevels: 10, startLevel: 300))
        #expect(try e.reset(level: 4).info.levelSeed == 304)
        #expect(throws: EnvError(.badRequest, "level 10 is outside 0..<10 (the level seeds are 300...309)")) {
            try e.reset(level: 10)
        }
        #expect(throws: EnvError(.badRequest, "level -1 is outside 0..<10 (the level seeds are 300...309)")) {
            try e.reset(level: -1)
        }
    }

    @Test("Templates restrict the layouts, and the mode replaces every level's own")
    func templatesAndMode() throws {
        let p = ProceduralLevels(numLevels: 100, distribution: .easy, templates: [.spiral, .rings], mode: .dodge(shots: 2))
        var e = try Self.env(p)
        var seen = Set<String>()
        for k in 0..<30 {
            let info = k == 0 ? try e.reset(seed: 1).info : try e.reset().info
            let level = e.game!.level
            #expect(level.mode == .dodge(shots: 2))
            seen.insert(String(level.name.prefix { $0 != " " }))
            #expect(p.name(generatorSeed: info.generatorSeed!) == level.name)
        }
        #expect(seen == ["Spiral", "Rings"])
    }

    /// A tier distribution plays, for each level seed, the first of its candidates the estimate puts
    /// in the tier; the info names the candidate's seed, and the level is the generator's.
    @Test("A tier distribution plays levels the estimate puts in the tier, the same ones each time")
    func tierDistribution() throws {
        let p = ProceduralLevels(numLevels: 3, startLevel: 20, distribution: .tierVeryHard)
        #expect(p.distribution.generator == .hard)
        let tiers = EstimateTierScreen(.veryHard)
        var e = try Self.env(p, screen: tiers)
        let screen = EstimateScreen(target: .tier(.veryHard))
        var seen = Set<UInt64>()
        for k in 0..<3 {
            let info = try e.reset(level: k).info
            let g = try #require(info.generatorSeed)
            #expect(info.levelSeed == 20 + UInt64(k))
            #expect(g == screen.screenedSeed(levelSeed: 20 + UInt64(k)) { LevelGenerator.generate(seed: $0, distribution: .hard) }.seed)
            let level = e.game!.level
            #expect(level == LevelGenerator.generate(seed: g, distribution: .hard))
            #expect(level.name == p.name(generatorSeed: g))
            #expect(screen.estimate(level)?.tier == .veryHard)
            seen.insert(g)
        }
        #expect(seen.count == 3)
        // The screen was asked once per level seed (the games are kept), about this distribution.
        #expect(tiers.asked == [.tierVeryHard, .tierVeryHard, .tierVeryHard])
        // Without a tier, the generator seed is the level seed, and a screen is never asked.
        let unused = EstimateTierScreen(.veryHard)
        var plain = try Self.env(ProceduralLevels(numLevels: 3, startLevel: 20, distribution: .hard), screen: unused)
        #expect(try plain.reset(level: 1).info.generatorSeed == 21)
        #expect(unused.asked.isEmpty)
    }

    /// PeggleEnv does not depend on the estimate: a tier distribution is only as good as the screen
    /// it is given, and without one it is refused when the environment is made, naming the mode.
    @Test("A tier distribution without a tier screen is refused when the environment is made")
    func tierWithoutScreen() throws {
        for d in DistributionMode.allCases {
            let p = ProceduralLevels(numLevels: 3, distribution: d)
            do {
                _ = try PeggleEnv(config: EnvConfig(procedural: p))
                #expect(!d.isTier, "\(d.rawValue) was made without a screen")
            } catch {
                #expect(d.isTier)
                #expect(error == EnvError.noTierScreen(d))
                #expect(error.code == .badRequest && error.message.hasPrefix("distribution_mode \(d.rawValue) screens levels by difficulty"))
            }
            // A level asked of the procedural levels directly is refused the same way.
            if d.isTier {
                #expect(throws: EnvError.noTierScreen(d)) { _ = try p.level(seed: 5) }
            } else {
                #expect(try p.level(seed: 5) == LevelGenerator.generate(seed: 5, distribution: d.generator))
            }
        }
    }

    /// The environment's tiers draw their candidates where PeggleEstimate's targets for the same
    /// tiers do (`DifficultyTarget.defaultDistribution`, which `peggle level generate --tier` uses).
    @Test("Each tier draws candidates from the distribution the estimate's target for it names")
    func tierDistributionsAgree() {
        let tiers: [(DistributionMode, Tier)] = [(.tierEasy, .easy), (.tierMedium, .medium), (.tierHard, .hard), (.tierVeryHard, .veryHard)]
        #expect(Set(tiers.map(\.0)) == Set(DistributionMode.allCases.filter(\.isTier)))
        for (d, t) in tiers {
            #expect(d.generator == DifficultyTarget.tier(t).defaultDistribution(), "\(d.rawValue)")
        }
        #expect(DistributionMode.easy.generator == .easy && DistributionMode.hard.generator == .hard)
    }

    @Test("Settings that cannot make levels are refused")
    func refusedSettings() {
        func refused(_ c: EnvConfig) -> String? {
            do { _ = try PeggleEnv(config: c) } catch { return error.message }
            return nil
        }
        #expect(refused(EnvConfig(procedural: ProceduralLevels(numLevels: -1))) == "num_levels is -1; it must be 0 (unlimited) or more")
        #expect(refused(EnvConfig(procedural: ProceduralLevels(startLevel: -3))) == "start_level is -3; it must be 0 or more")
        #expect(refused(EnvConfig(procedural: ProceduralLevels(numLevels: 2, startLevel: Int.max)))
            == "start_level + num_levels is 9223372036854775809; level seeds must stay below 2^63")
        #expect(refused(EnvConfig(procedural: ProceduralLevels(templates: []))) == "no templates to draw levels from")
        var both = EnvConfig(procedural: ProceduralLevels())
        both.levels = [LevelGenerator.generate(seed: 1, distribution: .easy)]
        #expect(refused(both) == "give levels or procedural levels, not both")
        var small = EnvConfig(procedural: ProceduralLevels())
        small.maxObjects = 127
        #expect(refused(small) == "max_objects is 127; generated levels have up to 128 pegs and blocks, so it must be at least 128")
        small.encoder = .grid
        small.maxObjects = 1
        #expect(refused(small) == nil)
    }

    @Test("A vector of environments steps procedural levels the same for any thread count, kept or generated")
    func vectorIsDeterministic() throws {
        func run(_ p: ProceduralLevels, threads: Int) throws -> (UInt64, [UInt64]) {
            var c = EnvConfig(procedural: p)
            c.maxShots = 6
            var v = try VectorEnv(config: c, count: 6, autoreset: .sameStep, threads: threads)
            try v.reset(seed: 11)
            var h = FNV1a()
            var seeds: [UInt64] = []
            for k in 0..<12 {
                try v.step(actions(6, seed: UInt64(k)))
                h.add(v.observations)
                seeds += v.infos.compactMap(\.levelSeed)
            }
            return (h.value, seeds)
        }
        let kept = ProceduralLevels(numLevels: 8, distribution: .hard)  // games kept per seed
        let many = ProceduralLevels(numLevels: 5000, distribution: .hard)  // generated at every reset
        let a = try run(kept, threads: 1), b = try run(kept, threads: 3)
        #expect(a.0 == b.0 && a.1 == b.1)
        #expect(try run(many, threads: 1).0 == (try run(many, threads: 2)).0)
        // Keeping a game changes nothing: an environment over 5,000 seeds forced to the same level
        // plays it exactly as one whose game was kept.
        var fresh = try Self.env(ProceduralLevels(numLevels: 5000, distribution: .hard))
        var keeping = try Self.env(ProceduralLevels(numLevels: 8, distribution: .hard))
        for _ in 0..<2 {
            let x = try fresh.reset(seed: 5, level: 3), y = try keeping.reset(seed: 5, level: 3)
            #expect(x.observation == y.observation)
            for a in actions(4, seed: 2) { #expect(try fresh.step(a).observation == (try keeping.step(a)).observation) }
        }
    }
}
