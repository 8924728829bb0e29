import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleTestSupport
import Testing

@Suite struct RatingTests {
    @Test func ratingOrdersLevelsBySigma50() throws {
        let ratings = DifficultyRater.rate(rankingFixture.reversed())
        #expect(ratings.map(\.levelName) == ["Hopeless", "Tight 0.005", "Peg 0.02", "Casual 0.2", "Only random"])
        #expect(ratings.map(\.rank) == [1, 2, 3, 4, nil])
        #expect(ratings.map(\.tier) == [.veryHard, .veryHard, .hard, .easy, .unrated])
        guard case let .below(b, p) = ratings[0].sigma50 else { Issue.record("\(ratings[0].sigma50)"); return }
        #expect(b == SkillModel.lowest && p >= 0.975)
        for (r, truth) in zip(ratings[1...3], [0.005, 0.02, 0.2]) {
            guard case let .value(v, low, high) = r.sigma50 else { Issue.record("\(r.levelName): \(r.sigma50)"); continue }
            #expect(low < truth && truth < high, "\(r.levelName): \(low)...\(high)")
            #expect(abs(log(v / truth)) < 0.1, "\(r.levelName): \(v)")
            #expect(close(r.difficulty, -log10(v), 1e-12))
            #expect(r.tierSpan == [r.tier])
        }
        #expect(ratings[4].sigma50 == .unknown && ratings[4].skill == nil && ratings[4].difficulty == nil)
        #expect(ratings[4].warnings.contains("no greedy games: no skill curve, tier unrated"))
        // The rater is a function of the set of games: any order, the same ratings, bit for bit.
        #expect(DifficultyRater.rate(rankingFixture) == ratings)
    }

    @Test func tiesSortByNameAndLevelsKeepTheirHash() {
        let same = curve("Bravo", sigma50: 0.03) + curve("Alpha", sigma50: 0.03)
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
        #expect(edges.tiers(low: 0.005, high: 0.04) == [.veryHard, .hard, .medium])
        #expect(edges.tiers(low: 0.09, high: 0.5) == [.easy])
        #expect(Tier.veryHard.rawValue == "very hard")
    }

    @Test func anIntervalAcrossATierEdgeSaysSo() throws {
        // Few games around 0.03, the hard | medium edge: a wide interval reaching both tiers.
        let r = DifficultyRater.rate(curve("Edge", sigma50: 0.03, perSigma: 2, every: 6))[0]
        guard case let .value(_, low, high) = r.sigma50 else { Issue.record("\(r.sigma50)"); return }
        #expect(low < 0.03 && high > 0.03)
        #expect(r.tierSpan.count >= 2 && r.tierSpan.contains(.hard) && r.tierSpan.contains(.medium))
        #expect(r.tierText == "\(r.tierSpan.first!.rawValue) to \(r.tierSpan.last!.rawValue)")
        #expect(r.warnings.contains { $0.hasPrefix("the 95% interval of sigma50 straddles a tier edge: ") })
        #expect(r.warnings.contains { $0.hasPrefix("sigma50 is known only to a factor ") })
        // Enough games: one tier, no such warning.
        let sure = DifficultyRater.rate(curve("Sure", sigma50: 0.05, perSigma: 40))[0]
        #expect(sure.tierSpan == [.medium] && sure.tierText == "medium")
        #expect(!sure.warnings.contains { $0.contains("straddles") })
    }

    @Test func agentsAreListedByKindLabelAndSigma() {
        let (random, linear) = (TestKinds.random, TestKinds.linear)
        let eps = outcomes(level: "L", kind: linear, wins: 1, of: 2)
            + outcomes(level: "L", sigma: 0.04, wins: 1, of: 2) + outcomes(level: "L", sigma: 0, wins: 2, of: 2)
            + outcomes(level: "L", sigma: 0.01, wins: 1, of: 2)
            + outcomes(level: "L", kind: random, wins: 0, of: 2)
        let r = DifficultyRater.rate(eps, options: RatingOptions(kindOrder: TestKinds.reportOrder))[0]
        #expect(r.agents.map(\.agentKind) == [random, .greedy, .greedy, .greedy, linear])
        #expect(r.agents.filter { $0.agentKind == .greedy }.map(\.sigma) == [0, 0.01, 0.04])
        #expect(r.atBestAim(kind: .greedy)?.sigma == 0)
        #expect(r.games(kind: .greedy) == 6)
        #expect(r.atBestAim(kind: linear)?.episodes == 2)
        let greedyOnly = DifficultyRater.rate(outcomes(level: "G", wins: 1, of: 2))[0]
        #expect(greedyOnly.atBestAim(kind: linear) == nil && greedyOnly.games(kind: linear) == 0)
        // Without an order, kinds by name.
        #expect(DifficultyRater.rate(eps)[0].agents.map(\.agentKind) == [.greedy, .greedy, .greedy, linear, random])
    }

    /// The rater lists whatever kinds played: the caller's kinds in its order, then any other by
    /// name, people last; the reports' column groups are the program kinds that played, so ordered.
    @Test func kindsTheCallerDoesNotListFollowByNameAndPeopleComeLast() {
        let lazy = AgentKind(declaring: "lazy"), zeta = AgentKind(declaring: "zeta")
        let order = KindOrder([TestKinds.random, .greedy])
        let eps = outcomes(level: "L", kind: .human, label: "human(name=Ann)", wins: 1, of: 2)
            + outcomes(level: "L", kind: zeta, wins: 1, of: 2) + outcomes(level: "L", kind: lazy, wins: 1, of: 2)
            + outcomes(level: "L", wins: 1, of: 2) + outcomes(level: "M", kind: TestKinds.random, wins: 1, of: 2)
        let ratings = DifficultyRater.rate(eps, options: RatingOptions(kindOrder: order))
        let l = ratings.first { $0.levelName == "L" }!
        #expect(l.agents.map(\.agentKind) == [.greedy, lazy, zeta, .human])
        #expect(order.programKinds(playing: ratings) == [TestKinds.random, .greedy, lazy, zeta])
        #expect(order.programKinds(playing: [l]) == [.greedy, lazy, zeta])
        #expect(KindOrder().programKinds(playing: ratings) == [.greedy, lazy, TestKinds.random, zeta])
    }

    @Test func otherDoubtsAreWarnedAbout() {
        let capped = DifficultyRater.rate(outcomes(level: "C", sigma: 0.01, wins: 10, of: 20, truncated: 3))[0]
        #expect(capped.warnings.contains("3 of 20 games stopped at the shot cap (counted as not won)"))
        let two = curve("T", sigma50: 0.02) + curve("T", sigma50: 0.05, perSigma: 1, every: 12, label: "greedy(candidates=8)")
        let r = DifficultyRater.rate(two)[0]
        #expect(r.skill?.agentLabel == "greedy")
        #expect(r.warnings.contains { $0.hasPrefix("2 greedy agents played this level") })
        // A pinned label wins over the most games.
        let pinned = DifficultyRater.rate(two, options: RatingOptions(skillAgentLabel: "greedy(candidates=8)"))[0]
        #expect(pinned.skill?.agentLabel == "greedy(candidates=8)")
        #expect(pinned.skill?.fit.games == 7)
        // Rated by another kind: greedy games are then just another agent.
        let byLinear = DifficultyRater.rate(curve("L", sigma50: 0.02), options: RatingOptions(skillAgentKind: TestKinds.linear))[0]
        #expect(byLinear.tier == .unrated)
        #expect(byLinear.warnings.contains { $0.hasPrefix("no linear games") })
        #expect(DifficultyRater.rate([]).isEmpty)
    }

    @Test func customTierEdges() {
        let eps = curve("L", sigma50: 0.035, perSigma: 40)
        #expect(DifficultyRater.rate(eps)[0].tier == .medium)
        #expect(DifficultyRater.rate(eps, options: RatingOptions(tierEdges: TierEdges(veryHard: 0.005, hard: 0.04,
                                                                                       medium: 0.1)))[0].tier == .hard)
    }

    @Test func bandsAreComputedOnlyWhenAsked() {
        let plain = DifficultyRater.rate(curve("L", sigma50: 0.02))[0]
        #expect(plain.skill?.band.isEmpty == true)
        let banded = DifficultyRater.rate(curve("L", sigma50: 0.02), options: RatingOptions(bands: true))[0]
        #expect(banded.skill?.band.map(\.sigma) == SkillCurve.bandSigmas)
        #expect(banded.skill?.fit == plain.skill?.fit)
    }
}
