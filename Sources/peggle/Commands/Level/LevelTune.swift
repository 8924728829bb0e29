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
    var maxEdits = 6

    @Option(help: "Ratings of edited levels at most (1 to 20).")
    var maxRatings = 6

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
        guard (1...20).contains(maxEdits) else { throw UserError("--max-edits: \(maxEdits) is outside 1...20") }
        guard (1...20).contains(maxRatings) else { throw UserError("--max-ratings: \(maxRatings) is outside 1...20") }
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
                             threads: threads ?? ProcessInfo.processInfo.activeProcessorCount) { line in
            FileHandle.standardError.write(Data((line + "\n").utf8))
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
            level.name = LevelFolder.uniqueName(level.name, tail: " (\(tier.rawValue))", in: LevelFolder.folder(of: out))
            try Files.write(LevelCodec.encode(level), to: out)
            written = out
        }
        printLine(json ? try JSON.text(report(result, written: written)) : text(result, written: written))
        if result.status == .notReached { throw ExitCode(1) }
    }

    /// "Levels/fortress.json" -> "Levels/fortress.tuned-hard.json".
    static func defaultOut(_ file: String, tier: Tier) -> String {
        let stem = file.hasSuffix(".json") ? String(file.dropLast(5)) : file
        return "\(stem).tuned-\(tier.argument).json"
    }

    func tierText(_ sigma50: Double) -> String { TierEdges().tier(sigma50: sigma50).rawValue }

    func ratedText(_ r: SkillFit) -> String {
        "sigma50 \(n(r.estimate)) (\(n(r.low))-\(n(r.high))), \(tierText(r.estimate))"
    }

    func n(_ v: Double) -> String { DecimalText.significant(v, digits: 3) }

    func text(_ r: LevelTune.Result, written: String?) -> String {
        var lines = ["\(file): \(r.original.name), to tier \(tier.rawValue)",
                     "before: estimate \(n(r.before.estimate.sigma50)); rated \(ratedText(r.before.rated))"]
        for (k, s) in r.steps.enumerated() {
            lines.append("edit \(k + 1): \(s.edit) (estimate \(n(s.estimate.sigma50)))")
        }
        switch r.status {
        case .alreadyThere:
            lines.append("already in tier \(tier.rawValue): nothing to do, nothing written")
        case .reached:
            lines.append("after: estimate \(n(r.after.estimate.sigma50)); rated \(ratedText(r.after.rated))")
            lines.append("reached tier \(tier.rawValue) with \(r.steps.count) edit\(r.steps.count == 1 ? "" : "s") "
                + "(\(r.confirmations.count) rating\(r.confirmations.count == 1 ? "" : "s")); wrote \(written ?? "")")
        case .notReached:
            if !r.steps.isEmpty { lines.append("nearest: estimate \(n(r.after.estimate.sigma50)); rated \(ratedText(r.after.rated))") }
            let tried = r.confirmations.dropFirst().map { "\($0.edits) edit\($0.edits == 1 ? "" : "s"): \(n($0.rated.estimate))" }
            lines.append("not reached: no rated level within \(maxEdits) edit\(maxEdits == 1 ? "" : "s") and \(maxRatings) rating\(maxRatings == 1 ? "" : "s") "
                + "lies in tier \(tier.rawValue)" + (tried.isEmpty ? " (no edit brought the estimate nearer)" : " (rated: \(tried.joined(separator: ", ")))")
                + "; nothing written")
        }
        return lines.joined(separator: "\n")
    }

    func report(_ r: LevelTune.Result, written: String?) -> [String: Any] {
        func rating(_ c: LevelTune.Confirmation) -> [String: Any] {
            ["edits": c.edits, "estimate": c.estimate.sigma50, "sigma50": c.rated.estimate, "low": c.rated.low,
             "high": c.rated.high, "tier": tierText(c.rated.estimate), "games": c.rated.games]
        }
        return [
            "file": file, "level": r.original.name, "tier": tier.argument, "status": r.status.rawValue,
            "out": written.map { $0 as Any } ?? NSNull(),
            "edits": r.steps.map { ["kind": $0.edit.kind.rawValue, "description": $0.edit.description,
                                    "estimate": $0.estimate.sigma50, "predicted": $0.predicted] as [String: Any] },
            "before": rating(r.before), "after": rating(r.after), "ratings": r.confirmations.map(rating),
            "games_added": r.gamesAdded, "games_stored": r.gamesStored,
        ]
    }
}
