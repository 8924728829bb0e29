import Foundation
import PeggleGame
import PeggleLevel
import PeggleReports
import PeggleTestSupport
import Testing

/// The committed Reports/ is what `scripts/main` writes today (README.md): the report writer's
/// columns, and the bundled levels as they are. A new column, or a level edited without rating
/// again, fails here; regenerate with `scripts/main` (a few minutes) and commit Reports/. Cheap:
/// it reads the files and the levels, and rates nothing.
@Suite("the committed Reports/")
struct CommittedReportsTests {
    static func records(_ file: String) throws -> [[String]] {
        let text = try String(contentsOf: Repository.url("Reports/\(file)"), encoding: .utf8)
        return try #require(readCSV(text), "Reports/\(file) is not RFC 4180 CSV")
    }

    /// The header the writer writes today: the first record of its output for no rows.
    static func header(_ empty: String) throws -> [String] {
        try #require(readCSV(empty)?.first)
    }

    /// The program kinds whose games episodes.csv holds, in `peggle report`'s order: difficulty.csv
    /// has a column group for each.
    static func playedKinds() throws -> [AgentKind] {
        let episodes = try records("episodes.csv")
        let at = try #require(episodes[0].firstIndex(of: "agent_kind"))
        let kinds = try episodes.dropFirst().map { try #require(AgentKind(rawValue: $0[at]), "agent_kind '\($0[at])'") }
        return TestKinds.reportOrder.sorted(kinds.filter { $0 != .human })
    }

    @Test("each CSV has the writer's columns, and every record has all of them",
          arguments: ["difficulty.csv", "episodes.csv", "pegs.csv", "humans.csv"])
    func columnsAreTheWritersColumns(file: String) throws {
        let header: [String]
        switch file {
        case "difficulty.csv": header = CSVReport.difficultyHeader(try Self.playedKinds())
        case "episodes.csv": header = try Self.header(CSVReport.episodes([]))
        case "pegs.csv": header = try Self.header(CSVReport.pegs([]))
        default: header = try Self.header(CSVReport.humans([]))
        }
        let records = try Self.records(file)
        #expect(records.first == header, "Reports/\(file)'s header differs from what the report writer writes today")
        let short = records.indices.filter { records[$0].count != header.count }
        #expect(short.isEmpty, "Reports/\(file): records \(short.prefix(5)) do not have \(header.count) fields")
    }

    /// difficulty.csv rates exactly the bundled levels (bench-grid aside) as they are now: the
    /// same names and content hashes; episodes.csv and pegs.csv hold games of those levels only.
    @Test func theReportsRateTheBundledLevelsAsTheyAre() throws {
        let folder = Repository.url("Levels")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") && $0 != "bench-grid.json" }
        let bundled = try Dictionary(uniqueKeysWithValues: files.map { file in
            let level = try LevelCodec.decode(try Data(contentsOf: folder.appendingPathComponent(file)))
            return (level.contentHash, level.name)
        })
        #expect(bundled.count == 14)
        let difficulty = try Self.records("difficulty.csv")
        let nameAt = try #require(difficulty[0].firstIndex(of: "level")), hashAt = try #require(difficulty[0].firstIndex(of: "level_hash"))
        let rated = Dictionary(uniqueKeysWithValues: difficulty.dropFirst().map { ($0[hashAt], $0[nameAt]) })
        #expect(rated == bundled, "Reports/difficulty.csv rates other levels than Levels/ holds: run scripts/main")
        // Every level's games are in episodes.csv; pegs.csv has rows only where skill games were
        // played near sigma50, so it may leave a level out.
        for (file, everyLevel) in [("episodes.csv", true), ("pegs.csv", false)] {
            let records = try Self.records(file)
            let at = try #require(records[0].firstIndex(of: "level_hash"))
            let hashes = Set(records.dropFirst().map { $0[at] })
            #expect(everyLevel ? hashes == Set(bundled.keys) : hashes.isSubset(of: Set(bundled.keys)),
                    "Reports/\(file): not the games of the levels difficulty.csv rates")
        }
    }
}
