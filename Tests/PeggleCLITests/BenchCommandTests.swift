import Foundation
import Testing

@Suite("peggle bench")
struct BenchCommandTests {
    @Test("reports the fields the issue asks for, and the work does not depend on the thread count")
    func fieldsAndThreads() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("bench.csv")
        let r = try CLI.run(["bench", "--scene", "grid", "--shots", "24", "--threads", "1,2", "--repeat", "1",
                             "--json", "--csv", csv.path])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try r.stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(rows.count == 2)
        for key in ["steps_per_s", "shots_per_s", "mean_steps_per_shot", "threads", "game_shots_per_s", "steps"] {
            #expect(rows.allSatisfy { $0[key] != nil }, "missing \(key)")
        }
        #expect(rows[0]["threads"] as? Int == 1)
        #expect(rows[1]["threads"] as? Int == 2)
        // Same shots split over two threads: exactly the same simulated steps.
        #expect(rows[0]["steps"] as? Int == rows[1]["steps"] as? Int)
        #expect(rows[0]["game_steps"] as? Int == rows[1]["game_steps"] as? Int)
        #expect(rows[0]["game_shots"] as? Int == rows[1]["game_shots"] as? Int)
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("threads,shots,steps"))
    }

    @Test("--vector and --serve run the same workload, in process and through a real pipe")
    func vectorAndServe() throws {
        func row(_ mode: String) throws -> [String: Any] {
            let r = try CLI.run(["bench", "--\(mode)", "--envs", "4", "--batches", "3", "--repeat", "1", "--threads", "2", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        let vector = try row("vector"), serve = try row("serve")
        #expect(vector["mode"] as? String == "vector" && serve["mode"] as? String == "serve")
        for key in ["shots_per_s", "threads", "cores", "envs"] { #expect(vector[key] != nil && serve[key] != nil, "\(key)") }
        #expect(serve["in_process_shots_per_s"] != nil && serve["serve_over_in_process"] != nil)
        // Four environments, three steps, no episode ends that fast: twelve shots either way.
        #expect(vector["shots"] as? Int == 12)
        #expect(serve["shots"] as? Int == vector["shots"] as? Int)
    }

    @Test("--render times the rasteriser and the SVG renderer on one mid-game frame")
    func render() throws {
        let r = try CLI.run(["bench", "--render", "--renders", "2", "--repeat", "1", "--width", "200", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(row["mode"] as? String == "render")
        #expect(row["width"] as? Int == 200 && row["height"] as? Int == 150)
        #expect((row["ms_per_rgb_render"] as? Double ?? 0) > 0 && (row["ms_per_svg_render"] as? Double ?? 0) > 0)
    }

    @Test("bad options are refused with exit code 2",
          arguments: [["--scene", "cube"], ["--threads", "0"], ["--threads", "x"], ["--shots", "1"],
                      ["--vector", "--envs", "0"], ["--serve", "--batches", "0"], ["--render", "--width", "5"],
                      ["--render", "--renders", "0"]])
    func badOptions(args: [String]) throws {
        let r = try CLI.run(["bench"] + args)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("error: "))
    }
}
