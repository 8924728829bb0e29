import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleGenerator
import PeggleLevel
import PeggleUtilities

/// A difficulty asked for: a tier, or a range of sigma50. `peggle level generate --tier/--sigma50`
/// and the environment's tier distributions ask for one.
public enum DifficultyTarget: Sendable, Equatable, CustomStringConvertible {
    case tier(Tier)
    /// sigma50 from `low` to `high` radians (low < high, both within the rater's range).
    case sigma50(low: Double, high: Double)

    /// Whether a level whose sigma50 is `sigma50` has this difficulty.
    public func contains(_ sigma50: Double, edges: TierEdges = TierEdges()) -> Bool {
        switch self {
        case let .tier(t): edges.tier(sigma50: sigma50) == t
        case let .sigma50(low, high): sigma50 >= low && sigma50 < high
        }
    }

    /// The range of sigma50 this target covers, radians (the open ends are the rater's range).
    public func range(edges: TierEdges = TierEdges()) -> (low: Double, high: Double) {
        switch self {
        case let .sigma50(low, high): (low, high)
        case let .tier(t):
            switch t {
            case .veryHard: (SkillModel.lowest, edges.veryHard)
            case .hard: (edges.veryHard, edges.hard)
            case .medium: (edges.hard, edges.medium)
            case .easy, .unrated: (edges.medium, SkillModel.highest)
            }
        }
    }

    /// The generator distribution candidates come from unless one is asked for: easy levels for
    /// the easy tier (or a range above the medium edge), hard ones otherwise. Measured on the
    /// rated corpus (docs/generator.md): 96% of easy-distribution levels are estimated easy, while
    /// the hard distribution holds nearly all the very hard, hard and medium levels.
    public func defaultDistribution(edges: TierEdges = TierEdges()) -> LevelDistribution {
        range(edges: edges).low >= edges.medium ? .easy : .hard
    }

    /// How far sigma50 is from the target, in ln sigma50 (0 inside).
    public func logDistance(_ sigma50: Double, edges: TierEdges = TierEdges()) -> Double {
        let (low, high) = range(edges: edges), x = log(sigma50)
        return x < log(low) ? log(low) - x : x >= log(high) ? x - log(high) : 0
    }

    public var description: String {
        switch self {
        case let .tier(t): "tier \(t.rawValue)"
        case let .sigma50(low, high): "sigma50 \(DecimalText.significant(low, digits: 3))-\(DecimalText.significant(high, digits: 3)) rad"
        }
    }
}

/// Candidate levels screened by the instant estimate: a candidate passes when its estimated
/// sigma50 lies in the target. Cheap (one `Sigma50Estimate`, about 20 ms a level in a release
/// build); the estimate's tier is right for about 7 levels in 10, so `peggle level generate`
/// confirms with the rater what passes.
public struct EstimateScreen: Sendable {
    public var target: DifficultyTarget
    public var model: EstimateModel
    public var edges: TierEdges

    public init(target: DifficultyTarget, model: EstimateModel = .builtIn, edges: TierEdges = TierEdges()) {
        self.target = target
        self.model = model
        self.edges = edges
    }

    /// The estimate of a generated level (generated levels are valid by construction; a level that
    /// is not valid gets nil).
    public func estimate(_ level: Level, rules: Rules = Rules()) -> Sigma50Estimate? {
        guard let prepared = try? PreparedLevel(level, rules: rules) else { return nil }
        return Sigma50Estimate(prepared, model: model, tierEdges: edges)
    }

    public func passes(_ estimate: Sigma50Estimate) -> Bool { target.contains(estimate.sigma50, edges: edges) }

    /// The screened level of a procedural level seed: candidate generator seeds are drawn from a
    /// stream seeded by the level seed (`candidateSeeds`), and the first whose level passes is it.
    /// When none of `limit` candidates passes, the one whose estimate is nearest the target (the
    /// first of equals) stands in, so every level seed has a level. A pure function of its inputs.
    public func screenedSeed(levelSeed: UInt64, limit: Int = EstimateScreen.candidateLimit,
                             level: (UInt64) -> Level) -> (seed: UInt64, estimate: Sigma50Estimate?, tried: Int) {
        precondition(limit >= 1)
        var stream = Self.candidateSeeds(levelSeed: levelSeed)
        var best: (seed: UInt64, estimate: Sigma50Estimate?, distance: Double)?
        for k in 1...limit {
            let seed = stream.next()
            let e = estimate(level(seed))
            if let e, passes(e) { return (seed, e, k) }
            let d = e.map { target.logDistance($0.sigma50, edges: edges) } ?? .infinity
            if best == nil || d < best!.distance { best = (seed, e, d) }
        }
        return (best!.seed, best!.estimate, limit)
    }

    /// Candidates tried per procedural level seed before the nearest stands in. The rarest tier
    /// (medium, from the hard distribution) passes about one candidate in four (122 of the corpus's
    /// 500): 64 misses with probability about 2e-8.
    public static let candidateLimit = 64

    /// The generator seeds tried for a procedural level seed: a stream of its own, so distinct level
    /// seeds meet the same candidate with probability about 2^-64 per pair (train and test ranges
    /// stay disjoint), and level k's candidates do not depend on any other level's.
    public static func candidateSeeds(levelSeed: UInt64) -> SeededGenerator {
        SeededGenerator(seed: levelSeed ^ 0x5851_F42D_4C95_7F2D)
    }
}
