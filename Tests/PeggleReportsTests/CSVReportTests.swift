import PeggleDifficulty
import PeggleGame
import PeggleReports
import PeggleTestSupport
import Testing

@Test func theTestReaderIsStrict() {
    #expect(readCSV("a,b\r\n") == [["a", "b"]])
    #expect(readCSV("\"a,\"\"b\"\"\r\nc\",\r\n") == [["a,\"b\"\r\nc", ""]])
    #expect(readCSV("a,b\n") == nil)
    #expect(readCSV("a,b") == nil)
    #expect(readCSV("a\"b\r\n") == nil)
    #expect(readCSV("\"a\"b\r\n") == nil)
    #expect(readCSV("\"a\r\n") == nil)
}

@Test func fieldQuotesOnlyWhatNeedsIt() {
    #expect(CSVReport.field("plain level") == "plain level")
    #expect(CSVReport.field("") == "")
    #expect(CSVReport.field("Ünïcødé") == "Ünïcødé")
    #expect(CSVReport.field("a,b") == "\"a,b\"")
    #expect(CSVReport.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
    #expect(CSVReport.field("two\nlines") == "\"two\nlines\"")
    #expect(CSVReport.field("cr\r") == "\"cr\r\"")
    #expect(CSVReport.field(" padded ") == "\" padded \"")
    // A quote followed by a combining mark is one Character in Swift but still a quote to CSV.
    #expect(CSVReport.field("\"\u{301}") == "\"\"\"\u{301}\"")
}

let awkwardNames = ["Comma, the level", "Say \"hi\"", "Two\nlines", "Windows\r\nline", " padded ", "\"", ",",
                    "Ünïcødé 🎯 ピン", "=SUM(A1)", "plain"]

func awkwardOutcomes() -> [PlayedGame] {
    awkwardNames.enumerated().flatMap { k, name in
        curve(name, sigma50: 0.01 * Double(k + 1), perSigma: 4, every: 6, label: "greedy(candidates=48, \"fast\")")
            + outcomes(level: name, kind: TestKinds.random, wins: k, of: 20)
    }
}

@Test func episodesCSVRoundTripsAwkwardNames() throws {
    var eps = awkwardOutcomes()
    eps[0].seed = UInt64.max
    eps[1].sigma = 0.0123456
    eps[2].gameSeconds = 1.0 / 3
    let csv = CSVReport.episodes(eps)
    let rows = try #require(readCSV(csv), "not RFC 4180")
    #expect(rows.count == eps.count + 1)
    #expect(rows[0] == CSVReport.episodesHeader)
    #expect(rows[0] == ["level_hash", "level", "agent_kind", "agent_label", "sigma_rad", "seed", "status", "won", "score",
                        "shots", "orange_cleared", "orange_total", "balls_used", "game_seconds"])
    for (row, e) in zip(rows.dropFirst(), eps) {
        #expect(row.count == rows[0].count)
        #expect(row[0] == e.levelHash)
        #expect(row[1] == CSVReport.text(e.levelName))  // "=SUM(A1)" behind an apostrophe (CSVInjectionTests)
        #expect(row[2] == e.agentKind.rawValue)
        #expect(row[3] == e.agentLabel)
        #expect(close(Double(row[4]), e.sigma, 5e-7))
        #expect(UInt64(row[5]) == e.seed)
        #expect(row[6] == e.status.rawValue)
        #expect(row[7] == (e.won ? "true" : "false"))
        #expect(Int(row[8]) == e.score && Int(row[9]) == e.shots)
        #expect(Int(row[10]) == e.orangeCleared && Int(row[11]) == e.orangeTotal && Int(row[12]) == e.ballsUsed)
        #expect(close(Double(row[13]), e.gameSeconds, 5e-5))
    }
    #expect(rows[1][5] == "18446744073709551615")
    #expect(rows[2][4] == "0.012346")
    #expect(rows[3][13] == "0.3333")
    #expect(CSVReport.episodes([]) == CSVReport.episodesHeader.joined(separator: ",") + "\r\n")
}

@Test func difficultyCSVRoundTripsAwkwardNames() throws {
    let ratings = DifficultyRater.rate(awkwardOutcomes() + random("Only random", wins: 5),
                                       options: RatingOptions(kindOrder: TestKinds.reportOrder))
    let csv = CSVReport.difficulty(ratings, kinds: TestKinds.reportOrder)
    let rows = try #require(readCSV(csv), "not RFC 4180")
    let header = rows[0]
    // A group per program kind that played, in the order given: linear played no level, so has none.
    #expect(header == CSVReport.difficultyHeader([TestKinds.random, .greedy]))
    #expect(header.count == 18 + 2 * 10 + 1)
    #expect(Array(header.prefix(18)) == ["rank", "level", "level_hash", "tier", "tier_of_estimate", "difficulty",
                                         "sigma50_relation", "sigma50_rad", "sigma50_low", "sigma50_high",
                                         "sigma50_probability", "slope", "ceiling", "floor", "skill_agent",
                                         "skill_sigmas", "skill_games", "skill_prior"])
    #expect(header[18] == "random_agent" && header[19] == "random_games" && header[28] == "greedy_agent")
    #expect(!header.contains { $0.hasPrefix("linear_") })
    #expect(header.last == "warnings")
    #expect(rows.count == ratings.count + 1)
    /// The value of column `name` in `row`; nil when there is no such column.
    func v(_ row: [String], _ name: String) -> String? { header.firstIndex(of: name).map { row[$0] } }
    for (row, r) in zip(rows.dropFirst(), ratings) {
        #expect(row.count == header.count)
        #expect(v(row, "level") == CSVReport.text(r.levelName))
        #expect(v(row, "level_hash") == r.levelHash)
        #expect(v(row, "rank") == r.rank.map(String.init) ?? "")
        #expect(v(row, "tier") == r.tierText)
        #expect(v(row, "tier_of_estimate") == r.tier.rawValue)
        #expect(v(row, "warnings") == r.warnings.joined(separator: "; "))
        if let skill = r.skill {
            #expect(close(v(row, "difficulty").flatMap(Double.init), r.difficulty ?? .nan))
            #expect(close(v(row, "slope").flatMap(Double.init), skill.fit.slope, 5e-4))
            #expect(close(v(row, "ceiling").flatMap(Double.init), skill.fit.ceiling, 5e-5))
            #expect(close(v(row, "floor").flatMap(Double.init), skill.fit.floor, 5e-5))
            #expect(v(row, "skill_games") == String(skill.fit.games))
            #expect(v(row, "skill_sigmas") == String(skill.points.count))
            #expect(v(row, "skill_prior") == "flat")
            if case let .value(s, low, high) = r.sigma50 {
                #expect(v(row, "sigma50_relation") == "=")
                #expect(close(v(row, "sigma50_rad").flatMap(Double.init), s, 5e-7))
                #expect(close(v(row, "sigma50_low").flatMap(Double.init), low, 5e-7))
                #expect(close(v(row, "sigma50_high").flatMap(Double.init), high, 5e-7))
                #expect(v(row, "sigma50_probability") == "")
            }
        }
        if let greedy = r.atBestAim(kind: .greedy) {
            #expect(v(row, "greedy_agent") == greedy.agentLabel)
            #expect(v(row, "greedy_games").flatMap(Int.init) == r.games(kind: .greedy))
            #expect(v(row, "greedy_episodes").flatMap(Int.init) == greedy.episodes)
            #expect(close(v(row, "greedy_win_low").flatMap(Double.init), greedy.winInterval.lowerBound))
            #expect(close(v(row, "greedy_win_high").flatMap(Double.init), greedy.winInterval.upperBound))
        }
    }
    #expect(Set(rows.dropFirst().map { $0[1] }) == Set((awkwardNames + ["Only random"]).map(CSVReport.text)))
    let unknown = try #require(rows.first { $0[1] == "Only random" })
    #expect(v(unknown, "tier") == "unrated" && v(unknown, "rank") == "")
    #expect(v(unknown, "sigma50_relation") == "" && v(unknown, "sigma50_rad") == "")
    #expect(v(unknown, "skill_games") == "0" && v(unknown, "skill_prior") == "")
    #expect(v(unknown, "random_win_rate") == "0.25" && v(unknown, "random_games") == "20")
}

@Test func difficultyCSVWritesTheSigma50Relation() throws {
    let ratings = DifficultyRater.rate(rankingFixture)
    let rows = try #require(readCSV(CSVReport.difficulty(ratings)))
    let relation = rows.dropFirst().map { ($0[1], $0[6], $0[7], $0[8], $0[9], $0[10]) }
    #expect(relation.map(\.0) == ratings.map(\.levelName))
    #expect(relation.map(\.1) == ["<", "=", "=", "=", ""])
    // Below the range: the bound is its end, with no lower end and the posterior's probability.
    #expect(relation[0].2 == "0.001" && relation[0].3 == "" && relation[0].4 == "0.001")
    #expect(Double(relation[0].5)! >= 0.975)
    #expect(rows[1][0] == "1" && rows[1][3] == "very hard")
}
