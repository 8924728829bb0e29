import PeggleDifficulty
import PeggleGame
import PeggleTestSupport
import Testing

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

// MARK: Mean, median

@Test func meanAndMedian() {
    #expect(Stats.mean([]) == nil)
    #expect(Stats.median([]) == nil)
    #expect(Stats.mean([1, 2, 3, 6]) == 3)
    #expect(Stats.median([3, 1, 2]) == 2)
    #expect(Stats.median([4, 1, 3, 2]) == 2.5)
    #expect(Stats.median([7]) == 7)
    #expect(Stats.median([10, -2]) == 4)
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
    #expect(s.sigma == 0.02 && s.agentKind == .greedy)
    let lost = AgentLevelStats(outcomes(level: "L", wins: 0, of: 4))
    #expect(lost.meanBallsUsedOnWins == nil && lost.meanShotsToWin == nil)
}
