import Foundation
import Testing

@Suite("peggle-bench")
struct BenchCommandTests {
    /// One JSON object per line of standard output.
    func jsonRows(_ r: RunResult) throws -> [[String: Any]] {
        try r.stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("bench physics reports the fields the issue asks for, and the work does not depend on the thread count")
    func physicsFieldsAndThreads() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("bench.csv")
        let r = try CLI.bench(["physics", "--scene", "grid", "--shots", "24", "--threads", "1,2", "--repeat", "1",
                             "--json", "--csv", csv.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        let rows = try jsonRows(r)
        #expect(rows.count == 2)
        for key in ["steps_per_s", "shots_per_s", "mean_steps_per_shot", "threads", "game_shots_per_s", "steps",
                    "engine", "steps_per_s_runs", "game_episodes"] {
            #expect(rows.allSatisfy { $0[key] != nil }, "missing \(key)")
        }
        #expect(rows[0]["threads"] as? Int == 1)
        #expect(rows[1]["threads"] as? Int == 2)
        // Same shots split over two threads: exactly the same simulated steps.
        #expect(rows[0]["steps"] as? Int == rows[1]["steps"] as? Int)
        #expect(rows[0]["game_steps"] as? Int == rows[1]["game_steps"] as? Int)
        #expect(rows[0]["game_shots"] as? Int == rows[1]["game_shots"] as? Int)
        // The CSV's header is the one `bench --scene grid --csv` always wrote (docs compare with it),
        // and each line holds the JSON row's values, Doubles with their ".0".
        let lines = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == "threads,shots,steps,seconds,steps_per_s,shots_per_s,mean_steps_per_shot,game_shots_per_s,game_mean_steps_per_shot")
        let first = lines[1].split(separator: ",").map(String.init)
        #expect(first.count == 9)
        #expect(first[0] == "1" && first[1] == "24" && first[2] == "\(rows[0]["steps"] as? Int ?? -1)")
        #expect(first[6] == "\(rows[0]["mean_steps_per_shot"] as? Double ?? -1)")
    }

    @Test("peggle-bench alone runs the physics benchmark, as `peggle bench` did")
    func physicsIsTheDefault() throws {
        let r = try CLI.bench(["--shots", "4", "--repeat", "1", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        let row = try #require(try jsonRows(r).first)
        #expect(row["shots"] as? Int == 4 && row["scene"] as? String == "grid")
    }

    @Test("bench vector and bench serve run the same workload, in process and through a real pipe")
    func vectorAndServe() throws {
        func row(_ mode: String) throws -> [String: Any] {
            let r = try CLI.bench([mode, "--envs", "4", "--batches", "3", "--repeat", "1", "--threads", "2", "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(try jsonRows(r).first)
        }
        let vector = try row("vector"), serve = try row("serve")
        #expect(vector["mode"] as? String == "vector" && serve["mode"] as? String == "serve")
        for key in ["shots_per_s", "threads", "cores", "envs"] { #expect(vector[key] != nil && serve[key] != nil, "\(key)") }
        #expect(serve["in_process_shots_per_s"] != nil && serve["serve_over_in_process"] != nil)
        #expect(serve["obs_encoding"] as? String == "f32")
        // The in-process row has no serve fields (the old rows left the keys out too).
        #expect(vector["obs_encoding"] == nil && vector["in_process_shots_per_s"] == nil)
        // Four environments, three steps, no episode ends that fast: twelve shots either way.
        #expect(vector["shots"] as? Int == 12)
        #expect(serve["shots"] as? Int == vector["shots"] as? Int)
    }

    @Test("bench render times the rasteriser and the SVG renderer on one mid-game frame")
    func render() throws {
        let r = try CLI.bench(["render", "--renders", "2", "--repeat", "1", "--width", "200", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(try jsonRows(r).first)
        #expect(row["mode"] as? String == "render")
        #expect(row["width"] as? Int == 200 && row["height"] as? Int == 150)
        #expect((row["ms_per_rgb_render"] as? Double ?? 0) > 0 && (row["ms_per_svg_render"] as? Double ?? 0) > 0)
    }

    @Test("bench greedy: one row per thread count, the same simulations on each")
    func greedy() throws {
        let r = try CLI.bench(["greedy", "--level", "Levels/first-steps.json", "--decisions", "2", "--candidates", "8",
                             "--refine", "1x2", "--threads", "1,2", "--repeat", "1", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try jsonRows(r)
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0["mode"] as? String == "greedy" && $0["ms_per_decision"] != nil })
        #expect(rows[0]["simulations"] as? Int == rows[1]["simulations"] as? Int)
        // The tuning options are `play`'s: the label names them.
        let label = rows[0]["agent"] as? String ?? ""
        #expect(label.contains("candidates=8") && label.contains("refine=1x2"), "\(label)")
    }

    @Test("bench rating rates with rate's options into memory: the grid method, one agent")
    func rating() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = dir.appendingPathComponent("rating.csv")
        let r = try CLI.bench(["rating", "Levels/first-steps.json", "Levels/spiral.json", "--method", "grid",
                             "--agents", "random", "--episodes", "2", "--sigmas", "0", "--threads", "1", "--json", "--csv", csv.path])
        #expect(r.status == 0, "\(r.stderr)")
        let row = try #require(try jsonRows(r).first)
        #expect(row["mode"] as? String == "rating" && row["levels"] as? Int == 2)
        #expect(row["games"] as? Int == 4)
        #expect(row["games_per_kind"] as? [String: Int] == ["random": 4])
        let header = try String(contentsOf: csv, encoding: .utf8).split(separator: "\n").first
        #expect(header == "mode,levels,threads,budget,precision,seconds,cpu_seconds,games,levels_per_hour")
        // The same refusal as `peggle rate` gives: one option group, one check.
        let bad = try CLI.bench(["rating", "Levels/first-steps.json", "--method", "grid", "--budget", "5"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "error: --budget: only with --method adaptive (the grid plays --episodes games at every --sigmas)\n")
    }

    @Test("bench generate: one row per distribution")
    func generate() throws {
        let r = try CLI.bench(["generate", "--levels", "3", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try jsonRows(r)
        #expect(rows.map { $0["distribution"] as? String } == ["easy", "hard"])
        #expect(rows.allSatisfy { $0["levels"] as? Int == 3 && $0["us_per_reset_generated"] != nil })
    }

    @Test("peggle-bench --help lists the nine benchmarks")
    func helpListsTheSubcommands() throws {
        let r = try CLI.bench(["--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("SUBCOMMANDS:"), "\(r.stdout)")
        let listed = r.stdout.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard line.hasPrefix("  "), let first = words.first else { return nil }
            return String(first)
        }
        for name in ["physics", "vector", "serve", "greedy", "render", "rating", "generate", "calibration", "freeflight"] {
            #expect(listed.contains(name), "\(name) missing from: \(r.stdout)")
        }
    }

    @Test("peggle bench is gone from the product: one line says where the benchmarks are, exit code 2")
    func peggleBenchPointsAtTheLab() throws {
        let r = try CLI.run(["bench", "physics"])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "error: the benchmarks moved to their own executable: swift build -c release --product peggle-bench, "
            + "then .build/release/peggle-bench --help\n")
        let help = try CLI.run(["--help"])
        #expect(help.status == 0 && !help.stdout.contains("bench"), "\(help.stdout)")
    }

    @Test("the workloads play the checkout's Levels: run elsewhere, the missing file is named")
    func levelsAreTheCheckouts() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.bench(["physics", "--shots", "10", "--repeat", "1"], cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "error: Levels/bench-grid.json: no such file\n", "\(r.stderr)")
    }

    @Test("bench serve serves with the peggle beside it, or the one --peggle names")
    func serveNamesItsServer() throws {
        let r = try CLI.bench(["serve", "--peggle", "/nonexistent/peggle", "--envs", "1", "--batches", "1"])
        #expect(r.status == 2)
        #expect(r.stderr == "error: --peggle: /nonexistent/peggle: no such executable\n")
        let given = try CLI.bench(["serve", "--peggle", CLI.binary.path, "--envs", "2", "--batches", "2", "--repeat", "1", "--json"])
        #expect(given.status == 0, "\(given.stderr)")
    }

    @Test("bad options are refused with exit code 2, naming the option",
          arguments: [["physics", "--scene", "cube"], ["physics", "--threads", "0"], ["physics", "--threads", "x"],
                      ["physics", "--shots", "1"], ["physics", "--repeat", "0"], ["vector", "--envs", "0"], ["serve", "--batches", "0"],
                      ["serve", "--obs-encoding", "json"], ["render", "--width", "5"], ["render", "--renders", "0"],
                      ["greedy", "--decisions", "0"], ["greedy", "--sigma=-1"], ["generate", "--levels", "0"],
                      ["rating", "--threads", "1,x"], ["physics", "--csv", "/nonexistent-folder/x.csv"],
                      ["calibration", "--knowledge", "prior,all"], ["calibration", "--knowledge", "oracle", "--ratings", "1"],
                      ["calibration", "--precision", "1"]])
    func badOptions(args: [String]) throws {
        let r = try CLI.bench(args)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("error: "), "\(r.stderr)")
        let option = try #require(args.first { $0.hasPrefix("--") }?.split(separator: "=").first)
        #expect(r.stderr.hasPrefix("error: \(option): "), "\(args): \(r.stderr)")
    }

    @Test func theKnownShapeRatersNeedLevelsWhoseCurvesLieOnTheGrid() throws {
        let r = try CLI.bench(["calibration", "--ratings", "1", "--knowledge", "prior,known"])
        #expect(r.status == 2)
        #expect(r.stderr == "error: --knowledge: 'known' needs --population (the fixed synthetic levels' curves are not on the model's grid)\n")
    }
}
