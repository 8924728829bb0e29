import Testing
@testable import PeggleAnalytics

/// A greedy sweep: (sigma, wins) with `episodes` each.
func sweep(_ level: String, _ points: [(Double, Int)], episodes: Int = 20, label: String = "greedy") -> [EpisodeOutcome] {
    points.flatMap { sigma, wins in outcomes(level: level, label: label, sigma: sigma, wins: wins, of: episodes) }
}

func random(_ level: String, wins: Int, of episodes: Int = 20) -> [EpisodeOutcome] {
    outcomes(level: level, kind: "random", wins: wins, of: episodes)
}

/// Levels of every sigma50 case, hardest first as the rater must order them.
let rankingFixture: [EpisodeOutcome] =
    // below, fitted win rate 0.2 at sigma 0: difficulty 3 + (1 - 0.4) = 3.6
    sweep("Below A", [(0, 4), (0.01, 2)]) + random("Below A", wins: 0)
    // below, 0.4 at sigma 0: 3.2
    + sweep("Below B", [(0, 8), (0.01, 2)])
    // sigma50 = 0.01 + 0.01 * (0.6 - 0.5) / (0.6 - 0.2) = 0.0125: 1 + 0.08 / 0.0525 = 2.5238
    + sweep("Value 0.0125", [(0, 18), (0.01, 12), (0.02, 4)])
    // sigma50 = 0.035: 1 + 0.08 / 0.075 = 2.0667
    + sweep("Value 0.035", [(0, 20), (0.02, 16), (0.04, 8)]) + random("Value 0.035", wins: 20)
    // sigma50 = 0.04 + 0.04 * (0.7 - 0.5) / (0.7 - 0.3) = 0.06: 1 + 0.08 / 0.1 = 1.8
    + sweep("Value 0.06", [(0, 20), (0.04, 14), (0.08, 6)])
    // only random played, won 15 of 20: unrated, 4 * (1 - 0.75) = 1
    + random("Unknown", wins: 15)
    // at least 0.16, random won 2 of 20: 1 - 0.1 = 0.9
    + sweep("At least, random 0.1", [(0, 20), (0.16, 12)]) + random("At least, random 0.1", wins: 2)
    // at least 0.16, random won 10 of 20: 0.5
    + sweep("At least, random 0.5", [(0, 20), (0.16, 12)]) + random("At least, random 0.5", wins: 10)

@Test func ratingOrdersEveryCase() throws {
    // Input order must not matter.
    let ratings = DifficultyRater.rate(rankingFixture.reversed())
    #expect(ratings.map(\.levelName) == ["Below A", "Below B", "Value 0.0125", "Value 0.035", "Value 0.06", "Unknown",
                                         "At least, random 0.1", "At least, random 0.5"])
    #expect(ratings.map(\.rank) == Array(1...8))
    let expected = [3.6, 3.2, 1 + 0.08 / 0.0525, 1 + 0.08 / 0.075, 1.8, 1, 0.9, 0.5]
    for (r, d) in zip(ratings, expected) { #expect(close(r.difficulty, d, 1e-9), "\(r.levelName): \(r.difficulty ?? -1)") }
    #expect(ratings.map(\.tier) == [.veryHard, .veryHard, .hard, .medium, .medium, .unrated, .easy, .easy])
    #expect(ratings[0].sigma50 == .below(0))
    #expect(ratings[5].sigma50 == .unknown && ratings[5].skill == nil)
    #expect(ratings[6].sigma50 == .atLeast(0.16))
    guard case let .value(s) = ratings[2].sigma50 else { Issue.record("expected a value"); return }
    #expect(close(s, 0.0125, 1e-12))
    // The rater is a function: same input, same output.
    #expect(DifficultyRater.rate(rankingFixture) == ratings)
}

@Test func tiesSortByNameAndLevelsKeepTheirHash() {
    let same = sweep("Bravo", [(0, 20), (0.02, 16), (0.04, 8)]) + sweep("Alpha", [(0, 20), (0.02, 16), (0.04, 8)])
    let ratings = DifficultyRater.rate(same)
    #expect(ratings.map(\.levelName) == ["Alpha", "Bravo"])
    #expect(ratings.map(\.rank) == [1, 2])
    #expect(ratings.map(\.levelHash) == ["hash-Alpha", "hash-Bravo"])
}

@Test func tierEdgesAreStrictUpperBounds() {
    let edges = TierEdges()
    #expect(edges.tier(sigma50: 0.0099) == .veryHard)
    #expect(edges.tier(sigma50: 0.01) == .hard)
    #expect(edges.tier(sigma50: 0.03) == .medium)
    #expect(edges.tier(sigma50: 0.08) == .easy)
    #expect(edges.tier(.below(0.04)) == .veryHard)
    #expect(edges.tier(.atLeast(0.02)) == .easy)
    #expect(edges.tier(.unknown) == .unrated)
    #expect(Tier.veryHard.rawValue == "very hard")
}

@Test func agentsAreListedByKindLabelAndSigma() {
    let eps = outcomes(level: "L", kind: "linear", wins: 1, of: 2)
        + sweep("L", [(0.04, 1), (0, 2), (0.01, 1)], episodes: 2)
        + outcomes(level: "L", kind: "random", wins: 0, of: 2)
        + outcomes(level: "L", kind: "aardvark", wins: 0, of: 2)
    let r = DifficultyRater.rate(eps)[0]
    #expect(r.agents.map(\.agentKind) == ["random", "greedy", "greedy", "greedy", "linear", "aardvark"])
    #expect(r.agents.filter { $0.agentKind == "greedy" }.map(\.sigma) == [0, 0.01, 0.04])
    #expect(r.atBestAim(kind: "greedy")?.sigma == 0)
    #expect(r.atBestAim(kind: "linear")?.episodes == 2)
    #expect(r.atBestAim(kind: "nobody") == nil)
}

@Test func fewEpisodesAreWarnedAbout() {
    let eps = outcomes(level: "Thin", sigma: 0, wins: 20, of: 20) + outcomes(level: "Thin", sigma: 0.04, wins: 3, of: 8)
        + outcomes(level: "Thin", sigma: 0.08, wins: 0, of: 1)
    let r = DifficultyRater.rate(eps)[0]
    #expect(r.warnings.contains("only 8 episodes at sigma 0.04: rating uncertain (want >= 20)"))
    #expect(r.warnings.contains("only 1 episode at sigma 0.08: rating uncertain (want >= 20)"))
    #expect(!r.warnings.contains { $0.contains("at sigma 0:") })
    #expect(r.tier != .unrated)
    // Enough episodes everywhere: no such warning; a lower threshold silences it.
    let full = DifficultyRater.rate(sweep("Full", [(0, 20), (0.04, 8), (0.08, 1)]))[0]
    #expect(!full.warnings.contains { $0.hasPrefix("only ") })
    let relaxed = DifficultyRater.rate(eps, options: RatingOptions(minEpisodes: 1))[0]
    #expect(!relaxed.warnings.contains { $0.hasPrefix("only ") })
}

@Test func levelsWithoutTheSkillAgentSaySo() {
    let r = DifficultyRater.rate(random("Lonely", wins: 5) + outcomes(level: "Lonely", kind: "linear", wins: 10, of: 20))[0]
    #expect(r.tier == .unrated)
    #expect(r.skill == nil)
    #expect(r.warnings.contains { $0.hasPrefix("no greedy episodes") })
    // The best agent (linear, 0.5) sets the fallback: 4 * (1 - 0.5).
    #expect(close(r.difficulty, 2, 1e-12))
    #expect(r.warnings.contains { $0.contains("linear won 10 of 20") })
    #expect(r.rank == 1)
}

@Test func boundsAndOtherDoubtsAreWarnedAbout() {
    // below at a sigma above the very-hard edge; at least at a sigma below the easy edge.
    let below = DifficultyRater.rate(sweep("B", [(0.05, 2), (0.1, 0)]))[0]
    #expect(below.sigma50 == .below(0.05))
    #expect(below.warnings.contains { $0.contains("try smaller sigmas") })
    let atLeast = DifficultyRater.rate(sweep("A", [(0, 20), (0.02, 20)]))[0]
    #expect(atLeast.warnings.contains { $0.contains("try larger sigmas") })
    // One sigma only; truncated episodes; two greedy agents.
    let one = DifficultyRater.rate(sweep("O", [(0, 20)]))[0]
    #expect(one.warnings.contains { $0.contains("one sigma only") })
    let capped = DifficultyRater.rate(outcomes(level: "C", sigma: 0, wins: 10, of: 20, truncated: 3))[0]
    #expect(capped.warnings.contains("3 of 20 episodes stopped at the shot cap (counted as not won)"))
    let two = sweep("T", [(0, 20), (0.04, 8)]) + sweep("T", [(0, 4)], episodes: 4, label: "greedy(candidates=8)")
    let r = DifficultyRater.rate(two)[0]
    #expect(r.skill?.agentLabel == "greedy")
    #expect(r.warnings.contains { $0.hasPrefix("2 greedy agents played this level") })
    // A pinned label wins over the most episodes.
    let pinned = DifficultyRater.rate(two, options: RatingOptions(skillAgentLabel: "greedy(candidates=8)"))[0]
    #expect(pinned.skill?.agentLabel == "greedy(candidates=8)")
    #expect(pinned.skill?.points.count == 1)
}

@Test func customTierEdgesAndSkillKind() {
    let eps = sweep("L", [(0, 20), (0.02, 16), (0.04, 8)])  // sigma50 0.035
    #expect(DifficultyRater.rate(eps)[0].tier == .medium)
    #expect(DifficultyRater.rate(eps, options: RatingOptions(tierEdges: TierEdges(veryHard: 0.005, hard: 0.04,
                                                                                   medium: 0.1)))[0].tier == .hard)
    // Rated by another kind: greedy episodes are then just another agent.
    let byLinear = DifficultyRater.rate(eps, options: RatingOptions(skillAgentKind: "linear"))[0]
    #expect(byLinear.tier == .unrated)
    #expect(byLinear.warnings.contains { $0.hasPrefix("no linear episodes") })
    #expect(DifficultyRater.rate([]).isEmpty)
}
