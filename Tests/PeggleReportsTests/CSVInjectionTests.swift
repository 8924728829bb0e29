import PeggleDifficulty
import PeggleGame
import PeggleReports
import PeggleTestSupport
import Testing

/// Free text in the CSVs never starts a formula (OWASP's "CSV Injection"): a level or player name
/// chosen by anyone, the studio's visitors among them, reaches every CSV only behind an apostrophe.
@Suite("CSV cells never start a formula")
struct CSVInjectionTests {
    static let hostile = ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\tTab", "\rCR"]

    /// Every name a spreadsheet would run, as a level's and (in humans.csv) a player's.
    static var games: [PlayedGame] {
        hostile.flatMap { name in
            curve(name, sigma50: 0.02) + outcomes(level: name, kind: .human, label: name, wins: 1, of: 2, firstSeed: 900)
        }
    }

    @Test("text(): the apostrophe before exactly OWASP's characters, nothing else changed")
    func neutralises() {
        #expect(Self.hostile.map(CSVReport.text) == Self.hostile.map { "'" + $0 })
        for safe in ["Fortress", "'quoted", " =spaced", "a=b", "", "0.5", "\u{FF1D}fullwidth"] {
            #expect(CSVReport.text(safe) == safe)
        }
    }

    @Test("difficulty.csv, episodes.csv, pegs.csv and humans.csv read back with every hostile name behind an apostrophe")
    func everyCSVReadsBackNeutralised() throws {
        let ratings = DifficultyRater.rate(Self.games)
        let expected = Set(Self.hostile.map { "'" + $0 })
        func firstCharacters(_ csv: String, column: String) throws -> Set<String> {
            let rows = try #require(readCSV(csv))
            let index = try #require(rows[0].firstIndex(of: column))
            return Set(rows.dropFirst().map { $0[index] })
        }
        #expect(try firstCharacters(CSVReport.difficulty(ratings), column: "level") == expected)
        #expect(try firstCharacters(CSVReport.humans(ratings), column: "level") == expected)
        let episodes = try #require(readCSV(CSVReport.episodes(Self.games)))
        let level = try #require(episodes[0].firstIndex(of: "level"))
        let label = try #require(episodes[0].firstIndex(of: "agent_label"))
        #expect(Set(episodes.dropFirst().map { $0[level] }) == expected)
        // The human games' labels are the hostile names too; the greedy ones stay "greedy".
        #expect(Set(episodes.dropFirst().map { $0[label] }) == expected.union(["greedy"]))
        let pegs = Self.hostile.map { samplePegRates($0, hash: "h" + $0) }
        #expect(try firstCharacters(CSVReport.pegs(pegs), column: "level") == expected)
        // No field of any of them starts a formula, except sigma50_relation's fixed "=".
        for csv in [CSVReport.difficulty(ratings), CSVReport.humans(ratings), CSVReport.episodes(Self.games), CSVReport.pegs(pegs)] {
            let rows = try #require(readCSV(csv))
            let relation = rows[0].firstIndex(of: "sigma50_relation")
            for row in rows.dropFirst() {
                for (i, field) in row.enumerated() where i != relation {
                    guard let first = field.unicodeScalars.first else { continue }
                    // Numbers may be negative; none of these fixtures has one, so any '-' is a name.
                    #expect(!CSVReport.formulaStarts.contains(first), "\(field)")
                }
            }
        }
    }
}
