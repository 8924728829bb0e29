import Foundation
import PeggleGame

/// The statistics the ratings are built from. docs/skill-model.md gives every formula.
public enum Stats {
    /// z of a two-sided 95% interval.
    public static let z95 = 1.959964

    /// Wilson score interval for a binomial proportion at `z` (default 1.959964: 95%).
    /// `trials` 0 gives 0...1 (nothing is known). Bounds are clamped to 0...1; 0 successes give a
    /// lower bound of exactly 0 and `trials` successes an upper bound of exactly 1.
    public static func wilson(successes: Int, trials: Int, z: Double = z95) -> ClosedRange<Double> {
        guard trials > 0 else { return 0...1 }
        let n = Double(trials)
        let s = Double(min(max(successes, 0), trials))
        let p = s / n
        let z2 = z * z
        let denominator = 1 + z2 / n
        let centre = (p + z2 / (2 * n)) / denominator
        let half = z / denominator * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        let low = s == 0 ? 0 : max(0, centre - half)
        let high = s == n ? 1 : min(1, centre + half)
        return low...high
    }

    /// Spearman's rho: Pearson's correlation of the ranks, ties given their average rank; nil
    /// when either side has no spread.
    public static func spearman(_ x: [Double], _ y: [Double]) -> Double? {
        let rx = ranks(x), ry = ranks(y)
        let n = Double(x.count), mx = rx.reduce(0, +) / n, my = ry.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (a, b) in zip(rx, ry) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
        }
        guard sxx > 0, syy > 0 else { return nil }
        return sxy / (sxx * syy).squareRoot()
    }

    /// 1-based ranks, ties sharing their average rank.
    public static func ranks(_ v: [Double]) -> [Double] {
        let order = v.indices.sorted { v[$0] < v[$1] }
        var out = [Double](repeating: 0, count: v.count)
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count && v[order[j + 1]] == v[order[i]] { j += 1 }
            for k in i...j { out[order[k]] = Double(i + j) / 2 + 1 }
            i = j + 1
        }
        return out
    }

    /// The arithmetic mean; nil for no values.
    public static func mean(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        return xs.reduce(0, +) / Double(xs.count)
    }

    /// The middle value (the mean of the two middle values for an even count); nil for no values.
    public static func median(_ xs: [Double]) -> Double? {
        guard !xs.isEmpty else { return nil }
        let s = xs.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }
}

/// How one agent (one label at one sigma) did on one level.
public struct AgentLevelStats: Sendable, Equatable {
    public var agentKind: AgentKind
    public var agentLabel: String
    /// Aim noise, radians.
    public var sigma: Double
    public var episodes: Int
    public var wins: Int
    /// wins / episodes (0 for no episodes).
    public var winRate: Double
    /// Wilson 95% interval of the win rate.
    public var winInterval: ClosedRange<Double>
    public var meanScore: Double
    public var medianScore: Double
    /// Mean over episodes of orange cleared / orange total (1 for an episode on a level without
    /// orange pegs).
    public var orangeFraction: Double
    /// Mean balls used over won episodes; nil when none was won.
    public var meanBallsUsedOnWins: Double?
    /// Mean shots over won episodes; nil when none was won.
    public var meanShotsToWin: Double?
    /// Episodes stopped at the shot cap (status "playing"); they count as not won.
    public var truncated: Int

    public init(agentKind: AgentKind, agentLabel: String, sigma: Double, episodes: Int, wins: Int, winRate: Double,
                winInterval: ClosedRange<Double>, meanScore: Double, medianScore: Double, orangeFraction: Double,
                meanBallsUsedOnWins: Double?, meanShotsToWin: Double?, truncated: Int) {
        self.agentKind = agentKind
        self.agentLabel = agentLabel
        self.sigma = sigma
        self.episodes = episodes
        self.wins = wins
        self.winRate = winRate
        self.winInterval = winInterval
        self.meanScore = meanScore
        self.medianScore = medianScore
        self.orangeFraction = orangeFraction
        self.meanBallsUsedOnWins = meanBallsUsedOnWins
        self.meanShotsToWin = meanShotsToWin
        self.truncated = truncated
    }

    /// The statistics of `episodes`, which must all be of one agent label at one sigma.
    public init(_ episodes: [PlayedGame]) {
        precondition(!episodes.isEmpty, "statistics of no episodes")
        let first = episodes[0]
        let wonEpisodes = episodes.filter(\.won)
        let scores = episodes.map { Double($0.score) }
        self.init(agentKind: first.agentKind, agentLabel: first.agentLabel, sigma: first.sigma,
                  episodes: episodes.count, wins: wonEpisodes.count,
                  winRate: Double(wonEpisodes.count) / Double(episodes.count),
                  winInterval: Stats.wilson(successes: wonEpisodes.count, trials: episodes.count),
                  meanScore: Stats.mean(scores) ?? 0, medianScore: Stats.median(scores) ?? 0,
                  orangeFraction: Stats.mean(episodes.map(\.orangeFraction)) ?? 0,
                  meanBallsUsedOnWins: Stats.mean(wonEpisodes.map { Double($0.ballsUsed) }),
                  meanShotsToWin: Stats.mean(wonEpisodes.map { Double($0.shots) }),
                  truncated: episodes.count(where: \.truncated))
    }
}

/// One point of a skill curve: the skill agent's results at one sigma.
public struct SkillPoint: Sendable, Equatable {
    /// Aim noise, radians.
    public var sigma: Double
    public var episodes: Int
    public var wins: Int
    public var winRate: Double
    /// Wilson 95% interval of the win rate.
    public var winInterval: ClosedRange<Double>

    public init(sigma: Double, episodes: Int, wins: Int, winRate: Double, winInterval: ClosedRange<Double>) {
        self.sigma = sigma
        self.episodes = episodes
        self.wins = wins
        self.winRate = winRate
        self.winInterval = winInterval
    }
}

/// One point of a skill curve's band: the posterior quantiles of the win rate at one sigma.
public struct BandPoint: Sendable, Equatable {
    /// Aim noise, radians.
    public var sigma: Double
    /// 2.5% quantile, median, 97.5% quantile of the win probability.
    public var low: Double
    public var middle: Double
    public var high: Double

    public init(sigma: Double, low: Double, middle: Double, high: Double) {
        self.sigma = sigma
        self.low = low
        self.middle = middle
        self.high = high
    }
}

/// A level's skill curve: the skill agent's games against aim noise, and the skill model fitted to them.
public struct SkillCurve: Sendable, Equatable {
    public var agentLabel: String
    /// By increasing sigma, one per sigma played.
    public var points: [SkillPoint]
    /// The posterior summary: sigma50 with its interval, slope, ceiling, floor.
    public var fit: SkillFit
    /// The fitted win rate with its 95% band at `bandSigmas` (empty unless asked for).
    public var band: [BandPoint]
    /// The prior the fit started from.
    public var prior: PriorKind

    /// Sigmas the band is drawn at: 0, then 12 per decade from `SkillModel.lowest` to `highest`.
    public static let bandSigmas: [Double] = [0] + (0...36).map { SkillModel.lowest * pow(10, Double($0) / 12) }

    public init(agentLabel: String, points: [SkillPoint], fit: SkillFit, band: [BandPoint], prior: PriorKind = .flat) {
        self.agentLabel = agentLabel
        self.points = points
        self.fit = fit
        self.band = band
        self.prior = prior
    }

    /// The curve of one agent label's statistics (any order; one per sigma): the posterior of the
    /// skill model under `prior` given every game, added by increasing sigma, so the result
    /// depends only on the games and not on their order.
    public init(agentLabel: String, stats: [AgentLevelStats], bands: Bool = false, prior: FitPrior = .flat) {
        let sorted = stats.sorted { $0.sigma < $1.sigma }
        var posterior = SkillPosterior(prior: prior.prior)
        for s in sorted { posterior.add(sigma: s.sigma, wins: s.wins, losses: s.episodes - s.wins) }
        let points = sorted.map { SkillPoint(sigma: $0.sigma, episodes: $0.episodes, wins: $0.wins, winRate: $0.winRate,
                                             winInterval: $0.winInterval) }
        let band = bands ? zip(Self.bandSigmas, posterior.band(sigmas: Self.bandSigmas)).map {
            BandPoint(sigma: $0, low: $1.low, middle: $1.middle, high: $1.high)
        } : []
        self.init(agentLabel: agentLabel, points: points, fit: posterior.summary(), band: band, prior: prior.kind)
    }

    /// The skill curve's sigma50.
    public var sigma50: Sigma50 { fit.sigma50 }
}
