import ArgumentParser
import Dispatch
import Foundation
import PeggleAgents
import PeggleGame
import PeggleStore
import Synchronization

/// `peggle rate LEVELS...`: plays every (level, agent, sigma, seed) not yet stored and stores it.
struct Rate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rate how hard levels are: agents play them at several aim-noise levels; results go to SQLite.",
        discussion: "Every agent plays --episodes games (seeds --seed, --seed + 1, ...) at every sigma on every level. "
            + "A game already in the database (same level content, agent, parameters, seed and sigma) is skipped, "
            + "so an interrupted run (Ctrl-C, kill -9) resumes where it stopped when run again, with nothing lost "
            + "or duplicated. Worker threads play; one writer commits finished games in batches. "
            + "Then `peggle report` writes the difficulty tables and the HTML report.")

    @Argument(help: "Level files, or folders whose *.json files are levels.")
    var levels: [String]

    @Option(help: "Agents, comma-separated: random, greedy, linear:FILE.")
    var agents = "random,greedy,linear:Agents/linear.json"

    @Option(help: "Games per level, agent and sigma.")
    var episodes = 20

    @Option(help: "Aim-noise levels, radians, comma-separated (the skill curve's points).")
    var sigmas = "0,0.01,0.02,0.04,0.08"

    @Option(help: "The SQLite database to add to (created if missing).")
    var db = "peggle.sqlite"

    @Option(help: "First episode seed.")
    var seed: UInt64 = 0

    @Option(help: "Games committed per transaction.")
    var batch = 25

    @Option(help: "Shot cap per game (a game still going there is stored as unfinished).")
    var maxShots = Episode.defaultMaxShots

    @OptionGroup var tuning: AgentOptions

    /// Test hook: stop (exit code 3) after this many committed batches, as a crash between batches would.
    @Option(help: .hidden)
    var stopAfterBatches: Int?

    func run() throws {
        guard episodes >= 1 else { throw UserError("--episodes: \(episodes) must be at least 1") }
        guard batch >= 1 else { throw UserError("--batch: \(batch) must be at least 1") }
        guard maxShots >= 1 else { throw UserError("--max-shots: \(maxShots) must be at least 1") }
        let sigmaList = try Parse.sigmas(sigmas, option: "--sigmas")
        guard !sigmaList.isEmpty else { throw UserError("--sigmas: give at least one aim-noise level, e.g. 0,0.02") }
        let agentList = try parseAgents()
        let (found, skipped) = try loadLevels()
        let rules = Rules()
        let store: PeggleStore
        do { store = try PeggleStore(path: db) } catch { throw UserError("\(error)") }

        let plan = try RatingPlan(store: store, levels: found, agents: agentList, sigmas: sigmaList,
                                  seeds: seed..<(seed &+ UInt64(episodes)), command: commandLine(), rules: rules)
        let outcome = try RatingRun(plan: plan, store: store, threads: tuning.threadCount, batch: batch,
                                    maxShots: maxShots, stopAfterBatches: stopAfterBatches).execute()
        printLine(outcome.summary(plan: plan, db: db))
        for (file, problem) in skipped { FileHandle.standardError.write(Data("skipped \(file): \(problem)\n".utf8)) }
        if outcome.interrupted { Foundation.exit(outcome.exitCode) }
        if !skipped.isEmpty {
            throw UserError("\(skipped.count) level\(skipped.count == 1 ? "" : "s") could not be rated (listed above); the others were")
        }
    }

    func parseAgents() throws -> [any Agent] {
        let specs = agents.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !specs.isEmpty, !specs.contains("") else { throw UserError("--agents: '\(agents)' names no agent (e.g. random,greedy)") }
        var seen = Set<String>()
        var out: [any Agent] = []
        for s in specs {
            let a = try tuning.agent(s, threads: 1)
            if seen.insert(a.label).inserted { out.append(a) }  // the label names parameters and weights
        }
        return out
    }

    /// Level files: every argument, folders expanded to their *.json files (sorted). A file that
    /// does not read or validate is reported and skipped; no level at all is an error.
    func loadLevels() throws -> ([(file: String, level: Level)], [(file: String, problem: String)]) {
        var files: [String] = []
        for arg in levels {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: arg, isDirectory: &isDir), isDir.boolValue {
                let items = ((try? FileManager.default.contentsOfDirectory(atPath: arg)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
                if items.isEmpty { throw UserError("\(arg): folder has no level files (*.json)") }
                files += items.map { (arg as NSString).appendingPathComponent($0) }
            } else {
                files.append(arg)
            }
        }
        var ok: [(file: String, level: Level)] = [], bad: [(file: String, problem: String)] = []
        var hashes = Set<String>()
        for f in files {
            do {
                let l = try Files.loadLevel(f)
                if hashes.insert(l.contentHash).inserted { ok.append((f, l)) }
            } catch let e as UserError {
                bad.append((f, e.lines.map { $0.hasPrefix(f + ": ") ? String($0.dropFirst(f.count + 2)) : $0 }.joined(separator: "; ")))
            }
        }
        if ok.isEmpty {
            throw UserError(lines: bad.map { "\($0.file): \($0.problem)" } + ["no level to rate"])
        }
        return (ok, bad)
    }

    func commandLine() -> String {
        CommandLine.arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }
}

/// What a run will play: the levels and agents registered in the store, and the games not yet stored.
struct RatingPlan {
    struct Job: Sendable {
        var level: Int, agent: Int
        var sigma: Double, seed: UInt64
    }
    var levels: [(file: String, level: Level, id: Int64)]
    var agents: [(agent: any Agent, id: Int64)]
    var jobs: [Job]
    var alreadyStored: Int
    var runID: Int64
    var rules: Rules

    init(store: PeggleStore, levels found: [(file: String, level: Level)], agents list: [any Agent], sigmas: [Double],
         seeds: Range<UInt64>, command: String, rules: Rules) throws {
        self.rules = rules
        do {
            levels = try found.map { f in
                (f.file, f.level, try store.level(LevelRecord(level: f.level)))
            }
            agents = try list.map { a in (a, try store.agent(AgentRecord(agent: a))) }
            var jobs: [Job] = []
            var stored = 0
            for (li, l) in levels.enumerated() {
                for (ai, a) in agents.enumerated() {
                    let have = try store.storedKeys(levelID: l.id, agentID: a.id)
                    for s in sigmas {
                        for seed in seeds {
                            if have.contains(EpisodeKey(seed: seed, sigma: s)) { stored += 1; continue }
                            jobs.append(Job(level: li, agent: ai, sigma: s, seed: seed))
                        }
                    }
                }
            }
            self.jobs = jobs
            alreadyStored = stored
            let config: [String: Any] = [
                "levels": levels.map { ["file": $0.file, "hash": $0.level.contentHash] },
                "agents": agents.map(\.agent.label), "sigmas": sigmas,
                "seeds": [Int(truncatingIfNeeded: seeds.lowerBound), seeds.count], "to_play": jobs.count,
            ]
            runID = try store.beginRun(command: command, configuration: JSON.text(config), engineVersion: PeggleGym.version,
                                         startedAt: Date())
        } catch let e as StoreError {
            throw UserError("\(e)")
        }
    }
}

extension LevelRecord {
    init(level l: Level) {
        self.init(contentHash: l.contentHash, name: l.name, json: LevelCodec.encode(l), mode: l.mode.name,
                  power: l.power.rawValue, pegCount: l.pegs.count, blue: l.count(of: .blue), orange: l.count(of: .orange),
                  green: l.count(of: .green), purple: l.count(of: .purple), zombie: l.count(of: .zombie),
                  confusement: l.count(of: .confusement), blockCount: l.blocks.count)
    }
}

extension AgentRecord {
    init(agent a: any Agent) {
        self.init(kind: a.kind, parameters: JSON.text(a.parameters), weightsHash: (a as? any WeightedAgent)?.weightsHash,
                  label: a.label)
    }
}
