import Foundation
import GRDB
import Testing

/// `report` only reads; a damaged database is refused by `report` and `rate` and left as it was.
@Suite("database safety", .serialized)
struct DatabaseSafetyTests {
    static func files(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    /// A rated database in `dir`, closed cleanly (its WAL folded in and removed), as a copy or a
    /// finished run leaves it.
    static func ratedDB(in dir: URL) throws -> URL {
        let db = dir.appendingPathComponent("r.sqlite")
        let r = try CLI.run(["rate", "Levels/first-steps.json", "--agents", "random", "--episodes", "30",
                             "--db", db.path])
        try #require(r.status == 0, "\(r.stderr)")
        try DatabaseQueue(path: db.path).close()
        try #require(try files(dir) == ["r.sqlite"])
        return db
    }

    @Test("report writes nothing beside the database: no -wal, no -shm, the same bytes")
    func reportOnlyReads() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.ratedDB(in: dir)
        let before = try Data(contentsOf: db)
        let out = dir.appendingPathComponent("out")
        let r = try CLI.run(["report", "--db", db.path, "--out", out.path, "--format", "csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Data(contentsOf: db) == before)
        #expect(try Self.files(dir) == ["out", "r.sqlite"])
    }

    @Test("report on a 0-byte file says it is empty and leaves it empty")
    func reportOnAnEmptyFile() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("empty.sqlite")
        try Data().write(to: db)
        let r = try CLI.run(["report", "--db", db.path, "--out", dir.appendingPathComponent("out").path])
        #expect(r.status == 2)
        #expect(r.stderr == "error: \(db.path): is empty (0 bytes), not a rating database; fill it with `peggle rate`\n")
        #expect(try Data(contentsOf: db).isEmpty)
        #expect(try Self.files(dir) == ["empty.sqlite"])
    }

    @Test("a database cut short is refused by report and by rate, and left as it was")
    func truncatedDatabase() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.ratedDB(in: dir)
        let whole = try Data(contentsOf: db)
        let cut = whole.prefix(whole.count - 1000)
        try cut.write(to: db)
        for args in [["report", "--db", db.path, "--out", dir.appendingPathComponent("out").path],
                     ["rate", "Levels/first-steps.json", "--agents", "random", "--episodes", "31",
                      "--db", db.path]] {
            let r = try CLI.run(args)
            #expect(r.status == 2, "\(args[0])")
            #expect(r.stderr.hasPrefix("error: \(db.path): the database is damaged ("), "\(args[0]): \(r.stderr)")
            #expect(try Data(contentsOf: db) == cut, "\(args[0]) changed the file")
            #expect(try Self.files(dir) == ["r.sqlite"], "\(args[0])")
        }
    }
}
