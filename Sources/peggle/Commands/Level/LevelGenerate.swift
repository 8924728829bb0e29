import ArgumentParser
import Foundation
import PeggleAgents
import PeggleCommandLine
import PeggleDifficulty
import PeggleEstimate
import PeggleGame
import PeggleGenerator
import PeggleLevel
import PeggleLevelFiles
import PeggleLevelSearch
import PeggleStore
import PeggleUtilities

extension LevelDistribution: ExpressibleByArgument {}
extension LevelTemplate: ExpressibleByArgument {}

/// Tiers on the command line: "very-hard" rather than the tables' "very hard"; `unrated` is not a
/// difficulty one can ask for.
extension Tier: ExpressibleByArgument {
    public init?(argument: String) {
        guard let t = Tier.named(argument) else { return nil }
        self = t
    }

    public static var allValueStrings: [String] { askable.map(\.argument) }
}

/// `peggle level generate --count N --seed S --out DIR`: levels from seeds (LevelGenerator).
struct LevelGenerate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate levels from seeds into a folder.",
        discussion: "Level k of N comes from seed S + k, so a corpus is named by its first seed, count and distribution. "
            + "Files are named DISTRIBUTION-SEED-TEMPLATE.json, levels 'Template SEED (distribution)'. "
            + "An existing file or level name in the folder is never replaced: the run is refused before anything "
            + "is written. The files are written to a temporary folder first and moved in when all are written. "
            + "The folder is created if missing (its parent must exist). "
            + "With --tier or --sigma50, --count levels of that difficulty: candidates from seeds S, S+1, ... are "
            + "screened by the instant estimate (peggle estimate), and those that pass are rated (the greedy agent's "
            + "adaptive rating, games stored in --db) and kept when the rated sigma50 lies in the tier or range; "
            + "--no-confirm keeps what the estimate passes. "
            + "docs/levels.md describes the templates, what the distributions change, and the search.")

    // Unconditional, so "--count -3" is read as a (refused) value, not as an option.
    @Option(parsing: .unconditional, help: "How many levels (1 to 100000).")
    var count: Int

    @Option(parsing: .unconditional, help: "Seed of the first level (0 or more); the others take the next seeds.")
    var seed: UInt64

    @Option(help: ArgumentHelp("easy or hard (as Procgen's distribution_mode; hard by default, as there; with --tier or "
        + "--sigma50, easy for the easy tier and hard otherwise)."))
    var distribution: LevelDistribution?

    @Option(help: ArgumentHelp("Only levels of this tier (candidates screened and rated).",
                               valueName: Tier.allValueStrings.joined(separator: "|")))
    var tier: Tier?

    @Option(help: ArgumentHelp("Only levels whose sigma50 lies in LOW-HIGH radians (candidates screened and rated).",
                               valueName: "LOW-HIGH"))
    var sigma50: String?

    @Flag(inversion: .prefixedNo, help: "With --tier or --sigma50: confirm what the estimate passes with the rater.")
    var confirm = true

    @Option(help: ArgumentHelp("With --tier or --sigma50: the SQLite database the confirming ratings are stored in (created "
        + "if missing; default peggle.sqlite)."))
    var db: String?

    @Option(help: ArgumentHelp("With --tier or --sigma50: candidates tried at most (default: "
        + "\(LevelSearch.Settings.candidatesPerLevel) per level asked for)."))
    var maxCandidates: Int?

    @Option(help: "Worker threads (default: the machine's cores).")
    var threads: Int?

    @Option(help: ArgumentHelp("One template for every level (default: each seed draws one).",
                               valueName: LevelTemplate.allCases.map(\.rawValue).joined(separator: "|")))
    var template: LevelTemplate?

    @Option(help: "The folder to write into (created if missing).")
    var out: String

    /// Test hook: kill this process with SIGKILL at a point of bringing the files in
    /// (`GeneratedFiles.KillPoint`: written:N, committed, moved:N, finished).
    @Option(help: .hidden)
    var killAt: String?

    static let maxCount = 100_000

    func run() throws {
        guard (1...Self.maxCount).contains(count) else {
            throw UserError("--count: \(count) is outside 1...\(Self.maxCount)")
        }
        if let target = try target() { return try search(target) }
        for (name, given) in [("--no-confirm", !confirm), ("--db", db != nil), ("--max-candidates", maxCandidates != nil),
                              ("--threads", threads != nil)] where given {
            throw UserError("\(name): applies with --tier or --sigma50 only")
        }
        guard seed <= UInt64.max - UInt64(count - 1) else {
            throw UserError("--seed: \(seed) + \(count) levels passes the largest seed, \(UInt64.max)")
        }
        let distribution = self.distribution ?? .hard
        let (folder, exists) = try outFolder()

        // Names first (a seed's template and name cost nothing), so a clash stops the run
        // before any level is made; then each level is made and written in turn.
        let planned = (0..<count).map { k -> (seed: UInt64, template: LevelTemplate, file: String, name: String) in
            let s = seed + UInt64(k)
            let t = template ?? LevelGenerator.template(forSeed: s)
            return (s, t, Self.fileName(seed: s, distribution: distribution, template: t),
                    LevelGenerator.name(seed: s, distribution: distribution, template: t))
        }
        if try Self.prepare(folder: folder, exists: exists, files: planned.map(\.file), names: planned.map(\.name)) {
            return printLine("finished an interrupted run: the \(count) level\(count == 1 ? "" : "s") (seeds \(seed)..."
                + "\(seed + UInt64(count - 1))) are in \(folder)")
        }
        var templates: [LevelTemplate: Int] = [:], modes: [GameModeKind: Int] = [:]
        try GeneratedFiles.writeAll(planned.map(\.file), into: folder, exists: exists, killAt: try killPoint()) { k in
            let level = LevelGenerator.generate(seed: planned[k].seed, distribution: distribution, template: template)
            templates[planned[k].template, default: 0] += 1
            modes[level.mode.kind, default: 0] += 1
            return LevelCodec.encode(level)
        }
        printLine("wrote \(count) \(distribution.rawValue) level\(count == 1 ? "" : "s") to \(folder) "
            + "(seeds \(seed)...\(seed + UInt64(count - 1))): "
            + LevelTemplate.allCases.compactMap { t in templates[t].map { "\(t.rawValue) \($0)" } }.joined(separator: ", ")
            + "; " + GameModeKind.allCases.compactMap { m in modes[m].map { "\(m.rawValue) \($0)" } }.joined(separator: ", "))
    }

    /// The folder to write into, checked, and whether it exists.
    func outFolder() throws -> (String, Bool) {
        guard !out.isEmpty else { throw UserError("--out: the folder name is empty") }
        let folder = out
        var isDir: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isDir)
        if exists && !isDir.boolValue { throw UserError("--out: \(folder) is a file, not a folder") }
        let parent = LevelFolder.folder(of: folder)
        if !exists {
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDir) else {
                throw UserError("--out: \(folder): the folder \(parent) does not exist")
            }
            guard isDir.boolValue else { throw UserError("--out: \(folder): \(parent) is a file, not a folder") }
        }
        return (folder, exists)
    }

    /// The difficulty asked for, if any; refuses both at once and a malformed or out-of-range range.
    func target() throws -> DifficultyTarget? {
        switch (tier, sigma50) {
        case (nil, nil): return nil
        case (.some, .some): throw UserError("--tier and --sigma50: give one or the other")
        case let (t?, nil): return .tier(t)
        case let (nil, text?):
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]), low.isFinite, high.isFinite else {
                throw UserError("--sigma50: '\(text)' is not LOW-HIGH in radians, e.g. 0.01-0.03")
            }
            guard SkillModel.lowest <= low, low < high, high <= SkillModel.highest else {
                throw UserError("--sigma50: '\(text)' must have \(DecimalText.significant(SkillModel.lowest, digits: 3)) <= LOW < HIGH "
                    + "<= \(DecimalText.significant(SkillModel.highest, digits: 3)) (the rater's range)")
            }
            return .sigma50(low: low, high: high)
        }
    }

    /// --tier / --sigma50: the search (PeggleLevelSearch), then the kept levels written as one.
    func search(_ target: DifficultyTarget) throws {
        if let maxCandidates, !(1...Self.maxCount * LevelSearch.Settings.candidatesPerLevel).contains(maxCandidates) {
            throw UserError("--max-candidates: \(maxCandidates) is outside 1...\(Self.maxCount * LevelSearch.Settings.candidatesPerLevel)")
        }
        if let threads, !(1...256).contains(threads) { throw UserError("--threads: \(threads) is outside 1...256") }
        let settings = LevelSearch.Settings(target: target, distribution: distribution, template: template, firstSeed: seed,
                                            count: count, maxCandidates: maxCandidates, confirm: confirm)
        guard seed <= UInt64.max - UInt64(settings.maxCandidates - 1) else {
            throw UserError("--seed: \(seed) + \(settings.maxCandidates) candidates passes the largest seed, \(UInt64.max)")
        }
        if !confirm, db != nil { throw UserError("--db: --no-confirm rates nothing, so it stores nothing") }
        let db = self.db ?? "peggle.sqlite"
        let (folder, exists) = try outFolder()
        let store: PeggleStore?
        do { store = confirm ? try PeggleStore(path: db) : nil } catch { throw UserError("\(error)") }
        let search = LevelSearch(settings: settings, skillAgent: try AgentFactory.make(.greedy),
                                 threads: threads ?? ProcessInfo.processInfo.activeProcessorCount) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        let result: LevelSearch.Result
        do { result = try search.run(store: store, command: commandLineText()) } catch { throw UserError("\(error)") }
        let asked = settings.confirm ? "\(target), confirmed by the rater" : "\(target), by the estimate alone"
        if let claim = result.leftToOtherRuns.first {
            throw UserError("--db: another peggle rate (process \(claim.pid) on \(claim.host)) is rating candidates in \(db); "
                + "nothing was written: run again when it ends")
        }
        if let reason = result.stopReason { throw UserError("the confirming rating stopped: \(reason); nothing was written") }
        guard result.isComplete(count: count) else {
            throw UserError("found \(result.kept.count) of \(count) levels (\(asked)) among \(result.generated) candidate\(result.generated == 1 ? "" : "s") "
                + "(--max-candidates \(settings.maxCandidates)); nothing was written"
                + (settings.confirm ? ". The ratings are stored in \(db): a rerun with a larger --max-candidates replays them" : ""))
        }
        let d = settings.distribution
        let files = result.kept.map { c in
            Self.fileName(seed: c.seed, distribution: d, template: template ?? LevelGenerator.template(forSeed: c.seed))
        }
        if try Self.prepare(folder: folder, exists: exists, files: files, names: result.kept.map(\.level.name)) {
            return printLine("finished an interrupted run: the \(count) level\(count == 1 ? "" : "s") (\(asked)) are in \(folder)")
        }
        try GeneratedFiles.writeAll(files, into: folder, exists: exists, killAt: try killPoint()) { LevelCodec.encode(result.kept[$0].level) }
        let cost = result.cost(firstSeed: seed, complete: true)
        printLine("wrote \(count) level\(count == 1 ? "" : "s") (\(asked)) to \(folder): \(cost.candidates) \(d.rawValue) "
            + "candidate\(cost.candidates == 1 ? "" : "s") (seeds \(seed)...\(seed + UInt64(cost.candidates - 1))), "
            + "\(cost.screened) passed the estimate" + (settings.confirm ? " and were rated" : "")
            + "; \(DecimalText.fixed(Double(cost.candidates) / Double(count), decimals: 1)) candidates per level kept"
            + (settings.confirm ? "; ratings in \(db)" : ""))
    }

    /// Finishes or removes what killed runs left where this run stages (`GeneratedFiles`), then
    /// refuses a file or level name the folder already has, before anything is written. True when
    /// a killed run of these same files had committed them, so they are all in place now.
    static func prepare(folder: String, exists: Bool, files: [String], names: [String]) throws -> Bool {
        let target = URL(fileURLWithPath: folder)
        let finished = try GeneratedFiles.recoverStages(in: exists ? target : target.deletingLastPathComponent())
        guard exists else { return false }
        if Set(files).isSubset(of: finished) { return true }
        let present = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        if let clash = files.first(where: present.contains) {
            throw UserError("--out: \(folder) already has \(clash); nothing was written (choose another folder or seed)")
        }
        let wanted = Set(names.map { $0.lowercased() })
        let held = LevelFolder.levelNames(in: folder)
        if let clash = held.sorted(by: { $0.key < $1.key }).first(where: { wanted.contains($0.value.lowercased()) }) {
            throw UserError("--out: \(clash.key) already holds a level named '\(clash.value)'; level names must be "
                + "unique in a folder, so nothing was written")
        }
        return false
    }

    func killPoint() throws -> GeneratedFiles.KillPoint? {
        guard let killAt else { return nil }
        guard let point = GeneratedFiles.KillPoint(killAt) else {
            throw UserError("--kill-at: '\(killAt)' is not written:N, committed, moved:N or finished")
        }
        return point
    }

    /// "hard-000042-arcs.json": sorts by seed within a distribution.
    static func fileName(seed: UInt64, distribution: LevelDistribution, template: LevelTemplate) -> String {
        let digits = String(seed)
        return "\(distribution.rawValue)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits)-\(template.rawValue).json"
    }
}
