/// One stored episode, as the report sees it: plain values, so the analytics never depend on how
/// episodes are stored.
public struct EpisodeOutcome: Sendable, Equatable {
    /// The level's content hash (the key that groups episodes into levels).
    public var levelHash: String
    public var levelName: String
    /// "random", "greedy", "linear".
    public var agentKind: String
    /// The agent with its settings, e.g. "greedy(candidates=48,refine=2)"; distinct agents have
    /// distinct labels.
    public var agentLabel: String
    /// Aim noise, radians (the standard deviation of the Gaussian added to every chosen angle).
    public var sigma: Double
    public var seed: UInt64
    /// "won", "lost", or "playing" (stopped at the shot cap: truncated).
    public var status: String
    public var won: Bool
    public var score: Int
    public var shots: Int
    public var orangeCleared: Int
    public var orangeTotal: Int
    /// Classic: balls the game cost net of free balls; other modes: shots taken.
    public var ballsUsed: Int
    /// Game time over all shots, seconds.
    public var gameSeconds: Double

    public init(levelHash: String, levelName: String, agentKind: String, agentLabel: String, sigma: Double,
                seed: UInt64, status: String, won: Bool, score: Int, shots: Int, orangeCleared: Int,
                orangeTotal: Int, ballsUsed: Int, gameSeconds: Double) {
        self.levelHash = levelHash
        self.levelName = levelName
        self.agentKind = agentKind
        self.agentLabel = agentLabel
        self.sigma = sigma
        self.seed = seed
        self.status = status
        self.won = won
        self.score = score
        self.shots = shots
        self.orangeCleared = orangeCleared
        self.orangeTotal = orangeTotal
        self.ballsUsed = ballsUsed
        self.gameSeconds = gameSeconds
    }

    /// Stopped at the shot cap with the game still going.
    public var truncated: Bool { status == "playing" }

    /// Orange pegs cleared over orange pegs on the level, 1 when the level has none.
    public var orangeFraction: Double {
        orangeTotal <= 0 ? 1 : Double(orangeCleared) / Double(orangeTotal)
    }
}

/// The statistics the ratings are built from. docs/metrics.md gives every formula.
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

    /// Weighted pool-adjacent-violators fit, non-increasing: the non-increasing sequence closest to
    /// `ys` in weighted least squares. Adjacent values that rise are pooled into one block whose
    /// value is the weighted mean of its members, until no block rises. A block whose weights are
    /// all zero (or negative, treated as zero) takes the plain mean of its values.
    public static func isotonicDecreasing(_ ys: [Double], weights: [Double]) -> [Double] {
        precondition(ys.count == weights.count, "one weight per value")
        struct Block { var sumWY: Double, sumW: Double, sumY: Double, count: Int
            var value: Double { sumW > 0 ? sumWY / sumW : sumY / Double(count) }
        }
        var blocks: [Block] = []
        for (y, w0) in zip(ys, weights) {
            let w = max(w0, 0)
            blocks.append(Block(sumWY: w * y, sumW: w, sumY: y, count: 1))
            // Non-increasing: a block may not rise above the one before it.
            while blocks.count > 1 && blocks[blocks.count - 2].value < blocks[blocks.count - 1].value {
                let last = blocks.removeLast()
                blocks[blocks.count - 1].sumWY += last.sumWY
                blocks[blocks.count - 1].sumW += last.sumW
                blocks[blocks.count - 1].sumY += last.sumY
                blocks[blocks.count - 1].count += last.count
            }
        }
        var out: [Double] = []
        out.reserveCapacity(ys.count)
        for b in blocks { out += repeatElement(b.value, count: b.count) }
        return out
    }
}

/// How one agent (one label at one sigma) did on one level.
public struct AgentLevelStats: Sendable, Equatable {
    public var agentKind: String
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

    public init(agentKind: String, agentLabel: String, sigma: Double, episodes: Int, wins: Int, winRate: Double,
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
    public init(_ episodes: [EpisodeOutcome]) {
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
    /// The weighted isotonic (non-increasing in sigma) fit of the win rate at this sigma.
    public var fitted: Double

    public init(sigma: Double, episodes: Int, wins: Int, winRate: Double, winInterval: ClosedRange<Double>,
                fitted: Double) {
        self.sigma = sigma
        self.episodes = episodes
        self.wins = wins
        self.winRate = winRate
        self.winInterval = winInterval
        self.fitted = fitted
    }
}

/// The aim noise (radians) at which the skill agent's fitted win rate falls to one half.
public enum Sigma50: Sendable, Equatable {
    /// Interpolated between the two sigmas where the fitted curve first crosses 1/2.
    case value(Double)
    /// The fitted win rate is still at least 1/2 at the largest sigma tried (this one).
    case atLeast(Double)
    /// The fitted win rate is under 1/2 already at the smallest sigma tried (this one).
    case below(Double)
    /// No skill data.
    case unknown

    /// The sigma it names, radians; nil for `.unknown`.
    public var sigma: Double? {
        switch self {
        case let .value(s), let .atLeast(s), let .below(s): s
        case .unknown: nil
        }
    }
}

/// A level's skill curve: the skill agent's win rate against aim noise.
public struct SkillCurve: Sendable, Equatable {
    public var agentLabel: String
    /// By increasing sigma, one per sigma tried.
    public var points: [SkillPoint]
    public var sigma50: Sigma50

    public init(agentLabel: String, points: [SkillPoint], sigma50: Sigma50) {
        self.agentLabel = agentLabel
        self.points = points
        self.sigma50 = sigma50
    }

    /// The curve of one agent label's statistics (any order; one per sigma): points by sigma, the
    /// isotonic fit weighted by episodes, and sigma50 from the fit.
    public init(agentLabel: String, stats: [AgentLevelStats]) {
        let sorted = stats.sorted { $0.sigma < $1.sigma }
        let fit = Stats.isotonicDecreasing(sorted.map(\.winRate), weights: sorted.map { Double($0.episodes) })
        let points = zip(sorted, fit).map { s, f in
            SkillPoint(sigma: s.sigma, episodes: s.episodes, wins: s.wins, winRate: s.winRate,
                       winInterval: s.winInterval, fitted: f)
        }
        self.init(agentLabel: agentLabel, points: points, sigma50: Self.sigma50(points))
    }

    /// Where the fitted curve of `points` (by increasing sigma) first falls below 1/2, linearly
    /// interpolated in sigma between the last point at or above 1/2 and the first point below it.
    public static func sigma50(_ points: [SkillPoint]) -> Sigma50 {
        guard let first = points.first, let last = points.last else { return .unknown }
        guard let i = points.firstIndex(where: { $0.fitted < 0.5 }) else { return .atLeast(last.sigma) }
        guard i > 0 else { return .below(first.sigma) }
        let a = points[i - 1], b = points[i]
        let t = (a.fitted - 0.5) / (a.fitted - b.fitted)
        return .value(a.sigma + (b.sigma - a.sigma) * t)
    }
}
