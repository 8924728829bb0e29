import ArgumentParser
import Foundation
import PeggleAgents
import PeggleCommandLine
import PeggleDifficulty
import PeggleEstimate
import PeggleLevel
import PeggleLevelFiles
import PeggleLevelSearch
import PeggleStore
import PeggleUtilities

/// `peggle level tune FILE --tier T`: the difficulty dial (`LevelTune`). Writes the tuned level to a
/// new file, never over FILE; exit 0 when the tier is reached (or FILE is in it already, then
/// nothing is written), 1 when no small edit reached it (nothing written), 2 on bad input.
struct LevelTuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Propose the fewest small edits that move a level into a tier, confirmed by the rater.",
        discussion: "Edits keep the layout: an orange peg made blue or a blue one orange, the balls +-1 (classic), the "
            + "target or the clock (beat the score), the shots +-1 (dodge), one peg moved a short step. The level is "
            + "rated first (the greedy agent's adaptive rating at peggle rate's defaults); each edit is chosen by the "
            + "instant estimate (corrected by the last rating) among those that move difficulty the way needed, and "
            + "the edited level is rated to confirm, until a rating lies in the tier. "
            + "The tuned level goes to --out (a new file, never FILE) with a report of each edit and the rated "
            + "sigma50 before and after. Exit code 1, and no file, when no small edit reaches the tier; "
            + "0 and no file when FILE is in the tier already. docs/levels.md describes it.")

    @Argument(help: "The level file to tune (never written).")
    var file: String

    @Option(help: ArgumentHelp("The tier to move the level into.", valueName: Tier.allValueStrings.joined(separator: "|")))
    var tier: Tier

    @Option(name: [.short, .long], help: ArgumentHelp("The new level file (a .json file that does not exist yet; default: "
        + "FILE's name with .tuned-TIER.json, beside it)."))
    var out: String?

    @Option(help: "Edits made at most (1 to 20).")
    var maxEdits = LevelTune.Settings.defaultMaxEdits

    @Option(help: "Ratings of edited levels at most (1 to 20).")
    var maxRatings = LevelTune.Settings.defaultMaxConfirmations

    @Option(help: "How far a move shifts a peg, board units (0 to 100; 0: no moves).")
    var moveStep = 20.0

    @Option(parsing: .unconditional, help: "Seed of the ratings' first game (as peggle rate --seed).")
    var seed: UInt64 = 0

    @Option(help: ArgumentHelp("An SQLite database to keep the ratings' games in (created if missing), so a rerun "
        + "replays them; by default they are kept in memory."))
    var db: String?

    @Option(help: "Worker threads (default: the machine's cores; the result is the same for any count).")
    var threads: Int?

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    func run() throws {
        let limits = LevelTune.limits
        guard limits.contains(maxEdits) else { throw UserError("--max-edits: \(maxEdits) is outside \(limits.lowerBound)...\(limits.upperBound)") }
        guard limits.contains(maxRatings) else { throw UserError("--max-ratings: \(maxRatings) is outside \(limits.lowerBound)...\(limits.upperBound)") }
        guard moveStep.isFinite, (0...100).contains(moveStep) else { throw UserError("--move-step: \(moveStep) is outside 0...100") }
        if let threads, !(1...256).contains(threads) { throw UserError("--threads: \(threads) is outside 1...256") }
        var level = try Files.loadLevel(file)
        let out = self.out ?? Self.defaultOut(file, tier: tier)
        guard out.hasSuffix(".json") else { throw UserError("--out: \(out) must end in .json") }
        if LevelFolder.samePath(out, file) { throw UserError("--out: \(out) is the level being tuned; it is never written") }
        try Files.checkOutput(out)
        if FileManager.default.fileExists(atPath: out) {
            throw UserError("--out: \(out) exists; the tuner never replaces a file (remove it or give another --out)")
        }
        let store: PeggleStore
        do { store = try db.map { try PeggleStore(path: $0) } ?? PeggleStore() } catch { throw UserError("--db: \(error)") }
        let settings = LevelTune.Settings(target: .tier(tier), maxEdits: maxEdits, maxConfirmations: maxRatings,
                                          moveStep: moveStep, firstSeed: seed)
        let tune = LevelTune(settings: settings, skillAgent: try AgentFactory.make(.greedy),
                             threads: threads ?? ProcessInfo.processInfo.activeProcessorCount) { progress in
            if let line = progress.line { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        let result: LevelTune.Result
        do { result = try tune.run(level, store: store, command: commandLineText()) } catch { throw UserError("\(error)") }
        if let claim = result.leftToOtherRuns.first {
            throw UserError("--db: another peggle rate (process \(claim.pid) on \(claim.host)) is rating this level in "
                + "\(db ?? "memory"); nothing was written: run again when it ends")
        }
        if let reason = result.stopReason { throw UserError("the rating stopped: \(reason); nothing was written") }

        var written: String?
        if result.status == .reached {
            level = result.level
            level.readOnly = false
            level.name = LevelFolder.uniqueName(level.name, tail: LevelTune.nameTail(tier), in: LevelFolder.folder(of: out))
            try Files.write(LevelCodec.encode(level), to: out)
            written = out
        }
        let report = LevelTune.Report(result, settings: settings, tier: tier, file: file, out: written)
        printLine(json ? try Self.json(report) : report.text)
        if result.status == .notReached { throw ExitCode(1) }
    }

    /// "Levels/fortress.json" -> "Levels/fortress.tuned-hard.json".
    static func defaultOut(_ file: String, tier: Tier) -> String { LevelTune.tunedFile(file, tier: tier) }

    /// The report as one line of JSON, keys sorted and in snake_case (`max_edits`).
    static func json(_ report: LevelTune.Report) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        do { return String(decoding: try encoder.encode(report), as: UTF8.self) } catch { throw UserError("cannot write JSON: \(error)") }
    }
}
