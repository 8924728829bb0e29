import Foundation
import PeggleGame

/// Where a level's next batch of skill games goes (docs/measurement.md, "Placement").
public enum Placement: String, Sendable, CaseIterable {
    /// At the posterior's quantiles of x50, spread twice as far from the median.
    case quantile
    /// QUEST+ / Psi: each game where it minimises the expected entropy of the x50 marginal.
    case entropy
}

/// When a level's measurement stops besides the precision reached, an end of the range, or the
/// budget spent (docs/measurement.md, "The stopping rule").
public enum StopRule: String, Sendable, CaseIterable {
    /// Only those three.
    case precision
    /// Also when the precision is out of reach within the budget (`SkillMeasurement.isOutOfReach`).
    case reachable
    /// Also when the 95% interval of sigma50 lies in one tier: the tier the report prints then has
    /// no "to" (and the posterior puts at least 0.95 of sigma50 in that tier).
    case tier
}

/// How the adaptive method measures one level's sigma50 (docs/measurement.md).
public struct AdaptiveSettings: Sendable, Equatable {
    /// Skill games chosen together per level and round. Fixed, never the thread count, so a
    /// rating is the same for any number of threads.
    public var batchSize: Int
    /// Skill games per level at most.
    public var budget: Int
    /// Stop when the 95% interval of sigma50 lies within this factor either side of the estimate.
    public var precision: Double
    /// Where each batch goes.
    public var placement: Placement
    /// The prior a level's measurement starts from.
    public var prior: PriorKind
    /// When a level stops early.
    public var stop: StopRule
    /// The tier edges the `tier` stop decides between.
    public var tierEdges: TierEdges

    public static let defaultBatchSize = 8
    public static let defaultBudget = 160
    public static let defaultPrecision = 1.25
    public static let defaultPlacement = Placement.quantile
    public static let defaultPrior = PriorKind.flat
    public static let defaultStop = StopRule.precision

    public init(batchSize: Int = defaultBatchSize, budget: Int = defaultBudget, precision: Double = defaultPrecision,
                placement: Placement = defaultPlacement, prior: PriorKind = defaultPrior, stop: StopRule = defaultStop,
                tierEdges: TierEdges = TierEdges()) {
        precondition(batchSize >= 1 && budget >= 1 && precision > 1)
        self.batchSize = batchSize
        self.budget = budget
        self.precision = precision
        self.placement = placement
        self.prior = prior
        self.stop = stop
        self.tierEdges = tierEdges
    }
}

/// One level's adaptive measurement: which skill games to play next, what they said, and when to
/// stop. A pure value: the same outcomes give the same choices, so a rerun that finds the games
/// in the database replays exactly the choices of the run that played them.
public struct SkillMeasurement: Sendable, Equatable {
    /// One planned skill game: its seed and aim noise (radians), the key it is stored under.
    public typealias Trial = EpisodeKey

    /// Why a measurement stopped.
    public enum Stop: String, Sendable, Equatable {
        /// The interval is within the precision asked.
        case precise
        /// sigma50 lies beyond an end of the measured range, or within a factor `precision` of it
        /// and past it (`SkillFit.isAtRangeEnd`): a bound.
        case beyondRange = "at the range's end"
        /// The game budget is spent.
        case budget
        /// `StopRule.reachable`: the precision asked is out of reach within the budget.
        case outOfReach = "precision out of reach"
        /// `StopRule.tier`: the tier is decided.
        case tierDecided = "tier decided"
    }

    public let settings: AdaptiveSettings
    /// Game k of the level's skill sequence has seed `firstSeed + k`.
    public let firstSeed: UInt64
    public private(set) var posterior: SkillPosterior
    /// Every game recorded, in order.
    public private(set) var played: [(trial: Trial, won: Bool)] = []
    public private(set) var stop: Stop?
    /// The batch `nextBatch()` returns, chosen once when the last batch was recorded (a
    /// placement can cost more than a game's bookkeeping; the scheduler asks under its lock).
    private var planned: [Trial] = []
    /// Every game at this sigma (simulations only; see `init(settings:firstSeed:prior:fixedSigma:)`).
    private let fixedSigma: Double?

    /// `x50`: the level's x50 prior, given exactly when `settings.prior` is `.populationEstimate`.
    public init(settings: AdaptiveSettings, firstSeed: UInt64, x50: X50Prior? = nil) {
        self.init(settings: settings, firstSeed: firstSeed, prior: SkillPrior(settings.prior, x50: x50))
    }

    /// For simulations only (`peggle-bench calibration --knowledge`): starts from `prior` whatever
    /// `settings.prior` says, and with `fixedSigma` plays every game at that sigma instead of
    /// `settings.placement`'s. The stops are `settings`' as always.
    public init(settings: AdaptiveSettings, firstSeed: UInt64, prior: SkillPrior, fixedSigma: Double? = nil) {
        self.settings = settings
        self.firstSeed = firstSeed
        self.fixedSigma = fixedSigma
        posterior = SkillPosterior(prior: prior)
        planned = plan()
    }

    public static func == (a: SkillMeasurement, b: SkillMeasurement) -> Bool {
        a.settings == b.settings && a.firstSeed == b.firstSeed && a.fixedSigma == b.fixedSigma && a.posterior == b.posterior && a.stop == b.stop
            && a.played.map(\.trial) == b.played.map(\.trial) && a.played.map(\.won) == b.played.map(\.won)
    }

    /// The next batch, or empty when stopped: up to `batchSize` games (fewer when the budget is
    /// nearly spent) at the posterior's placement, with the next seeds.
    public func nextBatch() -> [Trial] { planned }

    private func plan() -> [Trial] {
        guard stop == nil else { return [] }
        let n = min(settings.batchSize, settings.budget - played.count)
        let sigmas = fixedSigma.map { Array(repeating: $0, count: n) } ?? posterior.placement(count: n, rule: settings.placement)
        return sigmas.enumerated().map { j, s in Trial(seed: firstSeed &+ UInt64(played.count + j), sigma: s) }
    }

    /// Records the outcomes of the batch `nextBatch()` returned, in its order, and decides
    /// whether to stop.
    public mutating func record(_ batch: [Trial], won: [Bool]) {
        precondition(batch.count == won.count && batch == nextBatch(), "outcomes of a batch that was not asked for")
        for (t, w) in zip(batch, won) {
            posterior.add(sigma: t.sigma, wins: w ? 1 : 0, losses: w ? 0 : 1)
            played.append((t, w))
        }
        let fit = posterior.summary()
        if fit.isAtRangeEnd(precision: settings.precision) {
            stop = .beyondRange
        } else if fit.isDone(precision: settings.precision) {
            stop = .precise
        } else if played.count >= settings.budget {
            stop = .budget
        } else if settings.stop == .reachable, Self.isOutOfReach(posterior, fit, games: played.count, settings: settings) {
            stop = .outOfReach
        } else if settings.stop == .tier, settings.tierEdges.tiers(low: fit.low, high: fit.high).count == 1 {
            // The report's rule for a decided tier (`LevelRating.tierSpan`), so a level stopped
            // here never reads "hard to medium" in the report.
            stop = .tierDecided
        }
        planned = plan()
    }

    /// The posterior probability with which `StopRule.reachable` judges the precision out of reach.
    public static let reachProbability = 0.95

    /// `StopRule.reachable`: after at least four batches, whether the precision asked is out of
    /// reach even if every remaining game went where it teaches most about x50: the interval's
    /// sd in ln sigma now (its width / 3.92), combined with (budget - games) games each carrying
    /// the most information one game can carry under the posterior's shapes, taken at the
    /// `reachProbability` quantile (`SkillPosterior.bestInformation`), is still wider than the
    /// precision. Optimistic on purpose: the batches do not all go to the best sigma, so a level
    /// stopped here would, with probability at least 0.95, have spent its budget short of the target.
    public static func isOutOfReach(_ posterior: SkillPosterior, _ fit: SkillFit, games: Int, settings: AdaptiveSettings) -> Bool {
        guard games >= 4 * settings.batchSize, games < settings.budget else { return false }
        let z = 1.959964
        let sdNow = log(fit.high / fit.low) / (2 * z)
        let information = posterior.bestInformation(quantile: reachProbability)
        let sdEnd = 1 / (1 / (sdNow * sdNow) + Double(settings.budget - games) * information).squareRoot()
        return exp(z * sdEnd) > settings.precision
    }

    /// Plays the whole measurement with `play(trial) -> won` (for simulations and tests; the
    /// rater plays batches in parallel and records them itself).
    public static func run(settings: AdaptiveSettings, firstSeed: UInt64, x50: X50Prior? = nil,
                           play: (Trial) -> Bool) -> SkillMeasurement {
        run(SkillMeasurement(settings: settings, firstSeed: firstSeed, x50: x50), play: play)
    }

    /// Plays `measurement` to its stop with `play(trial) -> won`.
    public static func run(_ measurement: SkillMeasurement, play: (Trial) -> Bool) -> SkillMeasurement {
        var m = measurement
        while m.stop == nil {
            let batch = m.nextBatch()
            m.record(batch, won: batch.map(play))
        }
        return m
    }
}
