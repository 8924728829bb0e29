import Foundation
import Testing

@Suite("peggle play")
struct PlayCommandTests {
    let grid = "Levels/bench-grid.json"

    @Test("the same seed and angles give byte-identical output")
    func deterministicOutput() throws {
        let args = ["play", grid, "--angles", "0.1,-0.5,0.9,0.3,-1.2,0.05", "--seed", "7"]
        let a = try CLI.run(args), b = try CLI.run(args)
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
        #expect(a.stdout.split(separator: "\n").count == 7)  // six shots and a summary
        let json1 = try CLI.run(args + ["--json"]), json2 = try CLI.run(args + ["--json"])
        #expect(json1.stdout == json2.stdout)
    }

    @Test("--json reports every shot and a summary consistent with them")
    func jsonReport() throws {
        let r = try CLI.run(["play", grid, "--angles", "0.2,-0.4,0.7", "--seed", "1", "--json"])
        #expect(r.status == 0)
        let obj = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let shots = try #require(obj["shots"] as? [[String: Any]])
        let summary = try #require(obj["summary"] as? [String: Any])
        #expect(shots.count == 3)
        let points = shots.compactMap { $0["points"] as? Int }.reduce(0, +)
        #expect(summary["score"] as? Int == points)
        #expect(summary["shots"] as? Int == 3)
        #expect(summary["orange_total"] as? Int == 25)
        let cleared = shots.compactMap { $0["orange_cleared"] as? Int }.reduce(0, +)
        #expect(summary["orange_cleared"] as? Int == cleared)
        // Classic: 10 balls, one spent per shot, free balls added back.
        let free = shots.compactMap { $0["free_balls"] as? Int }.reduce(0, +)
        #expect(summary["balls_left"] as? Int == 10 - 3 + free)
    }

    @Test("angles that are not numbers or out of range are refused with exit code 2",
          arguments: [("0.1,abc", "'abc' is not a number"), ("1.7", "outside -1.5...1.5"),
                      ("-1.51", "outside -1.5...1.5"), ("nan", "not a finite number"), ("0.1,,0.2", "'' is not a number")])
    func badAngles(text: String, message: String) throws {
        let r = try CLI.run(["play", grid, "--angles", text])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--angles"))
        #expect(r.stderr.contains(message))
        #expect(r.stdout.isEmpty)
    }

    @Test("a game that ends early says how many angles were not played")
    func gameOverEarly() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("one.json")
        try CLI.levelText(pegs: ["{\"kind\": \"orange\", \"x\": 400, \"y\": 300}"]).write(to: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["play", file.path, "--angles", "0,0,0"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("won: score 100"))
        #expect(r.stdout.contains("2 angles not played"))
    }
}
