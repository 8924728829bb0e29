import Foundation
import PeggleTestSupport
import Testing

@Suite("peggle estimate")
struct EstimateCommandTests {
    static let levels = ["Levels/first-steps.json", "Levels/spiral.json"]

    @Test("--json: one object per level, with its name, file, sigma50 inside its interval, and tier")
    func json() throws {
        let r = try CLI.run(["estimate"] + Self.levels + ["--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["level"] as? String } == ["First Steps", "Spiral"])
        #expect(array.map { $0["file"] as? String } == Self.levels)
        for o in array {
            #expect(Set(o.keys) == ["level", "file", "sigma50", "sigma50_low", "sigma50_high", "tier"])
            let s = try #require(o["sigma50"] as? Double), lo = try #require(o["sigma50_low"] as? Double),
                hi = try #require(o["sigma50_high"] as? Double)
            #expect(0.001 <= lo && lo <= s && s <= hi && hi <= 1)
            #expect(["very hard", "hard", "medium", "easy"].contains(o["tier"] as? String ?? ""))
        }
    }

    @Test("--features: a CSV header of the model's features and one row per level")
    func features() throws {
        let r = try CLI.run(["estimate", "--features"] + Self.levels)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\r\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("file,level,level_hash,orange_count,peg_count,"))
        #expect(lines[1].hasPrefix("Levels/first-steps.json,First Steps,f860f0613d8670e1,6,39,0,"))
    }

    @Test("a model file that does not fit is refused naming the file and the field, with exit code 2")
    func badModel() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("model.json")
        try Data(#"{"format": 2}"#.utf8).write(to: bad)
        let r = try CLI.run(["estimate", Self.levels[0], "--model", bad.path])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("--model \(bad.path): not a model file"), "\(r.stderr)")
        let both = try CLI.run(["estimate", Self.levels[0], "--json", "--features"])
        #expect(both.status == 2 && both.stderr.contains("--json and --features: choose one"), "\(both.stderr)")
    }
}
