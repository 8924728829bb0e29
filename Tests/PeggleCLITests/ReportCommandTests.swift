import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif
import GRDB
import PeggleStore
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
        #expect(names == ["difficulty.csv", "episodes.csv"])
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
