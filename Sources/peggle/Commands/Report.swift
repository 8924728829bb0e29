import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleAgents
import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PeggleRating
import PeggleReports
import PeggleStore

/// The files `peggle report` writes: the CSV tables, the HTML page.
package enum ReportFormat: String, CaseIterable, ListElement {
    case csv, html
}

extension ReportPrior: ExpressibleByArgument {}

/// `peggle report`: difficulty tables and the HTML report from a rating database.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the difficulty reports (CSV and HTML) from a database filled by `peggle rate`.",
        discussion: "Writes OUT/difficulty.csv (one row per level), OUT/episodes.csv (one row per game), "
            + "OUT/pegs.csv (one row per orange peg: how often the skill games near sigma50 hit it and lost with it) "
            + "OUT/humans.csv (one row per level people played in `peggle studio --db`: human games and win rate beside sigma50) "
            + "and OUT/report.html (one self-contained page: each level's picture with its orange pegs' heatmap, "
            + "skill curve and win rates, hardest first). When people played, it prints the rank correlation between "
            + "the human win rate and sigma50 over the levels with at least --min-human-games of them. "
            + "docs/metrics.md defines every column and figure.")

    @Option(help: "The database written by `peggle rate`.")
    var db = "peggle.sqlite"

    @Option(help: "Folder for the reports (created if missing).")
    var out = "Reports"

    @Option(help: "Formats, comma-separated: csv, html.")
    var format = CommaList<ReportFormat>(ReportFormat.allCases)

    @Option(help: "Levels with at least this many human games enter the comparison of human win rates with sigma50.")
    var minHumanGames = 5

    @Option(help: "The prior each skill curve is fitted with: recorded (the one the rating runs measured with, so sigma50 is what `peggle rate` printed), flat, population, population+estimate.")
    var prior = ReportPrior.recorded

    func run() throws {
        let refusal = "'\(format.text)' is not a list of " + ReportFormat.allCases.map(\.rawValue).joined(separator: " and ")
        let formats = Set(try format.values("--format", skippingEmpty: true) { _, _, _ in refusal })
        guard !formats.isEmpty else { throw UserError("--format: " + refusal) }
        guard minHumanGames >= 1 else { throw UserError("--min-human-games: \(minHumanGames) is not a number of games >= 1") }
        guard FileManager.default.fileExists(atPath: db) else {
            throw UserError("\(db): no such database (fill one with `peggle rate LEVELS --db \(db)`)")
        }
        let store: PeggleStore
        let games: [PlayedGame]
        let stored: [LevelRecord]
        let agents: [AgentRecord]
        let fitPriors: [FitPriorKey: FitPrior]
        let people: [String: Int]
        do {
            store = try PeggleStore(readingOnly: db)  // reporting writes nothing, not even -wal or -shm
            games = try store.games()
            stored = try store.levels()
            agents = try store.agents()
            fitPriors = try RecordedPriors.fitPriors(store, choice: prior)
            people = try store.humanPlayers()
        } catch { throw UserError("\(error)") }
        guard !games.isEmpty else { throw UserError("\(db): holds no rated games yet (run `peggle rate` first)") }
        try Self.prepare(folder: out)

        // Kinds in the agent table's order (random, greedy, linear), any other kind stored after them by name.
        let kinds = KindOrder(AgentFactory.programKinds)
        let ratings = DifficultyRater.rate(games, options: RatingOptions(bands: formats.contains(.html), fitPriors: fitPriors,
                                                                         kindOrder: kinds))
        var levels: [String: Level] = [:]
        for r in stored { if let l = try? LevelCodec.decode(Data(r.json.utf8)) { levels[r.contentHash] = l } }
        let pegs = try Self.pegRates(ratings, store: store, levels: stored, agents: agents, decoded: levels)
        var files: [(String, String)] = []
        if formats.contains(.csv) {
            files.append(("difficulty.csv", CSVReport.difficulty(ratings, kinds: kinds)))
            files.append(("episodes.csv", CSVReport.episodes(games)))
            files.append(("pegs.csv", CSVReport.pegs(pegs)))
            files.append(("humans.csv", CSVReport.humans(ratings, people: people)))
        }
        // Only a database with human games says anything of people, so other reports stay as they were.
        let comparison = games.contains { $0.agentKind == .human } ? HumanComparison(ratings, minGames: minHumanGames) : nil
        if formats.contains(.html) {
            let agents = Set(games.map(\.agentLabel)).sorted()
            var facts: [(String, String)] = [
                ("database", db), ("levels", "\(ratings.count)"), ("games", "\(games.count)"),
                ("agents", agents.joined(separator: ", ")), ("engine", "Peggle Gym \(PeggleGym.version)"),
            ]
            if let comparison { facts.append(("humans against \u{3c3}50", comparison.summary)) }
            files.append(("report.html", HTMLReport.render(ratings, levels: levels, facts: facts,
                                                           pegRates: Dictionary(uniqueKeysWithValues: pegs.map { ($0.levelHash, $0) }),
                                                           kinds: kinds, people: people)))
        }
        // Everything is rendered before the first file is written; each file is replaced atomically.
        for (name, text) in files { try Files.write(text, to: (out as NSString).appendingPathComponent(name)) }
        for r in ratings.prefix(40) {
            printLine("\(r.rank.map { "\($0)." } ?? "-") \(r.levelName): \(r.tierText)\(r.warnings.isEmpty ? "" : " (\(r.warnings.count) warning\(r.warnings.count == 1 ? "" : "s"))")")
        }
        if let comparison { printLine("humans against sigma50: " + comparison.summary) }
        for p in pegs where p.unreplayable > 0 {
            FileHandle.standardError.write(Data(("warning: \(p.levelName): \(p.unreplayable) skill game\(p.unreplayable == 1 ? "" : "s") "
                + "near sigma50 left out of pegs.csv, as \(p.unreplayable == 1 ? "it does" : "they do") not replay to the stored "
                + "outcome (another engine played them); first: \(p.firstUnreplayable ?? "")\n").utf8))
        }
        printLine("wrote " + files.map { (out as NSString).appendingPathComponent($0.0) }.joined(separator: ", "))
    }

    /// Each rated level's orange pegs over its skill games near sigma50, in the order of
    /// `ratings`, replayed from the stored shots (docs/reports.md, "Why a level is hard"). A level
    /// whose stored file does not decode or validate has no rows.
    static func pegRates(_ ratings: [LevelRating], store: PeggleStore, levels: [LevelRecord], agents: [AgentRecord],
                         decoded: [String: Level]) throws -> [LevelPegRates] {
        let levelIDs = Dictionary(levels.compactMap { r in r.id.map { (r.contentHash, $0) } }, uniquingKeysWith: min)
        let agentIDs = Dictionary(agents.compactMap { a in a.id.map { (a.label, $0) } }, uniquingKeysWith: min)
        let threads = ProcessInfo.processInfo.activeProcessorCount
        var out: [LevelPegRates] = []
        for r in ratings {
            guard let level = decoded[r.levelHash], let prepared = try? PreparedLevel(level) else { continue }
            var games: [PlayedGame] = []
            if let label = r.skill?.agentLabel, PegRates.window(r.sigma50) != nil,
               let levelID = levelIDs[r.levelHash], let agentID = agentIDs[label] {
                do { games = try store.games(levelID: levelID, agentID: agentID, withShots: true) } catch {
                    throw UserError("\(error)")
                }
            }
            out.append(PegRates.rates(r, prepared: prepared, games: games, threads: threads))
        }
        return out
    }

    /// Creates the folder if needed and proves it writable before anything is rendered.
    static func prepare(folder: String) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            guard isDir.boolValue else { throw UserError("--out: \(folder) is a file, not a folder") }
        } else {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw UserError("--out: cannot create the folder \(folder) (\(error.localizedDescription))")
            }
        }
        let probe = (folder as NSString).appendingPathComponent(".peggle-write-test-\(getpid())")
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else {
            throw UserError("--out: the folder \(folder) is not writable")
        }
        try? FileManager.default.removeItem(atPath: probe)
    }
}
