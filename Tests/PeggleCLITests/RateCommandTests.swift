import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleGame
import PeggleStore
import PeggleTestSupport
import PeggleUtilities
import Testing

/// `peggle rate`: resumable, never duplicating, refusing bad input without damage.
@Suite("peggle rate", .serialized)
struct RateCommandTests {
    static let levels = ["Levels/first-steps.json", "Levels/zombie-night.json"]
    static let small = ["--method", "grid", "--agents", "random,greedy", "--candidates", "8", "--refine", "1x2", "--samples", "2",
                        "--episodes", "6", "--sigmas", "0,0.05", "--batch", "5"]

    func rate(_ db: URL, _ extra: [String] = []) throws -> RunResult {
        try CLI.run(["rate"] + Self.levels + Self.small + ["--db", db.path] + extra)
    }

    func contents(_ db: URL) throws -> (StoreCounts, [PlayedGame], Bool) {
        let store = try PeggleStore(path: db.path)
        return (try store.counts(), try store.games(), try store.integrityOK())
    }

    @Test("a rerun adds nothing; a run stopped between batches resumes to the same totals")
    func rerunAndResume() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = dir.appendingPathComponent("whole.sqlite"), parts = dir.appendingPathComponent("parts.sqlite")
        let first = try rate(whole, ["--threads", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("48 games added, 0 already stored"))
        let again = try rate(whole)
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 games added, 48 already stored"))

        let stopped = try rate(parts, ["--stop-after-batches", "2", "--threads", "1"])
        #expect(stopped.status == 3)
        #expect(stopped.stdout.contains("run the same command again to resume"))
        let (partial, _, _) = try contents(parts)
        #expect(partial.episodes >= 10 && partial.episodes < 48)
        let resumed = try rate(parts)
        #expect(resumed.status == 0)
        #expect(resumed.stdout.contains("\(48 - partial.episodes) games added, \(partial.episodes) already stored"))

        let (a, rowsA, okA) = try contents(whole), (b, rowsB, okB) = try contents(parts)
        #expect(okA && okB)
        #expect(a.episodes == 48 && b.episodes == 48 && a.shots == b.shots && a.levels == 2 && a.agents == 2)
        #expect(rowsA == rowsB)  // same games, same outcomes, whatever the threads and interruptions
        #expect(b.runs == 2 && a.runs == 2)
    }

    @Test("kill -9 in the middle leaves a sound database, and the rerun completes with no duplicates")
    func killNine() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("killed.sqlite"), clean = dir.appendingPathComponent("clean.sqlite")
        let args = ["rate"] + Self.levels + ["--method", "grid", "--agents", "greedy", "--candidates", "6", "--refine", "0x0",
                                             "--samples", "2", "--episodes", "10", "--sigmas", "0.02,0.08", "--batch", "2",
                                             "--threads", "2"]
        // The hook stops committing after exactly 3 batches and says so: kill it there, without warning.
        let (p, said) = try CLI.startPausedRate(args + ["--db", db.path], batches: 3)
        #expect(said.contains("paused after 3 batches"), "\(said)")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal)
        let (afterKill, _, ok) = try contents(db)
        #expect(ok)
        #expect(afterKill.episodes == 6)
        let resumed = try CLI.run(args + ["--db", db.path])
        #expect(resumed.status == 0)
        #expect(resumed.stdout.contains("34 games added, 6 already stored"))
        #expect(try CLI.run(args + ["--db", clean.path]).status == 0)
        let (x, rowsX, okX) = try contents(db), (y, rowsY, _) = try contents(clean)
        #expect(okX && x.episodes == 40 && x.shots == y.shots)
        #expect(rowsX == rowsY)
    }

    @Test("Ctrl-C stops taking games, commits the finished ones, exits 130; the rerun completes the same games")
    func interrupt() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("int.sqlite"), clean = dir.appendingPathComponent("clean.sqlite")
        let args = ["rate"] + Self.levels + ["--agents", "random,greedy", "--candidates", "8", "--refine", "1x2", "--samples", "2",
                                             "--episodes", "3", "--batch-size", "4", "--budget", "24", "--batch", "1",
                                             "--threads", "2"]
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = args + ["--db", db.path]
        p.currentDirectoryURL = CLI.root
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait for committed games (one per transaction), then interrupt as a terminal's Ctrl-C does.
        var seen = 0
        for _ in 0..<1200 where seen < 3 {
            usleep(50_000)
            if let s = try? PeggleStore(readingOnly: db.path) { seen = (try? s.counts().episodes) ?? 0 }
        }
        #expect(seen >= 3)
        kill(p.processIdentifier, SIGINT)
        // It must end by itself (a hang here would be a deadlock between the workers and the writer).
        var waited = 0
        while p.isRunning && waited < 600 { usleep(100_000); waited += 1 }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationReason == .exit && p.terminationStatus == 130, "\(said)")
        #expect(said.contains("interrupted by Ctrl-C; run the same command again to resume"))
        let (partial, _, ok) = try contents(db)
        #expect(ok && partial.episodes >= 3)
        #expect(try CLI.run(args + ["--db", db.path]).status == 0)
        #expect(try CLI.run(args + ["--db", clean.path]).status == 0)
        let (x, rowsX, _) = try contents(db), (y, rowsY, _) = try contents(clean)
        #expect(x.episodes == y.episodes && rowsX == rowsY)
    }

    // MARK: The adaptive method

    static let adaptive = ["--agents", "random,greedy", "--candidates", "8", "--refine", "1x2", "--samples", "2",
                           "--episodes", "3", "--batch-size", "4", "--budget", "12", "--batch", "3"]

    @Test("adaptive: the same database for any thread count; a rerun adds nothing; a stopped run resumes to the same games")
    func adaptiveIsDeterministicAndResumable() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = dir.appendingPathComponent("one.sqlite"), two = dir.appendingPathComponent("two.sqlite")
        let parts = dir.appendingPathComponent("parts.sqlite")
        let run = { (db: URL, extra: [String]) in try CLI.run(["rate"] + Self.levels + Self.adaptive + ["--db", db.path] + extra) }
        let a = try run(one, ["--threads", "1"])
        #expect(a.status == 0, "\(a.stderr)")
        let b = try run(two, ["--threads", "2"])
        #expect(b.status == 0, "\(b.stderr)")
        let (countsA, rowsA, okA) = try contents(one), (countsB, rowsB, _) = try contents(two)
        #expect(okA && countsA == countsB && rowsA == rowsB)
        // Random plays 3 games at sigma 0 per level; greedy at most 12, at trial sigmas, seeds 0, 1, 2...
        let greedy = rowsA.filter { $0.agentKind == .greedy }
        #expect(rowsA.filter { $0.agentKind == .random }.count == 6)
        #expect(rowsA.filter { $0.agentKind == .random }.allSatisfy { $0.sigma == 0 })
        #expect(greedy.count <= 24 && greedy.allSatisfy { SkillModel.trialSigmas.contains($0.sigma) })
        for level in Set(greedy.map(\.levelHash)) {
            let seeds = greedy.filter { $0.levelHash == level }.map(\.seed).sorted()
            #expect(seeds == Array(0..<UInt64(seeds.count)))
        }
        // Each measured level is announced with its sigma50.
        #expect(a.stderr.contains("Levels/first-steps.json: sigma50 "))
        let again = try run(one, [])
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 games added, \(countsA.episodes) already stored"))
        // Stopped after 2 committed batches, then resumed: the same games as the run that never stopped.
        let stopped = try run(parts, ["--stop-after-batches", "2", "--threads", "2"])
        #expect(stopped.status == 3)
        // Two batches of 3, and the games that were being played when it stopped (committed too).
        let partial = try contents(parts).0.episodes
        #expect(partial >= 6 && partial < countsA.episodes)
        #expect(try run(parts, ["--threads", "1"]).status == 0)
        let (countsP, rowsP, okP) = try contents(parts)
        #expect(okP && countsP.episodes == countsA.episodes && rowsP == rowsA)
    }

    @Test("adaptive, entropy placement: the same database at 1 and 2 threads, and the run row records the placement")
    func entropyPlacementIsDeterministic() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = dir.appendingPathComponent("one.sqlite"), two = dir.appendingPathComponent("two.sqlite")
        let run = { (db: URL, threads: String) in
            try CLI.run(["rate"] + Self.levels + Self.adaptive + ["--placement", "entropy", "--db", db.path, "--threads", threads])
        }
        let a = try run(one, "1"), b = try run(two, "2")
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let (countsA, rowsA, okA) = try contents(one), (countsB, rowsB, _) = try contents(two)
        #expect(okA && countsA == countsB && rowsA == rowsB)
        // On the flat prior the first batch of 4 goes where QUEST+ puts it (PsychometricTests).
        let first = rowsA.filter { $0.agentKind == .greedy && $0.seed < 4 }.map(\.sigma)
        #expect(Set(first) == Set(SkillPosterior().placement(count: 4, rule: .entropy)))
        let store = try PeggleStore(path: one.path)
        #expect(try store.runs().first?.configuration.contains("\"placement\":\"entropy\"") == true)
    }

    @Test("adaptive, population+estimate prior and tier stop: the same database at 1 and 2 threads, and the run row records both")
    func estimatePriorIsDeterministic() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = dir.appendingPathComponent("one.sqlite"), two = dir.appendingPathComponent("two.sqlite")
        let run = { (db: URL, threads: String) in
            try CLI.run(["rate"] + Self.levels + Self.adaptive
                + ["--prior", "population+estimate", "--stop", "tier", "--db", db.path, "--threads", threads])
        }
        let a = try run(one, "1"), b = try run(two, "2")
        #expect(a.status == 0 && b.status == 0, "\(a.stderr) \(b.stderr)")
        let (countsA, rowsA, okA) = try contents(one), (countsB, rowsB, _) = try contents(two)
        #expect(okA && countsA == countsB && rowsA == rowsB)
        let configuration = try PeggleStore(path: one.path).runs().first?.configuration ?? ""
        #expect(configuration.contains("\"prior\":\"population+estimate\",\"prior_version\":\"\(SkillPrior.populationVersion)\""))
        #expect(configuration.contains("\"stop\":\"tier\""))

        // The report fits each level's games from the prior the run measured with, so it gives the
        // sigma50 `rate` printed; fitted flat, the same games say something else.
        let recorded = try Self.report(one, dir.appendingPathComponent("recorded"))
        let flat = try Self.report(one, dir.appendingPathComponent("flat"), ["--prior", "flat"])
        #expect(recorded.keys.sorted() == ["First Steps", "Zombie Night"])
        let printed = a.stdout + a.stderr
        for (level, file) in [("First Steps", "first-steps"), ("Zombie Night", "zombie-night")] {
            let row = try #require(recorded[level]), flatRow = try #require(flat[level])
            #expect(row["skill_prior"] == "population+estimate" && flatRow["skill_prior"] == "flat")
            #expect(printed.contains("Levels/\(file).json: sigma50 \(Self.sigma50Text(row)) rad after \(row["skill_games"]!) games"),
                    "\(level): \(Self.sigma50Text(row)) not in \(printed)")
            #expect(row["sigma50_rad"] != flatRow["sigma50_rad"] || row["sigma50_low"] != flatRow["sigma50_low"])
        }
    }

    /// `peggle report --format csv` of `db` into `out`: difficulty.csv's rows by level name.
    static func report(_ db: URL, _ out: URL, _ extra: [String] = []) throws -> [String: [String: String]] {
        let r = try CLI.run(["report", "--db", db.path, "--out", out.path, "--format", "csv"] + extra)
        try #require(r.status == 0, "\(r.stderr)")
        let csv = try String(contentsOf: out.appendingPathComponent("difficulty.csv"), encoding: .utf8)
        let lines = try #require(readCSV(csv), "difficulty.csv is not RFC 4180")
        let header = lines[0]
        var byLevel: [String: [String: String]] = [:]
        for row in lines.dropFirst() { byLevel[row[1]] = Dictionary(uniqueKeysWithValues: zip(header, row)) }
        return byLevel
    }

    /// sigma50 of a difficulty.csv row as `rate` prints it (SVGCharts.sigma50Text, 4 decimals).
    static func sigma50Text(_ row: [String: String]) -> String {
        func f(_ key: String) -> String { DecimalText.significant(Double(row[key]!)!, digits: 2, maxDecimals: 6) }
        switch row["sigma50_relation"] {
        case "=": return "\(f("sigma50_rad")) (\(f("sigma50_low"))\u{2013}\(f("sigma50_high")))"
        case "<": return "< " + f("sigma50_rad")
        case ">": return "> " + f("sigma50_rad")
        default: return "unknown"
        }
    }

    /// Whether the tier from an interval ("hard", or "hard to medium") reaches `tier`.
    static func tier(_ span: String, reaches tier: String) -> Bool {
        let order = ["very hard", "hard", "medium", "easy"]
        let ends = span.components(separatedBy: " to ").compactMap { order.firstIndex(of: $0) }
        guard let t = order.firstIndex(of: tier), let a = ends.first, let b = ends.last else { return false }
        return a <= t && t <= b
    }

    @Test("adaptive: two seeds give overlapping intervals and the same tiers")
    func adaptiveSeedsAgree() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var reports: [[String: [String: String]]] = []
        for seed in ["0", "1000"] {
            let db = dir.appendingPathComponent("s\(seed).sqlite"), out = dir.appendingPathComponent("r\(seed)")
            let levels = ["Levels/first-steps.json", "Levels/last-stand.json", "Levels/gauntlet.json"]
            let r = try CLI.run(["rate"] + levels + ["--agents", "greedy", "--candidates", "12", "--refine", "1x4",
                                                     "--samples", "4", "--budget", "40", "--seed", seed, "--db", db.path])
            #expect(r.status == 0, "\(r.stderr)")
            reports.append(try Self.report(db, out))
        }
        #expect(reports[0].keys.sorted() == ["First Steps", "Gauntlet", "Last Stand"])
        for level in reports[0].keys {
            let x = reports[0][level]!, y = reports[1][level]!
            // With 40 games a level the intervals are wide, so the tier from the interval may span an
            // edge in one run and not the other; the estimates' tiers agree, and each run's
            // interval reaches the other's tier.
            #expect(x["tier_of_estimate"] == y["tier_of_estimate"], "\(level): \(x["tier_of_estimate"]!) and \(y["tier_of_estimate"]!)")
            #expect(Self.tier(x["tier"]!, reaches: y["tier_of_estimate"]!) && Self.tier(y["tier"]!, reaches: x["tier_of_estimate"]!),
                    "\(level): \(x["tier"]!) and \(y["tier"]!)")
            // Two intervals overlap when each starts below the other's end (a missing end is unbounded).
            let lowX = Double(x["sigma50_low"]!) ?? 0, highX = Double(x["sigma50_high"]!) ?? .infinity
            let lowY = Double(y["sigma50_low"]!) ?? 0, highY = Double(y["sigma50_high"]!) ?? .infinity
            #expect(lowX <= highY && lowY <= highX, "\(level): \(lowX)...\(highX) and \(lowY)...\(highY)")
        }
    }

    @Test("when a run ends the database file alone holds every game (the WAL is checkpointed into it)")
    func theFileAloneIsComplete() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("r.sqlite"), copy = dir.appendingPathComponent("copy.sqlite")
        let r = try CLI.run(["rate", "Levels/first-steps.json", "--agents", "random", "--episodes", "7", "--db", db.path])
        #expect(r.status == 0, "\(r.stderr)")
        // Only the main file is copied, as a user would copy "the database".
        try FileManager.default.copyItem(at: db, to: copy)
        let (counts, games, ok) = try contents(copy)
        #expect(ok && counts.episodes == 7 && games.count == 7)
    }

    @Test("a bad level is reported and skipped, the others are rated, and the exit code says so")
    func badLevelSkipped() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json")
        try "{\"format\": 1, \"name\": \"Broken\"".write(to: bad, atomically: true, encoding: .utf8)
        let db = dir.appendingPathComponent("r.sqlite")
        let r = try CLI.run(["rate", "Levels/first-steps.json", bad.path, "--agents", "random", "--episodes", "3",
                             "--db", db.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("skipped \(bad.path): "))
        #expect(r.stderr.contains("1 level could not be rated"))
        #expect(try contents(db).0.episodes == 3)
    }

    @Test("a file that is not SQLite is refused and left byte for byte as it was")
    func notADatabase() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("notes.sqlite")
        let text = "these are my notes, not a database\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["rate", "Levels/first-steps.json", "--agents", "random", "--db", file.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("not an SQLite database"))
        #expect(try String(contentsOf: file, encoding: .utf8) == text)
        #expect(r.stdout.isEmpty)
    }

    @Test("bad options are refused with exit code 2 before anything is written",
          arguments: [
            (["--agents", "random,smart"], "--agents: unknown agent 'smart'"),
            (["--method", "grid", "--sigmas", "0,-0.1"], "--sigmas: -0.1 is negative"),
            (["--method", "grid", "--sigmas", "0,abc"], "--sigmas: 'abc' is not a number"),
            (["--sigmas", "0,0.02"], "--sigmas: only with --method grid"),
            (["--method", "grid", "--budget", "40"], "--budget: only with --method adaptive"),
            (["--precision", "1"], "--precision: 1.0 is not a factor above 1"),
            (["--batch-size", "0"], "--batch-size: 0 is outside 1...1000"),
            (["--method", "grid", "--placement", "entropy"], "--placement: only with --method adaptive"),
            (["--placement", "median"], "--placement"),
            (["--method", "grid", "--prior", "population"], "--prior: only with --method adaptive"),
            (["--method", "grid", "--stop", "tier"], "--stop: only with --method adaptive"),
            (["--prior", "estimate"], "--prior"),
            (["--stop", "never"], "--stop"),
            (["--episodes", "0"], "--episodes: 0 must be at least 1"),
            (["--agents", "linear:missing.json"], "missing.json"),
          ])
    func badOptions(args: [String], message: String) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("x.sqlite")
        let r = try CLI.run(["rate", "Levels/first-steps.json", "--db", db.path] + args)
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "stderr: \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db.path))
    }

    @Test("--dry-run checks the options, agents and levels, says what it would rate, and writes nothing")
    func dryRun() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("d.sqlite")
        let r = try CLI.run(["rate", "Levels/first-steps.json", "Levels/spiral.json", "--agents", "random", "--db", db.path, "--dry-run"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "would rate 2 levels with 1 agent (random) into \(db.path); nothing written\n")
        #expect(!FileManager.default.fileExists(atPath: db.path))
        let bad = try CLI.run(["rate", "Levels/first-steps.json", "--budget", "0", "--db", db.path, "--dry-run"])
        #expect(bad.status == 2 && bad.stderr == "error: --budget: 0 is outside 1...100000\n")
        #expect(!FileManager.default.fileExists(atPath: db.path))
    }

    /// `--dry-run --json`: what peggle_gym.ray reads instead of restating the kinds and the
    /// default agents: each agent as given (or the default) with the file it is made from, null
    /// for a kind without one and for the default policy played from the copy built into peggle.
    @Test("--dry-run --json names each agent's file; --json alone is refused")
    func dryRunJSON() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("d.sqlite")
        let level = CLI.root.appendingPathComponent("Levels/first-steps.json").path
        let inCheckout = try CLI.run(["rate", level, "--db", db.path, "--dry-run", "--json"])
        #expect(inCheckout.status == 0, "\(inCheckout.stderr)")
        #expect(inCheckout.stdout == #"{"agents":[{"file":null,"kind":"random","text":"random"},{"file":null,"kind":"greedy","text":"greedy"},"#
            + #"{"file":"Agents/linear.json","kind":"linear","text":"linear:Agents/linear.json"}],"db":"\#(db.path)","levels":1}"# + "\n")
        let elsewhere = try CLI.run(["rate", level, "--db", db.path, "--dry-run", "--json"], cwd: dir)
        #expect(elsewhere.stdout.contains(#"{"file":null,"kind":"linear","text":"linear:Agents/linear.json"}"#), "\(elsewhere.stdout)")
        let mlp = CLI.root.appendingPathComponent("Agents/mlp.json").path
        let named = try CLI.run(["rate", level, "--db", db.path, "--dry-run", "--json", "--agents", " greedy, mlp:\(mlp)"], cwd: dir)
        #expect(named.stdout.contains(#""agents":[{"file":null,"kind":"greedy","text":"greedy"},{"file":"\#(mlp)","kind":"mlp","text":"mlp:\#(mlp)"}]"#),
                "\(named.stdout)")
        // Every kind of the factory's table, as its example names it: the JSON follows the table,
        // so a new kind reaches peggle_gym.ray with no change outside PeggleAgents.
        let every = AgentFactory.kinds.map { e in e.argument.map { "\(e.kind.rawValue):\($0.example)" } ?? e.kind.rawValue }
        let all = try CLI.run(["rate", level, "--db", db.path, "--dry-run", "--json", "--agents", every.joined(separator: ",")])
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any])["agents"] as? [[String: Any]]
        #expect(listed?.map { $0["text"] as? String } == every)
        #expect(listed?.map { $0["file"] as? String } == AgentFactory.kinds.map { $0.argument?.example })
        let alone = try CLI.run(["rate", level, "--db", db.path, "--json"])
        #expect(alone.status == 2 && alone.stderr.hasPrefix("error: --json: only with --dry-run"), "\(alone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db.path))
    }
}
