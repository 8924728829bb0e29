import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleStore

/// `peggle db merge SHARD... --into DB`: folds rating databases into one (PeggleStore.merge).
struct DbMerge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge rating databases (shards) into one.",
        discussion: "Every level, agent, run and game of each shard that --into does not hold yet is copied, one "
            + "transaction per shard: a shard is merged whole or not at all. Identity decides what is new: levels by "
            + "content, agents by kind, parameters and weights, games by (level, agent, seed, sigma), so merging twice "
            + "adds nothing. A game held by both with a different outcome (another engine version) is reported and "
            + "--into keeps its own; the command then exits 1. A shard that is not a rating database, is damaged "
            + "or comes from a newer Peggle Gym is refused before anything is written (exit 2). Shards are only read. "
            + "With --level, only those levels are merged, with their games and the agents and runs of those games "
            + "(a distributed rating gives each worker the games its levels already have this way).")

    @Argument(help: "The databases to merge (peggle rate's files).")
    var shards: [String]

    @Option(help: "The database to merge into (created if missing).")
    var into: String

    @Option(name: .customLong("level"), help: "Merge only this level (a file, or a folder of *.json files; repeat for more): identified by content.")
    var onlyLevels: [String] = []

    @Flag(help: "Write one JSON object (each shard's counts and the totals) instead of a line per shard, for programs.")
    var json = false

    func run() throws {
        guard !shards.isEmpty else { throw UserError("give at least one shard to merge") }
        // Levels are read before any database is opened: a bad one leaves everything untouched.
        let only: Set<String>? = onlyLevels.isEmpty ? nil
            : Set(try Files.levelFiles(onlyLevels).map { try Files.loadLevel($0).contentHash })
        let target = URL(fileURLWithPath: into).standardizedFileURL.resolvingSymlinksInPath()
        var seen = Set<URL>()
        // Every shard is checked before anything is written.
        var opened: [PeggleStore] = []
        for shard in shards {
            let url = URL(fileURLWithPath: shard).standardizedFileURL.resolvingSymlinksInPath()
            if url == target { throw UserError("\(shard): is the database merged into (--into \(into))") }
            guard seen.insert(url).inserted else { throw UserError("\(shard): named twice") }
            do { opened.append(try PeggleStore(readingOnly: shard)) } catch { throw UserError("\(error)") }
        }
        let store: PeggleStore
        do { store = try PeggleStore(path: into) } catch { throw UserError("\(error)") }
        var conflicts = 0
        var reports: [MergeReport] = []
        for shard in opened {
            let r: MergeReport
            do { r = try store.merge(shard, onlyLevels: only) } catch {
                throw UserError("\(error) (shards merged before it are kept; this one added nothing)")
            }
            reports.append(r)
            if !json {
                printLine("\(r.shard): \(r.gamesAdded) games added, \(r.gamesAlreadyThere) already there, "
                    + "\(r.levelsAdded) levels, \(r.agentsAdded) agents and \(r.runsAdded) runs added"
                    + (r.conflicts.isEmpty ? "" : "; \(r.conflicts.count) conflicting (kept as they were in \(into))"))
            }
            for c in r.conflicts.prefix(20) {
                FileHandle.standardError.write(Data(("conflict: level \(c.levelHash), \(c.agentLabel), seed \(c.key.seed), "
                    + "sigma \(c.key.sigma): \(into) has \(c.kept); \(r.shard) has \(c.refused)\n").utf8))
            }
            if r.conflicts.count > 20 {
                FileHandle.standardError.write(Data("... and \(r.conflicts.count - 20) more conflicts in \(r.shard)\n".utf8))
            }
            conflicts += r.conflicts.count
        }
        if json { printLine(try JSON.text(Self.summary(reports, into: into))) }
        if conflicts > 0 {
            let message = "\(conflicts) conflicting games: the same key with another outcome "
                + "(written by another engine version?); \(into) kept its own\n"
            FileHandle.standardError.write(Data(message.utf8))
            Foundation.exit(1)
        }
    }

    /// `--json`'s object: what the human lines say, per shard (in the order given) and in total.
    static func summary(_ reports: [MergeReport], into: String) -> [String: Any] {
        func counts(_ r: [MergeReport]) -> [String: Any] {
            ["games_added": r.map(\.gamesAdded).reduce(0, +), "games_already_there": r.map(\.gamesAlreadyThere).reduce(0, +),
             "levels_added": r.map(\.levelsAdded).reduce(0, +), "agents_added": r.map(\.agentsAdded).reduce(0, +),
             "runs_added": r.map(\.runsAdded).reduce(0, +), "conflicts": r.map(\.conflicts.count).reduce(0, +)]
        }
        var out = counts(reports)
        out["into"] = into
        out["shards"] = reports.map { r in counts([r]).merging(["shard": r.shard]) { a, _ in a } }
        return out
    }
}
