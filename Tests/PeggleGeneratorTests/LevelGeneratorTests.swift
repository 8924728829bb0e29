import Foundation
import PeggleGenerator
import PeggleLevel
import PegglePhysics
import PeggleUtilities
import Testing

// The level generator: valid levels from any seed, the same bytes from the same seed, and a
// spread of levels within the ranges docs/generator.md documents.

@Suite("Level generator")
struct LevelGeneratorTests {
    /// Every level of `seeds` in `distribution`, generated on two threads (debug builds are slow).
    static func levels(_ seeds: Range<Int>, _ distribution: LevelDistribution) -> [Level] {
        Parallel.map(seeds.count, threads: 2) { k in
            LevelGenerator.generate(seed: UInt64(seeds.lowerBound + k), distribution: distribution)
        }
    }

    @Test("10,000 seeds of each distribution give valid levels that fit the environment's default observation",
          arguments: LevelDistribution.allCases)
    func tenThousandSeedsValidate(_ distribution: LevelDistribution) {
        let problems = Parallel.map(10_000, threads: 2) { s -> String? in
            let level = LevelGenerator.generate(seed: UInt64(s), distribution: distribution)
            if let issue = level.validate().first { return "seed \(s): \(issue)" }
            if level.pegs.count + level.blocks.count > LevelGenerator.maxObjects { return "seed \(s): too many objects" }
            if level.pegs.count < LevelGenerator.minPegs { return "seed \(s): \(level.pegs.count) pegs" }
            return nil
        }.compactMap { $0 }
        #expect(problems.isEmpty, "\(problems.count) bad levels, first: \(problems.prefix(3))")
    }

    @Test("The same seed gives the same bytes; the pinned hashes are what every machine must produce")
    func sameSeedSameBytes() {
        for d in LevelDistribution.allCases {
            for seed: UInt64 in [0, 1, 77, 123_456_789, UInt64.max] {
                let a = LevelCodec.encode(LevelGenerator.generate(seed: seed, distribution: d))
                let b = LevelCodec.encode(LevelGenerator.generate(seed: seed, distribution: d))
                #expect(a == b, "seed \(seed) \(d)")
            }
        }
        // Pinned: a change to the generator (or to the arithmetic under it) changes these, and
        // must bump LevelGenerator.version.
        #expect(ContentHash.hex(LevelCodec.encode(LevelGenerator.generate(seed: 1, distribution: .easy))) == "d2e9bf5861555bca")
        #expect(ContentHash.hex(LevelCodec.encode(LevelGenerator.generate(seed: 1, distribution: .hard))) == "2754853556e8fa9f")
    }

    @Test("A template asked for explicitly gives the same level as the seed drawing it; other templates differ")
    func templateChoice() {
        for seed: UInt64 in 0..<40 {
            let drawn = LevelGenerator.template(forSeed: seed)
            let free = LevelGenerator.generate(seed: seed, distribution: .hard)
            #expect(LevelGenerator.generate(seed: seed, distribution: .hard, template: drawn) == free)
            #expect(free.name == "\(drawn.title) \(seed) (hard)")
            let other = LevelTemplate.allCases[(LevelTemplate.allCases.firstIndex(of: drawn)! + 1) % LevelTemplate.allCases.count]
            let forced = LevelGenerator.generate(seed: seed, distribution: .hard, template: other)
            #expect(forced.name == "\(other.title) \(seed) (hard)")
            #expect(forced.contentHash != free.contentHash)
        }
        // A subset draws only its own templates.
        let subset: [LevelTemplate] = [.rings, .pockets]
        #expect(Set((0..<200).map { LevelGenerator.template(forSeed: UInt64($0), among: subset) }) == Set(subset))
    }

    @Test("Every template makes valid levels in both distributions", arguments: LevelTemplate.allCases)
    func everyTemplate(_ template: LevelTemplate) {
        for d in LevelDistribution.allCases {
            for seed: UInt64 in 0..<150 {
                let level = LevelGenerator.generate(seed: seed, distribution: d, template: template)
                #expect(level.validate().isEmpty, "\(template) \(d) seed \(seed): \(level.validate().prefix(2))")
                #expect(level.pegs.count >= LevelGenerator.minPegs)
            }
        }
    }

    /// Counts over 1,000 levels of one distribution.
    struct Spread {
        var pegs: [Int] = [], oranges: [Int] = [], blocks: [Int] = [], balls: [Int] = []
        var templates: [LevelTemplate: Int] = [:], modes: [String: Int] = [:], powers: [Power: Int] = [:]
        var zombieLevels = 0, confusementLevels = 0, brickLevels = 0, blockLevels = 0
        var hashes = Set<String>()

        init(_ levels: [Level], seeds: Range<Int>) {
            for (k, l) in levels.enumerated() {
                pegs.append(l.pegs.count)
                oranges.append(l.count(of: .orange))
                blocks.append(l.blocks.count)
                if case let .classic(c) = l.mode { balls.append(c.balls) }
                templates[LevelGenerator.template(forSeed: UInt64(seeds.lowerBound + k)), default: 0] += 1
                modes[l.mode.name, default: 0] += 1
                powers[l.power, default: 0] += 1
                if l.count(of: .zombie) > 0 { zombieLevels += 1 }
                if l.count(of: .confusement) > 0 { confusementLevels += 1 }
                if l.pegs.contains(where: { if case .brick = $0.shape { true } else { false } }) { brickLevels += 1 }
                if !l.blocks.isEmpty { blockLevels += 1 }
                hashes.insert(l.contentHash)
            }
        }

        static func mean(_ v: [Int]) -> Double { Double(v.reduce(0, +)) / Double(max(1, v.count)) }
    }

    @Test("1,000 levels per distribution: all distinct, and their spread within the documented ranges",
          arguments: LevelDistribution.allCases)
    func diversity(_ d: LevelDistribution) {
        let seeds = 0..<1000
        let levels = Self.levels(seeds, d)
        let s = Spread(levels, seeds: seeds)
        #expect(s.hashes.count == 1000, "levels sharing a content hash: \(1000 - s.hashes.count)")
        // docs/generator.md, "The spread": the ranges these figures must stay in.
        #expect(s.pegs.min()! >= 16 && s.pegs.max()! <= 128)
        let meanPegs = Spread.mean(s.pegs)
        #expect(d == .easy ? (40...60).contains(meanPegs) : (55...75).contains(meanPegs), "mean pegs \(meanPegs)")
        for (l, o) in zip(levels, s.oranges) {
            // About a quarter orange, never fewer than two.
            #expect(o >= 2 && Double(o) <= 0.3 * Double(l.pegs.count) + 1, "\(l.name): \(o) of \(l.pegs.count)")
            #expect(l.count(of: .purple) == 1, "\(l.name)")
            #expect(l.count(of: .green) == (l.power == .none ? 0 : 2), "\(l.name)")
        }
        let shareOrange = Double(s.oranges.reduce(0, +)) / Double(s.pegs.reduce(0, +))
        #expect((0.22...0.28).contains(shareOrange), "orange share \(shareOrange)")
        // Nine templates, about 111 each.
        #expect(s.templates.count == LevelTemplate.allCases.count)
        #expect(s.templates.values.allSatisfy { (80...145).contains($0) }, "\(s.templates)")
        // Modes 80 / 12 / 8 %, powers 10 / 30 / 30 / 30 %, zombie levels 10 %, confusement 6 %.
        #expect((760...840).contains(s.modes["classic"] ?? 0), "\(s.modes)")
        #expect((90...150).contains(s.modes["beat_the_score"] ?? 0), "\(s.modes)")
        #expect((55...105).contains(s.modes["dodge"] ?? 0), "\(s.modes)")
        #expect((70...130).contains(s.powers[.none] ?? 0), "\(s.powers)")
        for p in [Power.kaboom, .spooky, .multiball] { #expect((255...345).contains(s.powers[p] ?? 0), "\(s.powers)") }
        #expect((70...130).contains(s.zombieLevels), "zombie levels \(s.zombieLevels)")
        #expect((35...85).contains(s.confusementLevels), "confusement levels \(s.confusementLevels)")
        // Ball budget: easy 12 to 15, hard 9 to 11.
        #expect(Set(s.balls) == (d == .easy ? Set(12...15) : Set(9...11)))
        // Bricks: every bricks level and funnels of bricks; blocks: pockets, ramps and blockers.
        #expect(s.brickLevels >= s.templates[.bricks]!)
        #expect(s.blockLevels >= s.templates[.pockets]! + s.templates[.ramps]!)
        #expect(d == .easy ? (250...450).contains(s.blockLevels) : (600...850).contains(s.blockLevels), "block levels \(s.blockLevels)")
    }

    @Test("Hard levels are denser, with fewer balls and more blocks, than easy levels of the same seeds")
    func hardMovesTheKnobs() {
        let seeds = 0..<300
        let easy = Spread(Self.levels(seeds, .easy), seeds: seeds), hard = Spread(Self.levels(seeds, .hard), seeds: seeds)
        #expect(Spread.mean(hard.pegs) > Spread.mean(easy.pegs) + 8)
        #expect(Spread.mean(hard.balls) + 2 < Spread.mean(easy.balls))
        #expect(Spread.mean(hard.blocks) > 2 * Spread.mean(easy.blocks))
    }

    @Test("Dodge levels keep clear paths: a ball shot along each touches no peg before the lane")
    func dodgeTunnels() throws {
        var checked = 0
        for seed: UInt64 in 0..<400 {
            let level = LevelGenerator.generate(seed: seed, distribution: .hard)
            guard case .dodge = level.mode else { continue }
            // The description names the paths' aims: "... clear paths at -0.412, 0.287 rad".
            let text = try #require(level.description)
            let list = try #require(text.firstRange(of: " at ").map { text[$0.upperBound...] })
            let aims = list.prefix { $0 != "r" }.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            #expect(!aims.isEmpty, "\(level.name): \(text)")
            let rules = Rules()
            let obstacles = level.pegs.map { Obstacle(shape: $0.physicsShape) }
                + level.blocks.map { Obstacle(shape: $0.physicsShape, restitution: $0.restitution(rules)) }
            for a in aims {
                // The game's physics without the bucket (which could bounce a ball back up).
                var world = PhysicsWorld(config: rules.physics, obstacles: obstacles)
                _ = world.spawnBall(position: rules.cannon, velocity: Vec2(Trig.sin(a), Trig.cos(a)) * rules.launchSpeed)
                var touched = false
                for _ in 0..<600 where world.activeBallCount > 0 && world.ball(at: 0).position.y < rules.laneTop {
                    world.step()
                    for c in world.contacts where c.kind == .obstacle { touched = true }
                }
                #expect(!touched, "\(level.name): the path at \(a) rad touches an object")
            }
            checked += 1
        }
        #expect(checked >= 15)
    }
}
