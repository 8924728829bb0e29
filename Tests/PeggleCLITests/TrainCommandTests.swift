import Foundation
import PeggleTestSupport
import Testing

@Suite("peggle train")
struct TrainCommandTests {
    /// A run small enough for a debug build: one level, two members, one episode each.
    func tiny(_ out: String, iterations: Int = 1, seed: Int = 3, extra: [String] = []) -> [String] {
        ["train", "--levels", Repository.url("Levels/first-steps.json").path, "--out", out,
         "--iterations", String(iterations), "--population", "2", "--episodes", "1", "--seed", String(seed),
         "--curve-episodes", "1", "--eval-episodes", "1", "--threads", "2"] + extra
    }

    func json(_ path: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test("writes the policy with its encoder, levels, settings and evaluation, and the learning curve")
    func writesPolicyAndCurve() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("p.json").path
        let r = try CLI.run(tiny(out, iterations: 2))
        #expect(r.status == 0, "\(r.stderr)")
        // Not a terminal: one plain line per iteration, then the summary.
        #expect(r.stdout.contains("iteration 1/2: fitness mean"))
        #expect(r.stdout.contains("iteration 2/2: fitness mean"))
        #expect(!r.stdout.contains("\r"))
        #expect(r.stdout.contains("wrote \(out)"))
        let doc = try json(out)
        #expect(doc["complete"] as? Bool == true)
        #expect(doc["kind"] as? String == "linear")
        let encoder = try #require(doc["encoder"] as? [String: Any])
        #expect(encoder["name"] as? String == "aim")
        #expect(encoder["version"] as? Int == 1)
        let features = try #require(encoder["features"] as? [String])
        #expect((doc["weights"] as? [Double])?.count == features.count)
        let training = try #require(doc["training"] as? [String: Any])
        #expect(training["seed"] as? Int == 3 && training["population"] as? Int == 2 && training["iterations"] as? Int == 2)
        let levels = try #require(training["levels"] as? [[String: Any]])
        #expect(levels.count == 1 && levels[0]["name"] as? String == "First Steps")
        #expect((levels[0]["hash"] as? String)?.count == 16)
        let evaluation = try #require(doc["evaluation"] as? [String: Any])
        #expect(evaluation["episodes"] as? Int == 1 && evaluation["sigma"] as? Double == 0)
        #expect(evaluation["win_rate"] is Double && evaluation["orange_fraction"] is Double)
        let curve = try String(contentsOfFile: dir.appendingPathComponent("p.curve.csv").path, encoding: .utf8)
        let lines = curve.split(separator: "\n")
        #expect(lines.first == "iteration,mean_fitness,best_fitness,elite_fitness,eval_win_rate,eval_orange_fraction,seconds")
        #expect(lines.count == 3 && lines[1].hasPrefix("1,") && lines[2].hasPrefix("2,"))
    }

    @Test("rerunning continues a shorter run to the same weights, and a finished run is left alone")
    func resumes() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let resumed = dir.appendingPathComponent("resumed.json").path, straight = dir.appendingPathComponent("straight.json").path
        #expect(try CLI.run(tiny(resumed, iterations: 2)).status == 0)
        let again = try CLI.run(tiny(resumed, iterations: 3))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("resuming after iteration 2 of 3"))
        #expect(!again.stdout.contains("iteration 1/3"))
        #expect(try CLI.run(tiny(straight, iterations: 3)).status == 0)
        let a = try json(resumed), b = try json(straight)
        #expect((a["weights"] as? [Double]) == (b["weights"] as? [Double]))
        #expect(a["weights_hash"] as? String == b["weights_hash"] as? String)
        let curve = try String(contentsOfFile: dir.appendingPathComponent("resumed.curve.csv").path, encoding: .utf8)
        #expect(curve.split(separator: "\n").count == 4)  // header and three iterations

        let before = try Data(contentsOf: URL(fileURLWithPath: straight))
        let done = try CLI.run(tiny(straight, iterations: 3))
        #expect(done.status == 0)
        #expect(done.stdout.contains("already trained (3 iterations, same settings); nothing to do"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: straight)) == before)

        let fewer = try CLI.run(tiny(straight, iterations: 2))
        #expect(fewer.status == 2)
        #expect(fewer.stderr.contains("--iterations: 2, but \(straight) already has 3 iterations"))
    }

    @Test("settings other than the saved run's are refused, naming each difference")
    func otherSettingsRefused() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("p.json").path
        #expect(try CLI.run(tiny(out)).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        let r = try CLI.run(tiny(out, iterations: 2, seed: 4))
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(out): was trained with other settings"))
        #expect(r.stderr.contains("seed: saved 3, now 4"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)
    }

    @Test("zero or negative settings are refused with exit code 2 and nothing written",
          arguments: [(["--iterations", "0"], "--iterations: 0 (must be at least 1)"),
                      (["--population", "0"], "--population: 0 (must be at least 2)"),
                      (["--episodes", "0"], "--episodes: 0 (must be at least 1)"),
                      (["--sigma", "-0.5"], "--sigma: -0.5 is negative"),
                      (["--sigma", "wide"], "--sigma: 'wide' is not a finite number"),
                      (["--eval-episodes", "0"], "--eval-episodes: 0 (must be at least 1)")])
    func badSettings(args: [String], message: String) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("p.json").path
        let r = try CLI.run(tiny(out) + args)
        #expect(r.status == 2)
        #expect(r.stderr.contains("error: \(message)"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("bad weights files are refused naming the file and the problem")
    func badWeightsFiles() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json").path
        #expect(try CLI.run(tiny(good)).status == 0)
        let level = Repository.url("Levels/first-steps.json").path
        func evaluate(_ file: String, _ extra: [String] = []) throws -> RunResult {
            try CLI.run(["train", "--evaluate", file, "--levels", level, "--episodes", "1"] + extra)
        }
        func variant(_ name: String, _ mutate: (inout [String: Any]) -> Void) throws -> String {
            var obj = try json(good)
            mutate(&obj)
            let path = dir.appendingPathComponent(name).path
            try JSONSerialization.data(withJSONObject: obj).write(to: URL(fileURLWithPath: path))
            return path
        }
        let missing = dir.appendingPathComponent("missing.json").path
        var r = try evaluate(missing)
        #expect(r.status == 2 && r.stderr.contains("error: \(missing): no such file"))

        let corrupt = dir.appendingPathComponent("corrupt.json").path
        try "{\"kind\": \"linear\", \"weights\": [1, 2".write(toFile: corrupt, atomically: true, encoding: .utf8)
        r = try evaluate(corrupt)
        #expect(r.status == 2 && r.stderr.contains("error: \(corrupt): not valid JSON"))

        let otherEncoder = try variant("objects.json") { o in
            var e = o["encoder"] as! [String: Any]
            e["name"] = "objects"
            o["encoder"] = e
        }
        r = try evaluate(otherEncoder)
        #expect(r.status == 2 && r.stderr.contains("\(otherEncoder): weights for encoder 'objects' version 1"))

        let short = try variant("short.json") { o in o["weights"] = [0.5, -1.0] }
        r = try evaluate(short)
        #expect(r.status == 2 && r.stderr.contains("\(short): weights: 2 values, but the 'aim' encoder has"))

        r = try evaluate(good, ["--sigma", "-1"])
        #expect(r.status == 2 && r.stderr.contains("--sigma: -1 is negative"))
        r = try evaluate(good, ["--episodes", "0"])
        #expect(r.status == 2 && r.stderr.contains("--episodes: 0 (must be at least 1)"))

        // The same corrupt file as a training output is refused too, not overwritten.
        r = try CLI.run(tiny(corrupt))
        #expect(r.status == 2 && r.stderr.contains("\(corrupt): not valid JSON"))
        #expect(try String(contentsOfFile: corrupt, encoding: .utf8) == "{\"kind\": \"linear\", \"weights\": [1, 2")
    }

    @Test("--evaluate prints the policy against the random agent per level")
    func evaluatesAgainstRandom() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json").path
        #expect(try CLI.run(tiny(good)).status == 0)
        let r = try CLI.run(["train", "--evaluate", good, "--levels", Repository.url("Levels").path,
                             "--mode", "classic", "--exclude", "bench-grid.json", "--episodes", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("| level | linear win | linear orange | random win | random orange |"))
        #expect(r.stdout.contains("| First Steps |") && r.stdout.contains("| Spiral |"))
        #expect(!r.stdout.contains("Bench Grid") && !r.stdout.contains("Gauntlet"))  // excluded; dodge
        #expect(r.stdout.contains("| **mean** |"))
    }
}
