import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleReports
import PeggleTestSupport
import PeggleUtilities
import Testing

/// People's games beside the rater's: humans.csv, the HTML report, and the rank correlation.
@Suite struct HumanPlaytestsTests {
    /// Two players on "Peg 0.02": 3 of 4 and 1 of 2 won; nobody played the others.
    static let humans = outcomes(level: "Peg 0.02", kind: .human, label: "human(name=Ann)", wins: 3, of: 4)
        + outcomes(level: "Peg 0.02", kind: .human, label: "human(name=Bo, Jr.)", wins: 1, of: 2, firstSeed: 100)

    @Test func humanGamesLeaveDifficultyCSVAsItWas() throws {
        let without = DifficultyRater.rate(rankingFixture)
        let with = DifficultyRater.rate(rankingFixture + Self.humans)
        #expect(CSVReport.difficulty(with) == CSVReport.difficulty(without))
        // People's games have no column group: only the program kinds that played do.
        #expect(KindOrder().programKinds(playing: with) == [.greedy, TestKinds.random])
        let header = try #require(readCSV(CSVReport.difficulty(with))?.first)
        #expect(header == CSVReport.difficultyHeader([.greedy, TestKinds.random]))
        #expect(!header.contains { $0.hasPrefix(AgentKind.human.rawValue) })
        #expect(CSVReport.humans(without) == CSVReport.record(CSVReport.humansHeader))
    }

    @Test func humansCSVCountsEveryPlayerBesideSigma50() throws {
        let ratings = DifficultyRater.rate(rankingFixture + Self.humans)
        let rows = try #require(readCSV(CSVReport.humans(ratings)))
        #expect(rows.count == 2)
        let row = Dictionary(uniqueKeysWithValues: zip(rows[0], rows[1]))
        let rated = try #require(ratings.first { $0.levelName == "Peg 0.02" })
        let wilson = Stats.wilson(successes: 4, trials: 6)
        #expect(row["level"] == "Peg 0.02")
        #expect(row["human_games"] == "6")
        #expect(row["human_players"] == "2")
        #expect(row["human_wins"] == "4")
        #expect(row["human_win_rate"] == "0.6667")
        #expect(row["human_win_low"] == DecimalText.number(wilson.lowerBound, decimals: 4))
        #expect(row["human_win_high"] == DecimalText.number(wilson.upperBound, decimals: 4))
        #expect(row["tier"] == rated.tierText)
        guard case let .value(s, _, _) = rated.sigma50 else { Issue.record("sigma50 \(rated.sigma50)"); return }
        #expect(row["sigma50_relation"] == "=")
        #expect(row["sigma50_rad"] == DecimalText.number(s, decimals: 6))
    }

    /// With the store's count of people (a name and a browser session), the two labels above may
    /// be more people: that count is the one shown, in humans.csv and the HTML report.
    @Test func peopleCountedByTheStoreReplaceTheNames() throws {
        let ratings = DifficultyRater.rate(rankingFixture + Self.humans)
        let rated = try #require(ratings.first { $0.levelName == "Peg 0.02" })
        let people = [rated.levelHash: 3]
        let rows = try #require(readCSV(CSVReport.humans(ratings, people: people)))
        #expect(Dictionary(uniqueKeysWithValues: zip(rows[0], rows[1]))["human_players"] == "3")
        let html = HTMLReport.render(ratings, levels: [:], facts: [], people: people)
        #expect(html.contains("Human playtests: <b>6</b> games by 3 players, 4 won"))
        #expect(html.contains("won 4 of 6 by 3 players"))
        // A level the count does not name keeps its names' count.
        #expect(HumanGames(rated, people: ["another level": 9])?.players == 2)
    }

    @Test func theHTMLReportShowsHumanGamesBesideSigma50OnlyWhenPeoplePlayed() {
        let without = HTMLReport.render(DifficultyRater.rate(rankingFixture), levels: [:], facts: [])
        #expect(!without.contains("Human"))
        let html = HTMLReport.render(DifficultyRater.rate(rankingFixture + Self.humans), levels: [:], facts: [])
        #expect(html.contains("<th class=\"agent\">Humans</th>"))
        #expect(html.contains("Human playtests: <b>6</b> games by 2 players, 4 won: win rate <b>0.67</b>"))
        // One column for all the players, not one per player.
        #expect(!html.contains("<th class=\"agent\">human(name=Ann)</th>"))
    }

    /// Ranks by hand: win rates 0.1 0.4 0.3 0.8 0.6 rank 1 3 2 5 4; sigma50s rank 2 1 4 5 3; the
    /// squared rank differences sum to 10, so rho = 1 - 6 * 10 / (5 * 24) = 0.5. The interval:
    /// z = atanh(0.5), se = sqrt((1 + 0.5^2 / 2) / (5 - 3)) = 0.75, tanh(z -+ 1.959964 * 0.75).
    @Test func spearmanWithItsFisherZInterval() throws {
        let c = HumanComparison(winRates: [0.1, 0.4, 0.3, 0.8, 0.6], sigma50s: [0.02, 0.01, 0.05, 0.09, 0.04], minGames: 5)
        #expect(c.levels == 5)
        #expect(close(c.rho, 0.5, 1e-12))
        let interval = try #require(c.interval)
        #expect(close(interval.lowerBound, -0.7262127335389211, 1e-12))
        #expect(close(interval.upperBound, 0.9653646515612224, 1e-12))
        #expect(c.summary == "Spearman rho 0.50 (95% interval -0.73 to 0.97) over 5 levels with at least 5 human games")
    }

    @Test func tiesShareTheirAverageRankAndTooFewLevelsGiveNoInterval() {
        #expect(Stats.ranks([0.5, 0.5, 0.2, 0.9]) == [2.5, 2.5, 1, 4])
        // Ranks 2.5 2.5 1 4 against 1 2 3 4, by hand: mean 2.5 both; deviations (0, 0, -1.5, 1.5) and (-1.5, -0.5, 0.5, 1.5): sxy = 0 + 0 - 0.75 + 2.25 = 1.5,
        // sxx = 4.5, syy = 5, rho = 1.5 / sqrt(22.5).
        #expect(close(Stats.spearman([0.5, 0.5, 0.2, 0.9], [1, 2, 3, 4]), 1.5 / 22.5.squareRoot(), 1e-12))
        let three = HumanComparison(winRates: [0.1, 0.2, 0.3], sigma50s: [0.01, 0.02, 0.03], minGames: 2)
        #expect(three.rho == 1)
        #expect(three.interval == nil)
        #expect(HumanComparison(winRates: [0.5, 0.5, 0.5], sigma50s: [0.01, 0.02, 0.03], minGames: 2).rho == nil)
    }

    @Test func theComparisonTakesLevelsWithEnoughHumanGames() {
        let ratings = DifficultyRater.rate(rankingFixture + Self.humans)
        #expect(HumanComparison(ratings, minGames: 6).levels == 1)
        #expect(HumanComparison(ratings, minGames: 7).levels == 0)
        #expect(HumanComparison(ratings, minGames: 7).summary
            == "no rank correlation over 0 levels with at least 7 human games (it needs 3 levels, each side varying)")
    }
}
