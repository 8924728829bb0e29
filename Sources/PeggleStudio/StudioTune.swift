import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PeggleLevelSearch
import PeggleRating
import PeggleStore

/// "Tune to tier" in the studio: `peggle level tune FILE --tier TIER` (the difficulty dial,
/// `LevelTune`) on a level file of the folder, its ratings the greedy agent's at the rater's
/// defaults (or on the budget asked), into the studio's database (`--db`) or one in memory, as Rate
/// does. A level that reaches the tier is written to a new file beside it (`LevelTune.tunedFile`,
/// `-2`, `-3`... when taken; never over a file), named "NAME (TIER)" made unique in the folder.
public enum StudioTune {
    /// One line of the streamed reply: progress while the search runs, then the report.
    public enum Event: Sendable, Encodable {
        case progress(LevelTune.Progress)
        /// The command's report, `out` the new file (a bare name in the folder), and the seconds the tune took.
        case result(LevelTune.Report, seconds: Double)
        case error(String)

        enum CodingKeys: String, CodingKey { case type, edits, ratings, played, atMost, line, result, seconds, message }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case let .progress(p):
                try c.encode("progress", forKey: .type)
                try c.encode(p.edits, forKey: .edits)
                try c.encode(p.ratings, forKey: .ratings)
                try c.encodeIfPresent(p.played, forKey: .played)
                try c.encodeIfPresent(p.atMost, forKey: .atMost)
                try c.encodeIfPresent(p.line, forKey: .line)
            case let .result(r, seconds):
                try c.encode("result", forKey: .type)
                try c.encode(r, forKey: .result)
                try c.encode(seconds, forKey: .seconds)
            case let .error(m):
                try c.encode("error", forKey: .type)
                try c.encode(m, forKey: .message)
            }
        }
    }

    /// A tune checked and ready to run: everything a request can get wrong is refused before the
    /// reply starts streaming, so a refusal is a status, not a line in a 200.
    public struct Job: Sendable {
        public let file: String
        public let level: Level
        public let tier: Tier
        public let settings: LevelTune.Settings

        /// Checks `request` on `file` of the folder.
        public init(file: String, request: TuneRequest, api: StudioAPI) throws(StudioError) {
            guard let tier = Tier.named(request.tier) else {
                throw .badRequest("bad request: tier: '\(LevelCodec.cut(request.tier))' is not "
                    + Tier.askable.dropLast().map(\.argument).joined(separator: ", ") + " or " + Tier.askable.last!.argument)
            }
            var settings = LevelTune.Settings(target: .tier(tier), rules: api.rules)
            for (name, value) in [("max_edits", request.maxEdits), ("max_ratings", request.maxRatings), ("budget", request.budget)] {
                let range = TuneRequest.wholeRanges[name]!
                if let value, !range.contains(value) {
                    throw .badRequest("bad request: \(name): \(value) is outside \(range.lowerBound)...\(range.upperBound)")
                }
            }
            settings.maxEdits = request.maxEdits ?? settings.maxEdits
            settings.maxConfirmations = request.maxRatings ?? settings.maxConfirmations
            if let budget = request.budget { settings.adaptive = AdaptiveSettings(budget: budget) }
            settings.firstSeed = request.seed ?? 0
            let level = try api.library.open(file).level
            if let issue = level.validate(rules: api.rules).first { throw .refused("the level cannot be tuned yet: \(issue)") }
            try StudioRating.checkNotHeld(level, rules: api.rules, database: api.store)
            // The file a reached tier would write is checked now, not after minutes of ratings (the
            // level's new name is always fitted to the name limit: `LevelLibrary.saveNew`).
            _ = try api.library.path(of: LevelTune.tunedFile(file, tier: tier))
            self.file = file
            self.level = level
            self.tier = tier
            self.settings = settings
        }

        /// Runs the search on `threads` threads, telling `events` its progress; writes the tuned
        /// level when the tier is reached.
        public func run(api: StudioAPI, threads: Int, stop: StudioStop = StudioStop(),
                        events: @escaping @Sendable (Event) -> Void) throws(StudioError)
            -> (report: LevelTune.Report, seconds: Double) {
            let started = Date()
            let agent: any Agent
            do { agent = try AgentFactory.make(.greedy) } catch { throw StudioError(500, "the greedy agent could not be made: \(error)") }
            let result: LevelTune.Result
            do {
                var tune = LevelTune(settings: settings, skillAgent: agent, threads: threads) { events(.progress($0)) }
                tune.onRun = { run in stop.onStop { run.requestStop() } }
                result = try tune.run(level, store: try api.store ?? PeggleStore(), command: "studio tune")
            } catch {
                throw StudioError(500, "the tune failed: \(error)")
            }
            if let claim = result.leftToOtherRuns.first { throw StudioRating.held(claim.process) }
            if let reason = result.stopReason { throw StudioError(500, "the rating stopped: \(reason); nothing was written") }
            var out: String?
            if result.status == .reached {
                let tier = tier, file = file
                out = try api.library.saveNew(result.level, files: { LevelTune.tunedFile(file, tier: tier, copy: $0) },
                                              tail: LevelTune.nameTail(tier)).file
            }
            return (LevelTune.Report(result, settings: settings, tier: tier, file: file, out: out), Date().timeIntervalSince(started))
        }
    }
}
