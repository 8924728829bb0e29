import PeggleGame
import PeggleGenerator
import PeggleLevel
import PeggleUtilities
import Synchronization

/// Levels generated from seeds, as Procgen draws them: each episode plays the level of a seed
/// drawn by the environment's generator from [startLevel, startLevel + numLevels), or from
/// [startLevel, 2^63) when `numLevels` is 0 (unlimited). Disjoint ranges are disjoint level sets:
/// train on one, test on another.
public struct ProceduralLevels: Sendable, Equatable {
    /// How many level seeds; 0 is unlimited.
    public var numLevels: Int
    /// The first level seed, 0 or more.
    public var startLevel: Int
    /// Procgen's `distribution_mode`: the generator's easy or hard levels, or levels of one tier
    /// by the instant estimate.
    public var distribution: DistributionMode
    /// The templates levels are drawn from; a seed's template is fixed by the seed
    /// (`LevelGenerator.template(forSeed:among:)`), so two template sets split levels by layout.
    public var templates: [LevelTemplate]
    /// Replaces every generated level's own mode, when set.
    public var mode: GameMode?

    public init(numLevels: Int = 0, startLevel: Int = 0, distribution: DistributionMode = .hard,
                templates: [LevelTemplate] = LevelTemplate.allCases, mode: GameMode? = nil) {
        self.numLevels = numLevels
        self.startLevel = startLevel
        self.distribution = distribution
        self.templates = templates
        self.mode = mode
    }

    /// Level seeds are below this: 2^63, so every seed fits a signed 64-bit integer (NumPy int64).
    public static let seedLimit = UInt64(1) << 63

    /// Why these settings cannot make levels, if they cannot.
    public var problem: String? {
        if numLevels < 0 { return "num_levels is \(numLevels); it must be 0 (unlimited) or more" }
        if startLevel < 0 { return "start_level is \(startLevel); it must be 0 or more" }
        if UInt64(startLevel) + UInt64(numLevels) > Self.seedLimit {
            return "start_level + num_levels is \(UInt64(startLevel) + UInt64(numLevels)); level seeds must stay below 2^63"
        }
        if templates.isEmpty { return "no templates to draw levels from" }
        return nil
    }

    /// How many level seeds there are: `numLevels`, or all seeds from `startLevel` below 2^63.
    public var seedCount: UInt64 { numLevels > 0 ? UInt64(numLevels) : Self.seedLimit - UInt64(startLevel) }

    /// The seed of level index `k` (0-based within the range).
    public func seed(ofIndex k: Int) -> UInt64 { UInt64(startLevel) + UInt64(k) }

    /// A level seed drawn from the range with `rng`.
    public func drawSeed(_ rng: inout SeededGenerator) -> UInt64 {
        let n = seedCount
        // The range holds at most 2^63 seeds: 63 random bits cover it exactly; fewer, an unbiased draw.
        let offset = n == Self.seedLimit ? rng.next() >> 1 : UInt64(rng.nextInt(below: Int(n)))
        return UInt64(startLevel) + offset
    }

    /// The template of level seed `seed`.
    public func template(ofSeed seed: UInt64) -> LevelTemplate {
        LevelGenerator.template(forSeed: seed, among: templates)
    }

    /// The generator seed of level seed `seed`: the seed itself, or under a tier distribution the
    /// candidate `screen` chooses (the first the estimate puts in the tier). A tier without a
    /// screen is refused.
    public func generatorSeed(ofSeed seed: UInt64, rules: Rules = Rules(), screen: (any TierScreen)?) throws(EnvError) -> UInt64 {
        guard distribution.isTier else { return seed }
        guard let screen else { throw .noTierScreen(distribution) }
        return screen.generatorSeed(levelSeed: seed, distribution: distribution) { candidate in
            level(generatorSeed: candidate, rules: rules)
        }
    }

    /// The level of `seed` (with `mode` if set), generated under `rules` (the defaults unless a
    /// caller changed them). A tier distribution screens candidates first (tens of milliseconds).
    public func level(seed: UInt64, rules: Rules = Rules(), screen: (any TierScreen)? = nil) throws(EnvError) -> Level {
        level(generatorSeed: try generatorSeed(ofSeed: seed, rules: rules, screen: screen), rules: rules)
    }

    /// The level the generator makes from `generatorSeed` (with `mode` if set).
    public func level(generatorSeed g: UInt64, rules: Rules = Rules()) -> Level {
        withMode(LevelGenerator.generate(seed: g, distribution: distribution.generator, template: template(ofSeed: g), rules: rules))
    }

    private func withMode(_ level: Level) -> Level {
        var l = level
        if let mode { l.mode = mode }
        return l
    }

    /// The name of the level the generator makes from `generatorSeed` ("Arcs 42 (hard)"), the
    /// same as `peggle level generate` gives it.
    public func name(generatorSeed g: UInt64) -> String {
        LevelGenerator.name(seed: g, distribution: distribution.generator, template: template(ofSeed: g))
    }
}

/// Procedural levels' `distribution_mode`: Procgen's easy and hard (the generator's
/// distributions), or one tier of difficulty as the instant estimate sees it. A tier level is the
/// first of its seed's candidates (from the hard distribution, the easy one for the easy tier)
/// whose estimated sigma50 lies in the tier: about 7 in 10 are in the tier by a full rating
/// (docs/environment.md), and screening costs tens of milliseconds per new level.
public enum DistributionMode: String, CaseIterable, Sendable, Codable {
    case easy, hard
    case tierEasy = "tier-easy", tierMedium = "tier-medium", tierHard = "tier-hard", tierVeryHard = "tier-very-hard"

    /// Whether levels are screened by difficulty (a `TierScreen` chooses among candidates).
    public var isTier: Bool { self != .easy && self != .hard }

    /// The generator distribution levels (a tier's candidates) come from: the easy one for
    /// `tier-easy`, the hard one for the other tiers, as docs/environment.md says and as
    /// PeggleEstimate's `DifficultyTarget.defaultDistribution` gives for the tiers (a test holds
    /// the two together).
    public var generator: LevelDistribution {
        switch self {
        case .easy, .tierEasy: .easy
        case .hard, .tierMedium, .tierHard, .tierVeryHard: .hard
        }
    }

    public init(_ distribution: LevelDistribution) {
        switch distribution {
        case .easy: self = .easy
        case .hard: self = .hard
        }
    }
}

/// The new games of generated levels, by level seed, shared between the copies of an
/// environment. A level is a pure function of its seed, so whether a reset finds its game here or
/// generates it changes nothing but the time it takes.
final class GeneratedGames: Sendable {
    /// Most level seeds whose games are kept: at the generator's largest level a new game holds
    /// about 48 KiB, so 1,000 hold about 47 MiB (counted in the serve memory budget).
    static let limit = 1000
    private let games = Mutex<[UInt64: (GameState, UInt64)]>([:])

    /// The new game of level seed `seed` and its generator seed, if kept.
    func game(seed: UInt64) -> (GameState, UInt64)? { games.withLock { $0[seed] } }

    func keep(_ game: GameState, generatorSeed: UInt64, seed: UInt64) {
        games.withLock { if $0.count < Self.limit { $0[seed] = (game, generatorSeed) } }
    }
}
