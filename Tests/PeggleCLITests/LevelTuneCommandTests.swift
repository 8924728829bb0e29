import Foundation
import PeggleTestSupport
import Testing

/// `peggle level tune`: the file it reads is never written; bad input is named; a tier it cannot
/// reach is said so with exit code 1 and no file. The level here is trivially easy (a big orange
/// peg under the cannon), so its ratings are short.
@Suite("peggle level tune")
struct LevelTuneCommandTests {
    static let easyLevel = CLI.levelText(name: "Wide Open", pegs: [
        "{\"id\": 1, \"kind\": \"orange\", \"x\": 400, \"y\": 300, \"radius\": 30}",
        "{\"id\": 2, \"kind\": \"blue\", \"x\": 300, \"y\": 400, \"radius\": 12}",
        "{\"id\": 3, \"kind\": \"blue\", \"x\": 500, \"y\": 400, \"radius\": 12}",
    ])

    /// A folder holding `easy.json`, and the file's bytes.
    static func folder() throws -> (URL, Data) {
        let dir = try CLI.tempDir()
        let data = Data(easyLevel.utf8)
        try data.write(to: dir.appendingPathComponent("easy.json"))
        return (dir, data)
    }

    @Test func anUnreachableTierExitsWithOneAndWritesNothing() throws {
        let (dir, data) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "tune", "easy.json", "--tier", "very-hard", "--max-edits", "1", "--max-ratings", "1",
                             "--threads", "2", "--json"], cwd: dir)
        #expect(r.status == 1, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["status"] as? String == "not_reached")
        #expect(report["out"] == nil)  // nothing written
        #expect(report["max_edits"] as? Int == 1 && report["max_ratings"] as? Int == 1)
        #expect(report["tier"] as? String == "very-hard" && report["level"] as? String == "Wide Open")
        let before = try #require(report["before"] as? [String: Any])
        #expect(before["tier"] as? String == "easy" && before["edits"] as? Int == 0)
        #expect((report["edits"] as? [Any])?.count ?? 9 <= 1)
        #expect(try Data(contentsOf: dir.appendingPathComponent("easy.json")) == data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["easy.json"])

        // The text report says so too, with the same exit code.
        let t = try CLI.run(["level", "tune", "easy.json", "--tier", "very-hard", "--max-edits", "1", "--max-ratings", "1"], cwd: dir)
        #expect(t.status == 1)
        #expect(t.stdout.contains("not reached: no rated level within 1 edit and 1 rating lies in tier very hard"), "\(t.stdout)")
        #expect(t.stdout.hasSuffix("; nothing written\n"))
    }

    @Test func aLevelInTheTierAlreadyIsLeftAlone() throws {
        let (dir, data) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "tune", "easy.json", "--tier", "easy"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("easy.json: Wide Open, to tier easy\nbefore: estimate "))
        #expect(r.stdout.hasSuffix("already in tier easy: nothing to do, nothing written\n"))
        #expect(try Data(contentsOf: dir.appendingPathComponent("easy.json")) == data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["easy.json"])
    }

    /// Bad input: one message naming the option or file and the value, exit code 2, nothing written.
    @Test func badInputIsNamed() throws {
        let (dir, data) = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("{}".utf8).write(to: dir.appendingPathComponent("other.json"))
        let cases: [([String], String)] = [
            (["missing.json", "--tier", "hard"], "missing.json"),
            (["easy.json", "--tier", "extreme"], "'extreme'"),
            (["easy.json", "--tier", "unrated"], "'unrated'"),
            (["easy.json", "--tier", "hard", "-o", "easy.json"], "error: --out: easy.json is the level being tuned; it is never written"),
            (["easy.json", "--tier", "hard", "-o", "./easy.json"], "is the level being tuned"),
            (["easy.json", "--tier", "hard", "-o", "other.json"], "error: --out: other.json exists; the tuner never replaces a file"),
            (["easy.json", "--tier", "hard", "-o", "out.txt"], "error: --out: out.txt must end in .json"),
            (["easy.json", "--tier", "hard", "-o", "nowhere/out.json"], "nowhere/out.json: the folder nowhere does not exist"),
            (["easy.json", "--tier", "hard", "--max-edits", "0"], "error: --max-edits: 0 is outside 1...20"),
            (["easy.json", "--tier", "hard", "--threads", "0"], "error: --threads: 0 is outside 1...256"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(["level", "tune"] + args, cwd: dir)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
        #expect(try Data(contentsOf: dir.appendingPathComponent("easy.json")) == data)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["easy.json", "other.json"])
    }
}
