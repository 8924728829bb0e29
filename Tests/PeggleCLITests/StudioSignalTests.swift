import Foundation
import PeggleTestSupport
import GRDB
import Testing

/// `peggle studio --db`: a recorded game is in the `.sqlite` file itself however the studio is
/// stopped. SIGINT, SIGTERM and SIGHUP stop it gracefully and it closes the database, so SQLite
/// removes the `-wal`; even SIGKILL after a recorded game leaves the game in the `.sqlite` alone,
/// since every recorded game is checkpointed.
@Suite("studio signals", .serialized)
struct StudioSignalTests {
    /// One orange peg straight below the cannon and one ball: the shot straight down wins.
    static let level = CLI.levelText(name: "Straight Down", pegs: ["{\"id\": 1, \"kind\": \"orange\", \"x\": 400, \"y\": 200}"])
        .replacingOccurrences(of: "\"balls\": 3", with: "\"balls\": 1")

    /// Starts the studio on `db`, records one finished game through `/api/games`, and returns the process.
    static func studioWithAGame(_ dir: URL, db: URL) throws -> Process {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["studio", "--levels", dir.appendingPathComponent("levels").path, "--db", db.path, "--port", "0", "--threads", "1"]
        p.currentDirectoryURL = dir
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        var said = ""
        while !said.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        // "Peggle Studio: http://127.0.0.1:PORT/ (...)"
        let url = try #require(said.split(separator: " ").dropFirst(2).first, "\(said)")
        let port = try #require(Int(String(url.split(separator: ":").last!.dropLast())), "\(said)")
        let body = String(decoding: try JSONSerialization.data(withJSONObject: [
            "level": level, "seed": 5, "angles": [0.0], "player": "Ann"]), as: UTF8.self)
        let r = try StudioHTTP.post(port: port, "/api/games", body)
        try #require(r.status == 200, "\(r.body)")
        #expect(r.body.contains("\"stored\":true"), "\(r.body)")
        return p
    }

    /// The games in the `.sqlite` file alone: copied without its `-wal` and `-shm`, then read.
    static func gamesInTheFileAlone(_ db: URL) throws -> [String] {
        let copy = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: copy) }
        let alone = copy.appendingPathComponent("copy.sqlite")
        try FileManager.default.copyItem(at: db, to: alone)
        let queue = try DatabaseQueue(path: alone.path)
        defer { try? queue.close() }
        return try queue.read { db in
            try String.fetchAll(db, sql: "SELECT agent.label || ' ' || episode.status FROM episode JOIN agent ON agent.id = episode.agent_id")
        }
    }

    static func waitForExit(_ p: Process, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        return !p.isRunning
    }

    @Test("SIGINT, SIGTERM and SIGHUP each stop the studio with its games in the .sqlite and no -wal beside it",
          arguments: [("SIGINT", SIGINT), ("SIGTERM", SIGTERM), ("SIGHUP", SIGHUP)])
    func aSignalStopsItWhole(_ signal: (name: String, number: Int32)) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("games.sqlite")
        let p = try Self.studioWithAGame(dir, db: db)
        kill(p.processIdentifier, signal.number)
        guard Self.waitForExit(p) else {
            p.interrupt()
            kill(p.processIdentifier, SIGKILL)
            Issue.record("\(signal.name): the studio did not stop within 20 s")
            return
        }
        #expect(p.terminationReason == .exit && p.terminationStatus == 0, "\(signal.name): \(p.terminationReason) \(p.terminationStatus)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(files == ["games.sqlite", "levels"], "\(signal.name)")
        #expect(try Self.gamesInTheFileAlone(db) == ["human(name=Ann) won"], "\(signal.name)")
    }

    @Test("killed outright after a recorded game, the .sqlite alone still holds it (checkpointed when recorded)")
    func killedOutright() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("games.sqlite")
        let p = try Self.studioWithAGame(dir, db: db)
        kill(p.processIdentifier, SIGKILL)
        #expect(Self.waitForExit(p))
        #expect(try Self.gamesInTheFileAlone(db) == ["human(name=Ann) won"])
    }
}

/// A JSON POST to the studio on 127.0.0.1 (no HTTP client library in this target).
enum StudioHTTP {
    static func post(port: Int, _ path: String, _ body: String) throws -> (status: Int, body: String) {
        try RawHTTP.request(port: port, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n", body: body)
    }
}
