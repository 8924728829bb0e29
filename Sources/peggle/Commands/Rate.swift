import ArgumentParser
import Dispatch
import Foundation
import PeggleAgents
import PeggleCommandLine
import PeggleDifficulty
import PeggleDrawing
import PeggleGame
import PeggleLevel
import PeggleRating
import PeggleStore

/// `peggle rate LEVELS...`: a rating run (PeggleRating) into a database; this command reads the
/// arguments and the level files, and draws the progress.
struct Rate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rate how hard levels are: agents play them with aim noise; every game goes to SQLite.",
        discussion: "Adaptive (the default): per level, the greedy agent plays batches of games at the aim noises "
            + "(sigma) that teach most about sigma50, the noise at which it wins half its games, until the 95% interval "
            + "of sigma50 is within --precision either side or --budget games are spent; the other agents play "
            + "--episodes games at sigma 0. Grid: every agent plays --episodes games at every --sigmas. "
            + "A game already in the database (same level content, agent, parameters, seed and sigma) is not played "
            + "again, so an interrupted run (Ctrl-C, kill -9) resumes where it stopped when run again, with the same "
            + "choices and nothing lost or duplicated. Then `peggle report` writes the difficulty tables and the HTML report.")

    @Argument(help: "Level files, or folders whose *.json files are levels.")
    var levels: [String]

    /// The agents and the method: `bench rating` takes the same group.
    @OptionGroup var ratingOptions: RateOptions

    @Option(help: "The SQLite database to add to (created if missing).")
    var db = "peggle.sqlite"

    @Option(help: "First episode seed.")
    var seed: UInt64 = 0

    @Option(help: "Games committed per transaction.")
    var batch = 25

    @Option(help: "Shot cap per game (a game still going there is stored as unfinished).")
    var maxShots = Episode.defaultMaxShots

    @OptionGroup var tuning: AgentOptions

    @Flag(help: "Check the options, agents and levels, say what would be rated, and write nothing.")
    var dryRun = false

    @Flag(help: "With --dry-run: say it as one JSON object, for programs (the levels, the database, and each agent with the file it is made from, as peggle_gym.ray reads them).")
    var json = false

    /// Test hook: stop (exit code 3) after this many committed batches, as a crash between batches would.
    @Option(help: .hidden)
    var stopAfterBatches: Int?

    /// Test hook: after this many committed batches, print "paused after N batches" to standard
    /// error and commit nothing more (the kill -9 test kills the process there).
    @Option(help: .hidden)
    var pauseAfterBatches: Int?

    func run() throws {
        if json && !dryRun { throw UserError("--json: only with --dry-run (a run's own output is its progress and summary)") }
        let config = try ratingConfig()
        let (found, skipped) = try loadLevels(rules: config.rules)
        if dryRun { return try sayWhatWouldBeRated(found: found, skipped: skipped, agents: config.agents) }
        let rating = try startRun(config: config, levels: found, store: try openStore())
        let summary = try play(rating)
        try report(summary, skipped: skipped)
    }

    /// Checks the options and turns them into the run's config: every refusal names its option
    /// (the agents and the method through `RateOptions`, which `bench rating` shares).
    private func ratingConfig() throws -> RatingConfig {
        guard batch >= 1 else { throw UserError("--batch: \(batch) must be at least 1") }
        guard maxShots >= 1 else { throw UserError("--max-shots: \(maxShots) must be at least 1") }
        let settings = try ratingOptions.settings()
        let agentList = try ratingOptions.agentList(tuning)
        return ratingOptions.config(settings, agents: agentList, firstSeed: seed, maxShots: maxShots)
    }

    /// --dry-run: what a run would rate, and nothing written. With --json, the agents as given
    /// (or the default), each with the file it is made from (`Bundled.file(of:)`): a distributed
    /// rating sends those files to its nodes without knowing the kinds or the defaults itself.
    private func sayWhatWouldBeRated(found: [(file: String, level: Level)], skipped: [(file: String, problem: String)],
                                     agents: [any Agent]) throws {
        for (file, problem) in skipped { FileHandle.standardError.write(Data("would skip \(file): \(problem)\n".utf8)) }
        if json {
            let specs = try ratingOptions.agents.values("--agents")
            return printLine(try JSON.text([
                "levels": found.count, "db": db,
                "agents": specs.map { ["text": $0.text, "kind": $0.kind.rawValue, "file": Bundled.file(of: $0) ?? NSNull()] as [String: Any] },
            ] as [String: Any]))
        }
        printLine("would rate \(found.count) level\(found.count == 1 ? "" : "s") with \(agents.count) agent"
            + "\(agents.count == 1 ? "" : "s") (\(agents.map(\.label).joined(separator: ", "))) into \(db); nothing written")
    }

    private func openStore() throws -> PeggleStore {
        do { return try PeggleStore(path: db) } catch { throw UserError("\(error)") }
    }

    /// Registers the levels and agents and records the run's start; its events draw the progress.
    private func startRun(config: RatingConfig, levels found: [(file: String, level: Level)],
                          store: PeggleStore) throws -> RatingRun {
        let progress = Progress()
        let rating: RatingRun
        do {
            rating = try RatingRun(store: store, levels: found.map { ($0.file, $0.level) }, config: config,
                                   command: commandLineText(), threads: tuning.threadCount, commitBatch: batch,
                                   stopAfterBatches: stopAfterBatches) { event in
                switch event {
                case let .progress(played, atMost, final): progress.show(played: played, atMost: atMost, final: final)
                case let .measured(level, _, fit, stop): progress.note(Self.measuredLine(level: level, fit: fit, stop: stop))
                }
            }
        } catch { throw UserError("\(error)") }
        if let pause = pauseAfterBatches {
            rating.afterCommit = { batches in
                guard batches >= pause else { return }
                FileHandle.standardError.write(Data("paused after \(batches) batches\n".utf8))
                while true { sleep(60) }
            }
        }
        return rating
    }

    /// Runs the rating; Ctrl-C stops taking new games and the writer commits what is finished.
    private func play(_ rating: RatingRun) throws -> RatingRun.Summary {
        signal(SIGINT, SIG_IGN)
        let sigint = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        sigint.setEventHandler { rating.requestStop() }
        sigint.resume()
        defer { sigint.cancel(); signal(SIGINT, SIG_DFL) }
        do { return try rating.run() } catch {
            throw UserError("\(error) (every batch committed before it is kept)")
        }
    }

    /// The summary line, the levels skipped or left to another run, and the exit code.
    private func report(_ summary: RatingRun.Summary, skipped: [(file: String, problem: String)]) throws {
        var line = "rated \(summary.levels) level\(summary.levels == 1 ? "" : "s") with \(summary.agents) agent"
            + "\(summary.agents == 1 ? "" : "s"): \(summary.added) games added, \(summary.alreadyStored) already stored, "
            + "in \(String(format: "%.1f", summary.seconds)) s; database \(db)"
        if let reason = summary.stopReason {
            line += "\n\(reason == .interrupted ? "interrupted by Ctrl-C" : reason.description); run the same command again to resume"
        } else {
            line += "; next: peggle report --db \(db)"
        }
        printLine(line)
        for (file, problem) in skipped { FileHandle.standardError.write(Data("skipped \(file): \(problem)\n".utf8)) }
        for (file, claim) in summary.leftToOtherRuns {
            FileHandle.standardError.write(Data(("left \(file) to the peggle rate already rating it in \(db) (process "
                + "\(claim.pid) on \(claim.host)), which stores its games there\n").utf8))
        }
        if let reason = summary.stopReason { Foundation.exit(reason == .interrupted ? 130 : 3) }
        if !skipped.isEmpty {
            throw UserError("\(skipped.count) level\(skipped.count == 1 ? "" : "s") could not be rated (listed above); the others were")
        }
    }

    static func measuredLine(level: String, fit: SkillFit, stop: SkillMeasurement.Stop) -> String {
        "\(level): sigma50 \(SVGCharts.sigma50Text(fit.sigma50, decimals: 4)) rad after \(fit.games) games (\(stop.rawValue))"
    }

    /// Level files: every argument, folders expanded to their *.json files (sorted). A file that
    /// does not read or validate is reported and skipped; no level at all is an error.
    func loadLevels(rules: Rules) throws -> ([(file: String, level: Level)], [(file: String, problem: String)]) {
        let files = try Files.levelFiles(levels)
        var ok: [(file: String, level: Level)] = [], bad: [(file: String, problem: String)] = []
        var hashes = Set<String>()
        for f in files {
            do {
                let l = try Files.loadLevel(f, rules: rules)
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
}

/// Progress on standard error: a bar redrawn in place on a terminal, a plain line every 10 s
/// otherwise; notes (a level measured) on lines of their own.
final class Progress: @unchecked Sendable {
    let terminal = isatty(2) != 0
    let start = DispatchTime.now().uptimeNanoseconds
    var lastShown: UInt64 = 0
    var barShown = false
    let lock = NSLock()

    func note(_ line: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardError.write(Data(((terminal && barShown ? "\r\u{1B}[K" : "") + line + "\n").utf8))
        barShown = false
    }

    func show(played: Int, atMost: Int, final: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        let interval: UInt64 = terminal ? 250_000_000 : 10_000_000_000
        guard final || now - lastShown >= interval else { return }
        lastShown = now
        let elapsed = Double(now - start) / 1e9
        let rate = elapsed > 0 ? Double(played) / elapsed : 0
        let total = max(atMost, played)
        let text = "\(played) games (at most \(total))  \(String(format: "%.1f", rate))/s  "
            + (final ? "done in \(Self.clock(elapsed))" : "elapsed \(Self.clock(elapsed))")
        if terminal {
            let width = 30, filled = total > 0 ? Int(Double(played) / Double(total) * Double(width)) : width
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(text)\u{1B}[K\(final ? "\n" : "")".utf8))
            barShown = !final
        } else if !final || played > 0 {
            FileHandle.standardError.write(Data("progress: \(text)\n".utf8))
        }
    }

    static func clock(_ s: Double) -> String {
        let t = Int(s.rounded())
        return t >= 3600 ? String(format: "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60) : String(format: "%d:%02d", t / 60, t % 60)
    }
}
