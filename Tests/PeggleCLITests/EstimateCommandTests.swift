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
        // Both hand-made, both nearer the fitted levels (the designer-like training levels among
        // them) than the reach (0.586): not flagged.
        #expect(array.map { $0["out_of_distribution"] as? Bool } == [false, false])
        #expect(array.map { (($0["distance"] as? Double ?? 0) * 1000).rounded() / 1000 } == [0.499, 0.53])
        let text = try CLI.run(["estimate", Self.levels[0]])
        #expect(text.status == 0 && !text.stdout.contains("outside what the estimate was fitted on"), "\(text.stdout)")
        // Upside Down lies farther (0.636): flagged, and the line says so.
        let far = try CLI.run(["estimate", "Levels/upside-down.json"])
        #expect(far.stdout.hasSuffix("; outside what the estimate was fitted on: rate it\n"), "\(far.stdout)")
        for o in array {
            #expect(Set(o.keys) == ["level", "file", "sigma50", "sigma50_low", "sigma50_high", "tier", "out_of_distribution",
                                    "distance"])
            let s = try #require(o["sigma50"] as? Double), lo = try #require(o["sigma50_low"] as? Double),
                hi = try #require(o["sigma50_high"] as? Double)
            #expect(0.001 <= lo && lo <= s && s <= hi && hi <= 1)
            #expect(["very hard", "hard", "medium", "easy"].contains(o["tier"] as? String ?? ""))
        }
    }

    @Test("--threads: the same output, byte for byte, on one thread and on several; a count outside 1...256 is refused")
    func threads() throws {
        for mode in [["--json"], ["--features"], []] {
            let one = try CLI.run(["estimate", "Levels", "--threads", "1"] + mode)
            let three = try CLI.run(["estimate", "Levels", "--threads", "3"] + mode)
            #expect(one.status == 0 && three.status == 0, "\(one.stderr)\(three.stderr)")
            #expect(one.stdout == three.stdout && one.stdout.count > 1000, "\(mode)")
        }
        for bad in ["0", "257"] {
            let r = try CLI.run(["estimate", Self.levels[0], "--threads", bad])
            #expect(r.status == 2 && r.stdout.isEmpty && r.stderr.contains("--threads: \(bad) is outside 1...256"), "\(r.stderr)")
        }
        // A refusal is the first bad file's in order, whichever thread met it first, and nothing is printed.
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["a.json", "b.json"] {
            try Data("{".utf8).write(to: dir.appendingPathComponent(name))
        }
        let r = try CLI.run(["estimate", "Levels/spiral.json", dir.path, "--threads", "2"])
        #expect(r.status == 2 && r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("error: \(dir.path)/a.json: "), "\(r.stderr)")
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

    @Test("--feature-list: the version and, per --features column, its name, group and signs; it takes no levels")
    func featureList() throws {
        let r = try CLI.run(["estimate", "--feature-list"])
        #expect(r.status == 0, "\(r.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let features = try #require(list["features"] as? [[String: Any]])
        let header = try CLI.run(["estimate", "--features", Self.levels[0]]).stdout.split(separator: "\r\n")[0]
        #expect(["file", "level", "level_hash"] + features.map { $0["name"] as? String ?? "" } == header.split(separator: ",").map(String.init))
        let model = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: CLI.root.appendingPathComponent("Sources/PeggleEstimate/Model/sigma50-estimate.json"))) as? [String: Any])
        #expect(list["version"] as? Int == model["features_version"] as? Int)
        // The knobs a model must keep signed, and the demanded noise a fit may sign too.
        let signed = features.filter { $0["sign"] as? Int != 0 }.map { "\($0["name"]!) \($0["monotone"]!) \($0["sign"]!)" }
        #expect(signed == ["balls 1 1", "ln_orange_per_ball -1 -1", "bts_ln_target_per_shot -1 -1", "dodge_ln_shots -1 -1",
                           "classic_ln_sigma_demand 0 1", "bts_ln_sigma_demand 0 1", "dodge_ln_sigma_demand 0 1"])
        // scripts/fit-estimate's emphasis weighs these three groups.
        let groups = Dictionary(grouping: features, by: { $0["group"] as? String ?? "" }).mapValues(\.count)
        #expect(groups["aim_encoder"] == 20 && groups["first_sweep"] == 8 && groups["rollout"] == 10, "\(groups)")
        let withLevel = try CLI.run(["estimate", "--feature-list", Self.levels[0]])
        #expect(withLevel.status == 2 && withLevel.stdout.isEmpty && withLevel.stderr.contains("--feature-list: takes no levels"),
                "\(withLevel.stderr)")
        let none = try CLI.run(["estimate"])
        #expect(none.status == 2 && none.stderr.contains("Missing expected argument '<levels> ...'"), "\(none.stderr)")
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
        #expect(r.stderr.contains("--model \(bad.path): format: 2 is not 5"), "\(r.stderr)")
        try Data("[1, 2]".utf8).write(to: bad)
        let notModel = try CLI.run(["estimate", Self.levels[0], "--model", bad.path])
        #expect(notModel.status == 2 && notModel.stdout.isEmpty)
        #expect(notModel.stderr.contains("--model \(bad.path): not a model file"), "\(notModel.stderr)")
        let both = try CLI.run(["estimate", Self.levels[0], "--json", "--features"])
        #expect(both.status == 2 && both.stderr.contains("--json and --features: choose one"), "\(both.stderr)")
    }

    /// The built-in model with `change` applied to its JSON object, written to `dir/model.json`.
    static func model(in dir: URL, _ change: (inout [String: Any]) -> Void) throws -> URL {
        let builtIn = CLI.root.appendingPathComponent("Sources/PeggleEstimate/Model/sigma50-estimate.json")
        var m = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: builtIn)) as? [String: Any])
        change(&m)
        let url = dir.appendingPathComponent("model.json")
        try JSONSerialization.data(withJSONObject: m).write(to: url)
        return url
    }

    @Test("a model that loads but overflows on a level is an error naming the level, with --json too: no crash, no 'sigma50 about 0'")
    func overflowingModel() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Finite at the mean level (the load-time probe), but +inf - inf = NaN on First Steps.
        let url = try Self.model(in: dir) { m in
            var w = [Double](repeating: 0, count: (m["weights"] as! [Any]).count)
            w[0] = 1e308
            w[1] = -1e308
            m["weights"] = w
            m["mean"] = [Double](repeating: 0, count: w.count)
            m["scale"] = [Double](repeating: 1, count: w.count)
            m["kernel"] = nil
            m["interval"] = nil   // the local interval needs the kernel's rows (its own refusal)
        }
        for extra in [[], ["--json"]] {
            let r = try CLI.run(["estimate", Self.levels[0], "--model", url.path] + extra)
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr == "error: \(Self.levels[0]): the model predicts ln sigma50 = NaN for this level, not a number; "
                + "--model \(url.path) cannot estimate it\n")
        }
    }

    @Test("--model: a value that is not finite, a folder and an empty file each get their own message")
    func modelFileProblems() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let huge = try Self.model(in: dir) { m in m["intercept"] = 1e308; m["interval"] = nil
                                                  m["kernel"] = ["length_scale": 1.0, "alpha": [1e308, 1e308],
                                                                 "rows": [[Double]](repeating: [Double](repeating: 0, count: (m["weights"] as! [Any]).count), count: 2)] }
        let r = try CLI.run(["estimate", Self.levels[0], "--model", huge.path])
        #expect(r.status == 2)
        #expect(r.stderr == "error: --model \(huge.path): kernel.alpha: the prediction at the mean level is not finite (infinity)\n")
        let folder = dir.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let f = try CLI.run(["estimate", Self.levels[0], "--model", folder.path])
        #expect(f.status == 2)
        #expect(f.stderr == "error: --model \(folder.path): is a folder, not a model file\n")
        let empty = dir.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        let e = try CLI.run(["estimate", Self.levels[0], "--model", empty.path])
        #expect(e.status == 2)
        #expect(e.stderr == "error: --model \(empty.path): the file is empty, not a model file\n")
        // A readable device reads as what it holds (it said "Permission denied" before).
        let null = try CLI.run(["estimate", Self.levels[0], "--model", "/dev/null"])
        #expect(null.status == 2)
        #expect(null.stderr == "error: --model /dev/null: the file is empty, not a model file\n")
        let missing = try CLI.run(["estimate", Self.levels[0], "--model", dir.appendingPathComponent("nope.json").path])
        #expect(missing.stderr == "error: --model \(dir.appendingPathComponent("nope.json").path): no such file\n")
    }
}
