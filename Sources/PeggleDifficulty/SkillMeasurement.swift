import PeggleGame

/// Where a level's next batch of skill games goes (docs/metrics.md, "Placement").
public enum Placement: String, Sendable, CaseIterable {
    /// At the posterior's quantiles of x50, spread twice as far from the median.
    case quantile
    /// QUEST+ / Psi: each game where it minimises the expected entropy of the x50 marginal.
    case entropy
}

/// How the adaptive method measures one level's sigma50 (docs/metrics.md).
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

    public static let defaultBatchSize = 8
    public static let defaultBudget = 160
    public static let defaultPrecision = 1.25
    public static let defaultPlacement = Placement.quantile

    public init(batchSize: Int = defaultBatchSize, budget: Int = defaultBudget, precision: Double = defaultPrecision,
                placement: Placement = defaultPlacement) {
        precondition(batchSize >= 1 && budget >= 1 && precision > 1)
        self.batchSize = batchSize
        self.budget = budget
        self.precision = precision
        self.placement = placement
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
    }

    public let settings: AdaptiveSettings
    /// Game k of the level's skill sequence has seed `firstSeed + k`.
    public let firstSeed: UInt64
    public private(set) var posterior = SkillPosterior()
    /// Every game recorded, in order.
    public private(set) var played: [(trial: Trial, won: Bool)] = []
    public private(set) var stop: Stop?
    /// The batch `nextBatch()` returns, chosen once when the last batch was recorded (a
    /// placement can cost more than a game's bookkeeping; the scheduler asks under its lock).
    private var planned: [Trial] = []

    public init(settings: AdaptiveSettings, firstSeed: UInt64) {
        self.settings = settings
        self.firstSeed = firstSeed
        planned = plan()
    }

    public static func == (a: SkillMeasurement, b: SkillMeasurement) -> Bool {
        a.settings == b.settings && a.firstSeed == b.firstSeed && a.posterior == b.posterior && a.stop == b.stop
            && a.played.map(\.trial) == b.played.map(\.trial) && a.played.map(\.won) == b.played.map(\.won)
    }

    /// The next batch, or empty when stopped: up to `batchSize` games (fewer when the budget is
    /// nearly spent) at the posterior's placement, with the next seeds.
    public func nextBatch() -> [Trial] { planned }

    private func plan() -> [Trial] {
        guard stop == nil else { return [] }
        let n = min(settings.batchSize, settings.budget - played.count)
        let sigmas = posterior.placement(count: n, rule: settings.placement)
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
        }
        planned = plan()
    }

    /// Plays the whole measurement with `play(trial) -> won` (for simulations and tests; the
    /// rater plays batches in parallel and records them itself).
    public static func run(settings: AdaptiveSettings, firstSeed: UInt64, play: (Trial) -> Bool) -> SkillMeasurement {
        var m = SkillMeasurement(settings: settings, firstSeed: firstSeed)
        while m.stop == nil {
            let batch = m.nextBatch()
            m.record(batch, won: batch.map(play))
        }
        return m
    }
}
