import Foundation
import GRDB
import PeggleGame
import PeggleStore
import Testing

/// `peggle db merge`: shards folded into one database, idempotent, refusing bad input untouched.
@Suite("peggle db merge", .serialized)
struct DbMergeCommandTests {
    func rate(_ db: URL, _ levels: [String], seed: Int) throws {
        let r = try CLI.run(["rate"] + levels + ["--agents", "random", "--episodes", "4", "--seed", String(seed), "--db", db.path])
        try #require(r.status == 0, "\(r.stderr)")
    }

    @Test("shards of one rating merge into the database one process would have written; again adds nothing")
    func shardsMergeIntoTheWhole() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.sqlite"), b = dir.appendingPathComponent("b.sqlite")
        let whole = dir.appendingPathComponent("whole.sqlite"), into = dir.appendingPathComponent("into.sqlite")
        try rate(a, ["Levels/first-steps.json"], seed: 0)
        try rate(b, ["Levels/spiral.json"], seed: 0)
        try rate(whole, ["Levels/first-steps.json", "Levels/spiral.json"], seed: 0)
        let r = try CLI.run(["db", "merge", a.path, b.path, "--into", into.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(a.path): 4 games added, 0 already there, 1 levels, 1 agents and 1 runs added"))
        #expect(r.stdout.contains("\(b.path): 4 games added, 0 already there, 1 levels, 0 agents and 1 runs added"))
        let merged = try PeggleStore(readingOnly: into.path), reference = try PeggleStore(readingOnly: whole.path)
        #expect(try merged.games() == reference.games())
        #expect(try merged.counts().shots == reference.counts().shots)
        let again = try CLI.run(["db", "merge", a.path, b.path, "--into", into.path])
        #expect(again.status == 0)
        #expect(again.stdout.contains("\(a.path): 0 games added, 4 already there, 0 levels, 0 agents and 0 runs added"))
        #expect(try PeggleStore(readingOnly: into.path).counts().episodes == 8)
        // A rating run into the merged database finds every game there.
        let rerun = try CLI.run(["rate", "Levels/first-steps.json", "Levels/spiral.json", "--agents", "random", "--episodes", "4",
                                 "--db", into.path])
        #expect(rerun.stdout.contains("0 games added, 8 already stored"))
    }

    @Test("a game stored twice with different outcomes is a conflict: reported, kept as it was, exit 1")
    func conflicts() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.sqlite"), b = dir.appendingPathComponent("b.sqlite")
        try rate(a, ["Levels/first-steps.json"], seed: 0)
        try FileManager.default.copyItem(at: a, to: b)
        // Another engine would have scored the game with seed 2 otherwise.
        let q = try DatabaseQueue(path: b.path)
        try q.write { try $0.execute(sql: "UPDATE episode SET score = score + 10 WHERE seed = 2") }
        let scores = { (url: URL) in try DatabaseQueue(path: url.path).read { try Int.fetchAll($0, sql: "SELECT score FROM episode ORDER BY seed") } }
        let before = try scores(a)
        let r = try CLI.run(["db", "merge", b.path, "--into", a.path])
        #expect(r.status == 1)
        #expect(r.stdout.contains("0 games added, 3 already there"))
        #expect(r.stdout.contains("1 conflicting (kept as they were in \(a.path))"))
        #expect(r.stderr.contains("conflict: level "))
        #expect(r.stderr.contains("seed 2, sigma 0.0"))
        #expect(try scores(a) == before)
    }

    @Test("bad shards and a bad target are refused before anything is written",
          arguments: [("missing", "no such database file"), ("text", "not an SQLite database"), ("same", "is the database merged into"),
                      ("twice", "named twice"), ("newer", "newer")])
    func refused(kind: String, message: String) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.sqlite"), into = dir.appendingPathComponent("into.sqlite")
        try rate(good, ["Levels/first-steps.json"], seed: 0)
        var args = ["db", "merge", good.path]
        switch kind {
        case "missing": args.append(dir.appendingPathComponent("nope.sqlite").path)
        case "text":
            let t = dir.appendingPathComponent("notes.sqlite")
            try "not a database\n".write(to: t, atomically: true, encoding: .utf8)
            args.append(t.path)
        case "same": args.append(into.path)
        case "twice": args.append(good.path)
        default:
            let newer = dir.appendingPathComponent("newer.sqlite")
            try FileManager.default.copyItem(at: good, to: newer)
            try DatabaseQueue(path: newer.path).write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
            args.append(newer.path)
        }
        if kind == "same" { try FileManager.default.copyItem(at: good, to: into) }
        let before = try? Data(contentsOf: into)
        let r = try CLI.run(args + ["--into", into.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        // Nothing written: the target is as it was (absent, or the same bytes).
        #expect((try? Data(contentsOf: into)) == before)
    }

    @Test("--json: one object with each shard's counts and the totals (what the lines say); conflicts still exit 1")
    func json() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.sqlite"), b = dir.appendingPathComponent("b.sqlite")
        let into = dir.appendingPathComponent("into.sqlite")
        try rate(a, ["Levels/first-steps.json"], seed: 0)
        try rate(b, ["Levels/spiral.json", "Levels/first-steps.json"], seed: 0)
        let r = try CLI.run(["db", "merge", a.path, b.path, "--into", into.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").count == 1)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let counts = ["games_added", "games_already_there", "levels_added", "agents_added", "runs_added", "conflicts"]
        #expect(Set(o.keys) == Set(counts + ["into", "shards"]))
        #expect(counts.map { o[$0] as? Int } == [8, 4, 2, 1, 2, 0])
        #expect(o["into"] as? String == into.path)
        let shards = try #require(o["shards"] as? [[String: Any]])
        #expect(shards.map { $0["shard"] as? String } == [a.path, b.path])
        #expect(counts.map { shards[0][$0] as? Int } == [4, 0, 1, 1, 1, 0])
        #expect(counts.map { shards[1][$0] as? Int } == [4, 4, 1, 0, 1, 0])
        // A conflict: counted, named on standard error, exit 1 as without --json.
        try DatabaseQueue(path: b.path).write { try $0.execute(sql: "UPDATE episode SET score = score + 10 WHERE seed = 2") }
        let c = try CLI.run(["db", "merge", b.path, "--into", into.path, "--json"])
        #expect(c.status == 1)
        let conflicted = try #require(try JSONSerialization.jsonObject(with: Data(c.stdout.utf8)) as? [String: Any])
        #expect(conflicted["conflicts"] as? Int == 2 && conflicted["games_added"] as? Int == 0)
        #expect(c.stderr.contains("conflict: level "))
        // A refused shard: nothing on standard output.
        let refused = try CLI.run(["db", "merge", dir.appendingPathComponent("nope.sqlite").path, "--into", into.path, "--json"])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
    }

    @Test("--level merges only those levels (files or folders, by content); a bad level file writes nothing")
    func onlyLevels() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let both = dir.appendingPathComponent("both.sqlite"), part = dir.appendingPathComponent("part.sqlite")
        let one = dir.appendingPathComponent("one.sqlite")
        try rate(both, ["Levels/first-steps.json", "Levels/spiral.json"], seed: 0)
        try rate(one, ["Levels/spiral.json"], seed: 0)
        let r = try CLI.run(["db", "merge", both.path, "--into", part.path, "--level", "Levels/spiral.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\(both.path): 4 games added, 0 already there, 1 levels, 1 agents and 1 runs added"))
        #expect(try PeggleStore(readingOnly: part.path).games() == PeggleStore(readingOnly: one.path).games())
        let bad = dir.appendingPathComponent("bad.json")
        try "{}".write(to: bad, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: part)
        let refused = try CLI.run(["db", "merge", both.path, "--into", part.path, "--level", bad.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("error: \(bad.path): "), "\(refused.stderr)")
        #expect(try Data(contentsOf: part) == before)
    }
}
