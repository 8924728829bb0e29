import Testing
@testable import PeggleAnalytics

/// `a` and `b` agree to `tolerance`.
func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-4) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// `episodes` outcomes of one agent at one sigma on one level, the first `wins` of them won.
func outcomes(level: String, hash: String? = nil, kind: String = "greedy", label: String? = nil, sigma: Double = 0,
              wins: Int, of episodes: Int, orangeTotal: Int = 10, truncated: Int = 0) -> [EpisodeOutcome] {
    (0..<episodes).map { k in
        let won = k < wins
        let playing = !won && k >= episodes - truncated
        return EpisodeOutcome(levelHash: hash ?? "hash-" + level, levelName: level, agentKind: kind,
                              agentLabel: label ?? kind, sigma: sigma, seed: UInt64(k), status: won ? "won" : playing ? "playing" : "lost",
                              won: won, score: 1000 * (k + 1), shots: won ? 5 : 10,
                              orangeCleared: won ? orangeTotal : orangeTotal / 2, orangeTotal: orangeTotal,
                              ballsUsed: won ? 4 : 10, gameSeconds: 12.5)
    }
}

// MARK: Wilson interval

@Test func wilsonMatchesHandComputedBounds() {
    // p = 0.8, n = 10, z^2 = 3.841459: centre 0.716735, half-width 0.226577.
    let eight = Stats.wilson(successes: 8, trials: 10)
    #expect(close(eight.lowerBound, 0.4902))
    #expect(close(eight.upperBound, 0.9433))
    // 0 of 10: the upper bound is 2 z^2/(2n) / (1 + z^2/n) = 0.27753.
    let none = Stats.wilson(successes: 0, trials: 10)
    #expect(none.lowerBound == 0)
    #expect(close(none.upperBound, 0.2775))
    // 10 of 10 mirrors 0 of 10.
    let all = Stats.wilson(successes: 10, trials: 10)
    #expect(close(all.lowerBound, 1 - 0.2775))
    #expect(all.upperBound == 1)
    // Nothing known.
    #expect(Stats.wilson(successes: 0, trials: 0) == 0...1)
    // A wider z widens the interval; 99% for 8 of 10.
    let wide = Stats.wilson(successes: 8, trials: 10, z: 2.575829)
    #expect(wide.lowerBound < eight.lowerBound && wide.upperBound > eight.upperBound)
    #expect(close(wide.lowerBound, 0.4008))
    #expect(close(wide.upperBound, 0.9599))
}

@Test func wilsonNarrowsWithMoreTrials() {
    let small = Stats.wilson(successes: 5, trials: 10)
    let large = Stats.wilson(successes: 500, trials: 1000)
    #expect(close(small.lowerBound + small.upperBound, 1, 1e-12))
    #expect(large.upperBound - large.lowerBound < small.upperBound - small.lowerBound)
    #expect(close(large.lowerBound, 0.4691))
    #expect(close(large.upperBound, 0.5309))
}

// MARK: Mean, median, isotonic fit

@Test func meanAndMedian() {
    #expect(Stats.mean([]) == nil)
    #expect(Stats.median([]) == nil)
    #expect(Stats.mean([1, 2, 3, 6]) == 3)
    #expect(Stats.median([3, 1, 2]) == 2)
    #expect(Stats.median([4, 1, 3, 2]) == 2.5)
    #expect(Stats.median([7]) == 7)
    #expect(Stats.median([10, -2]) == 4)
}

@Test func isotonicPoolsRisingNeighboursByWeight() {
    // 0.5 then 0.7 rises: pooled to (0.5*10 + 0.7*30) / 40 = 0.65, which 0.9 stays above.
    let fit = Stats.isotonicDecreasing([0.9, 0.5, 0.7, 0.2], weights: [10, 10, 30, 10])
    #expect(fit.count == 4)
    #expect(close(fit[0], 0.9, 1e-12))
    #expect(close(fit[1], 0.65, 1e-12))
    #expect(close(fit[2], 0.65, 1e-12))
    #expect(close(fit[3], 0.2, 1e-12))
    // A cascade: 0.4, 0.6 pool to 0.5 (weight 2), which then pools with 0.8 (weight 2) to 0.65.
    // Unweighted the answer would be 0.6.
    let cascade = Stats.isotonicDecreasing([0.4, 0.6, 0.8], weights: [1, 1, 2])
    for v in cascade { #expect(close(v, 0.65, 1e-12)) }
    // Already non-increasing: unchanged. Empty: empty.
    #expect(Stats.isotonicDecreasing([1, 1, 0.5, 0], weights: [1, 2, 3, 4]) == [1, 1, 0.5, 0])
    #expect(Stats.isotonicDecreasing([], weights: []).isEmpty)
    // A zero-weight value cannot pull a weighted one; alone it keeps its value.
    let zero = Stats.isotonicDecreasing([0.2, 0.9], weights: [10, 0])
    #expect(zero == [0.2, 0.2])
    #expect(Stats.isotonicDecreasing([0.3], weights: [0]) == [0.3])
}

@Test func isotonicFitIsNonIncreasingAndKeepsTheWeightedMean() {
    let ys = [0.1, 0.8, 0.3, 0.9, 0.95, 0.2, 0.6, 0.0]
    let ws = [3.0, 1, 4, 1, 5, 9, 2, 6]
    let fit = Stats.isotonicDecreasing(ys, weights: ws)
    for i in 1..<fit.count { #expect(fit[i] <= fit[i - 1]) }
    let before = zip(ys, ws).reduce(0) { $0 + $1.0 * $1.1 }
    let after = zip(fit, ws).reduce(0) { $0 + $1.0 * $1.1 }
    #expect(close(after, before, 1e-9))
}

// MARK: Per-agent statistics

@Test func agentStatsOfEpisodes() {
    var eps = outcomes(level: "L", sigma: 0.02, wins: 3, of: 8, truncated: 2)
    eps[7].orangeTotal = 0  // a level without orange pegs counts as all cleared
    eps[7].orangeCleared = 0
    let s = AgentLevelStats(eps)
    #expect(s.episodes == 8 && s.wins == 3)
    #expect(s.winRate == 3.0 / 8)
    #expect(s.winInterval == Stats.wilson(successes: 3, trials: 8))
    #expect(s.meanScore == 4500)         // 1000...8000
    #expect(s.medianScore == 4500)
    // Three won (1), four lost with half cleared, one with no orange (1): (3 + 2 + 1) / 8.
    #expect(close(s.orangeFraction, 6.0 / 8, 1e-12))
    #expect(s.meanBallsUsedOnWins == 4)
    #expect(s.meanShotsToWin == 5)
    #expect(s.truncated == 2)
    #expect(s.sigma == 0.02 && s.agentKind == "greedy")
    let lost = AgentLevelStats(outcomes(level: "L", wins: 0, of: 4))
    #expect(lost.meanBallsUsedOnWins == nil && lost.meanShotsToWin == nil)
}

// MARK: Skill curve and sigma50

func point(_ sigma: Double, _ fitted: Double, episodes: Int = 20) -> SkillPoint {
    let wins = Int((fitted * Double(episodes)).rounded())
    return SkillPoint(sigma: sigma, episodes: episodes, wins: wins, winRate: fitted,
                      winInterval: Stats.wilson(successes: wins, trials: episodes), fitted: fitted)
}

@Test func sigma50InterpolatesTheFirstCrossing() {
    // 0.02 + 0.02 * (0.8 - 0.5) / (0.8 - 0.4) = 0.035.
    let s = SkillCurve.sigma50([point(0, 1), point(0.02, 0.8), point(0.04, 0.4)])
    guard case let .value(v) = s else { Issue.record("expected a value, got \(s)"); return }
    #expect(close(v, 0.035, 1e-12))
    // Exactly 1/2 at a point is not yet under it; the crossing is in the next interval, at its start.
    let flat = SkillCurve.sigma50([point(0, 0.9), point(0.01, 0.5), point(0.02, 0.3)])
    #expect(flat == .value(0.01))
    // The first crossing counts.
    let first = SkillCurve.sigma50([point(0, 0.6), point(0.1, 0.4), point(0.2, 0.4), point(0.3, 0.1)])
    guard case let .value(f) = first else { Issue.record("expected a value, got \(first)"); return }
    #expect(close(f, 0.05, 1e-12))
}

@Test func sigma50BoundsAndUnknown() {
    #expect(SkillCurve.sigma50([point(0, 0.4), point(0.01, 0.2)]) == .below(0))
    #expect(SkillCurve.sigma50([point(0.01, 0.45)]) == .below(0.01))
    #expect(SkillCurve.sigma50([point(0, 1), point(0.16, 0.5)]) == .atLeast(0.16))
    #expect(SkillCurve.sigma50([point(0.05, 0.7)]) == .atLeast(0.05))
    #expect(SkillCurve.sigma50([]) == .unknown)
    #expect(Sigma50.unknown.sigma == nil && Sigma50.below(0.02).sigma == 0.02)
}

@Test func skillCurveFitsBeforeInterpolating() throws {
    // Raw win rates 1.0, 0.25, 0.75, 0.2 at 20 episodes each: 0.25 and 0.75 pool to 0.5, so the
    // fitted curve first falls under 1/2 at 0.06: sigma50 = 0.04 + 0.02 * (0.5 - 0.5) / (0.5 - 0.2)
    // = 0.04. Without the fit the raw curve would cross between 0 and 0.02 instead.
    let stats = [(0.06, 4), (0.0, 20), (0.04, 15), (0.02, 5)].map { sigma, wins in
        AgentLevelStats(outcomes(level: "L", sigma: sigma, wins: wins, of: 20))
    }
    let curve = SkillCurve(agentLabel: "greedy", stats: stats)
    #expect(curve.points.map(\.sigma) == [0, 0.02, 0.04, 0.06])
    #expect(curve.points.map(\.winRate) == [1, 0.25, 0.75, 0.2])
    let fitted = curve.points.map(\.fitted)
    #expect(close(fitted[1], 0.5, 1e-12) && close(fitted[2], 0.5, 1e-12))
    guard case let .value(v) = curve.sigma50 else { Issue.record("expected a value, got \(curve.sigma50)"); return }
    #expect(close(v, 0.04, 1e-12))
}
