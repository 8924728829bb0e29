import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif
import GRDB
import PeggleLevel
import PeggleStore
import PeggleTestSupport
import PeggleUtilities
import Testing

@Suite("peggle report", .serialized)
struct ReportCommandTests {
    /// A small rated database in a fresh folder.
    func ratedDB() throws -> (dir: URL, db: URL) {
        let dir = try CLI.tempDir()  // the caller removes it
        let db = dir.appendingPathComponent("r.sqlite")
        let r = try CLI.run(["rate", "Levels/first-steps.json", "Levels/springboard.json", "--method", "grid", "--agents", "random,greedy",
                             "--candidates", "8", "--refine", "1x2", "--samples", "2", "--episodes", "4",
                             "--sigmas", "0,0.05", "--db", db.path])
        try #require(r.status == 0, "\(r.stderr)")
        return (dir, db)
    }

    @Test("writes the two CSV files and a well-formed HTML page, one row and one section per level")
    func writesReports() throws {
        let (dir, db) = try ratedDB()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("reports/nested")
        let r = try CLI.run(["report", "--db", db.path, "--out", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let difficulty = try String(contentsOf: out.appendingPathComponent("difficulty.csv"), encoding: .utf8)
        let rows = difficulty.split(separator: "\r\n")
        #expect(rows.count == 3)
        #expect(rows[0].hasPrefix("rank,level,"))
        #expect(rows.dropFirst().allSatisfy { $0.contains("First Steps") || $0.contains("Springboard") })
        let episodes = try String(contentsOf: out.appendingPathComponent("episodes.csv"), encoding: .utf8)
        #expect(episodes.split(separator: "\r\n").count == 1 + 2 * 2 * 2 * 4)
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        let body = String(html.drop { $0 != "\n" })
        let parser = XMLParser(data: Data(body.utf8))
        #expect(parser.parse(), "report.html is not well formed: \(parser.parserError.map { "\($0)" } ?? "")")
        #expect(html.contains("First Steps") && html.contains("Springboard"))
        #expect(r.stdout.contains("wrote \(out.path)/difficulty.csv"))
    }

    @Test("--format csv writes only the CSV files")
    func csvOnly() throws {
        let (dir, db) = try ratedDB()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("csv")
        #expect(try CLI.run(["report", "--db", db.path, "--out", out.path, "--format", "csv"]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["difficulty.csv", "episodes.csv", "humans.csv", "pegs.csv"])
        // Nobody played: humans.csv is its header, and nothing is said of people.
        let humans = try String(contentsOf: out.appendingPathComponent("humans.csv"), encoding: .utf8)
        #expect(humans == "level,level_hash,human_games,human_players,human_wins,human_win_rate,human_win_low,human_win_high,"
            + "tier,sigma50_relation,sigma50_rad,sigma50_low,sigma50_high\r\n")
    }

    @Test("--min-human-games below 1 is refused, naming the option and the value")
    func minHumanGames() throws {
        let r = try CLI.run(["report", "--db", "nothing.sqlite", "--min-human-games", "0"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("--min-human-games: 0 is not a number of games >= 1"), "\(r.stderr)")
    }

    @Test("pegs.csv: one row per orange peg, counting the greedy games within a factor 2 of sigma50, all replayed from the store")
    func pegsCSV() throws {
        // The adaptive method, so skill games land near sigma50 (the grid above plays none there).
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("a.sqlite")
        let rate = try CLI.run(["rate", "Levels/first-steps.json", "Levels/springboard.json", "--agents", "greedy", "--budget", "16",
                                "--candidates", "8", "--refine", "1x2", "--samples", "2", "--db", db.path])
        try #require(rate.status == 0, "\(rate.stderr)")
        let out = dir.appendingPathComponent("pegs")
        let r = try CLI.run(["report", "--db", db.path, "--out", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "every stored game replays: \(r.stderr)")
        func rows(_ name: String) throws -> [[String]] {
            try String(contentsOf: out.appendingPathComponent(name), encoding: .utf8).split(separator: "\r\n")
                .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        }
        let pegs = try rows("pegs.csv")
        #expect(pegs.first == ["level", "level_hash", "peg_id", "x", "y", "hit_rate", "lost_with_rate", "games",
                               "games_lost", "sigma_low", "sigma_high"])
        // The level files' orange pegs, in the level order of difficulty.csv.
        let levelOrder = try rows("difficulty.csv").dropFirst().map { $0[1] }
        var expected: [[String]] = []
        for name in levelOrder {
            let file = name == "First Steps" ? "first-steps" : "springboard"
            let level = try LevelCodec.decode(Repository.data("Levels/\(file).json"))
            expected += level.pegs.filter { $0.kind == .orange }.map {
                [name, String($0.id), DecimalText.number($0.center.x), DecimalText.number($0.center.y)]
            }
        }
        #expect(pegs.dropFirst().map { [$0[0], $0[2], $0[3], $0[4]] } == expected)
        // Games counted: the greedy games of episodes.csv whose sigma lies in the row's window.
        let episodes = try rows("episodes.csv").dropFirst()
        for name in levelOrder {
            let row = try #require(pegs.first { $0[0] == name })
            let (low, high) = (try #require(Double(row[9])), try #require(Double(row[10])))
            // The agent label is quoted (it holds commas): sigma and won are read from the end.
            let near = episodes.filter { $0[1] == name && $0[2] == "greedy" && (low...high).contains(Double($0[$0.count - 10])!) }
            #expect(row[7] == String(near.count) && row[8] == String(near.filter { $0[$0.count - 7] == "false" }.count), "\(name)")
        }
        // Springboard counts 3 games, 1 of them lost with peg 4 (hit in the other 2) and no other orange.
        #expect(pegs.first { $0[0] == "Springboard" }.map { Array($0[2...8]) } == ["4", "578.54", "124.98", "0.6667", "1", "3", "1"])
        #expect(pegs.filter { $0[0] == "Springboard" }.dropFirst().allSatisfy { $0[5] == "1" && $0[6] == "0" })
        #expect(r.stdout.contains("\(out.path)/pegs.csv"))
    }

    @Test("a database from a newer Peggle Gym is refused and left unchanged")
    func newerSchema() throws {
        let (dir, db) = try ratedDB()
        defer { try? FileManager.default.removeItem(at: dir) }
        let q = try DatabaseQueue(path: db.path)
        try q.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        try q.close()
        let before = try Data(contentsOf: db)
        let r = try CLI.run(["report", "--db", db.path, "--out", dir.appendingPathComponent("o").path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("written by a newer Peggle Gym") && r.stderr.contains("v99"))
        #expect(try Data(contentsOf: db) == before)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o").path))
    }

    @Test("bad input is refused with exit code 2 and no report is written")
    func badInput() throws {
        let (dir, db) = try ratedDB()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("plain.txt")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--db", dir.appendingPathComponent("none.sqlite").path], "no such database"),
            (["--db", file.path], "not an SQLite database"),
            (["--db", db.path, "--out", file.path], "is a file, not a folder"),
            (["--db", db.path, "--out", file.appendingPathComponent("sub").path], "cannot create the folder"),
            (["--db", db.path, "--format", "pdf"], "--format: 'pdf'"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(["report"] + args, cwd: dir)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Reports").path))
    }
}
