import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleDrawing
import PeggleGame
import PeggleLevel
import PeggleRating
import PeggleStore
import PeggleUtilities

/// "Rate" in the studio: the adaptive rater of `peggle rate` (the random and greedy agents at
/// their defaults) on the open level, into the studio's database (`--db`) or one in memory, then the report's numbers and
/// skill-curve chart, and the greedy agent's first shot at sigma 0 as an overlay. The linear
/// agent is left out: it needs a weights file, and its win rate is context, not the rating.
public enum StudioRating {
    /// The greedy games a studio rating may spend by default: the rater's own default.
    public static let defaultBudget = AdaptiveSettings.defaultBudget
    /// A batch is 8 games; more than the rater's default budget is never needed in a page.
    public static let budgets = AdaptiveSettings.defaultBatchSize...AdaptiveSettings.defaultBudget

    /// One line of the streamed reply: progress while the rating runs, then the result.
    public enum Event: Sendable, Encodable {
        case progress(played: Int, atMost: Int)
        case result(Result)
        case error(String)

        enum CodingKeys: String, CodingKey { case type, played, atMost, result, message }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case let .progress(played, atMost):
                try c.encode("progress", forKey: .type)
                try c.encode(played, forKey: .played)
                try c.encode(atMost, forKey: .atMost)
            case let .result(r):
                try c.encode("result", forKey: .type)
                try c.encode(r, forKey: .result)
            case let .error(m):
                try c.encode("error", forKey: .type)
                try c.encode(m, forKey: .message)
            }
        }
    }

    /// What the page shows after a rating.
    public struct Result: Sendable, Encodable, Equatable {
        /// The tier as the report gives it: from the interval ("hard", or "medium to easy" when it
        /// straddles an edge).
        public var tier: String
        /// "0.035 (0.028–0.044)", "< 0.001": as the report prints it.
        public var sigma50Text: String
        /// The estimate and interval when sigma50 is a value; `bound` and `probability` when it is a bound.
        public var sigma50: Double?, low: Double?, high: Double?
        public var bound: String?, probability: Double?
        public var stop: String?
        public var games: Int
        public var agents: [AgentRate]
        /// The skill curve, the report's SVG chart.
        public var chart: String
        /// The greedy agent's choice for the first shot at sigma 0 and where it goes.
        public var firstShot: ShotView
        /// Each orange peg's hit and lost-with rates over the greedy games near sigma50: the
        /// report's heatmap, drawn on the board.
        public var pegs: PegHeat
        public var seconds: Double
    }

    /// The report's heatmap for the page: the rates of `PegRates` with each ring's colour, so the
    /// page draws the report's scale without a copy of it.
    public struct PegHeat: Sendable, Encodable, Equatable {
        /// Greedy games counted, and how many of them were not won.
        public var games: Int, gamesLost: Int
        /// The aim noises counted, radians; nil when sigma50 is unknown.
        public var sigmaLow: Double?, sigmaHigh: Double?
        public var pegs: [Peg]
        /// The colour scale at 0, 0.1, ..., 1, for the legend.
        public var scale: [String]

        public struct Peg: Sendable, Encodable, Equatable {
            /// The peg's `id` in the level.
            public var id: Int
            public var x: Double, y: Double
            public var hitRate: Double?, lostWithRate: Double?
            /// The ring's colour (from the lost-with rate); nil when no counted game was lost.
            public var colour: String?
        }

        init(_ rates: LevelPegRates) {
            games = rates.games
            gamesLost = rates.gamesLost
            sigmaLow = rates.window?.lowerBound
            sigmaHigh = rates.window?.upperBound
            pegs = rates.pegs.map {
                Peg(id: $0.pegID, x: $0.x, y: $0.y, hitRate: $0.hitRate, lostWithRate: $0.lostWithRate,
                    colour: $0.lostWithRate.map(SVGPalette.heat))
            }
            scale = (0...10).map { SVGPalette.heat(Double($0) / 10) }
        }
    }

    public struct AgentRate: Sendable, Encodable, Equatable {
        /// Encoded as its raw value.
        public var agent: AgentKind
        public var sigma: Double
        public var games: Int
        public var winRate: Double
    }

    /// Rates `level` (already validated) and reports progress through `events`; returns the result.
    /// With `database` (`peggle studio --db`) the games go there, as `peggle rate` would store
    /// them: a rating is kept, and rating the same level again with the same seed replays its
    /// stored games instead of playing them. Without one, into a database in memory.
    public static func rate(_ level: Level, budget: Int, seed: UInt64, threads: Int, rules: Rules = Rules(),
                            database: PeggleStore? = nil, stop: StudioStop = StudioStop(),
                            events: @escaping @Sendable (Event) -> Void) throws(StudioError) -> Result {
        // `peggle rate`'s agents at their defaults, made as it makes them.
        let agents: [any Agent]
        do { agents = [try AgentFactory.make(.random), try AgentFactory.make(.greedy)] } catch {
            throw StudioError(500, "the agents could not be made: \(error)")
        }
        let greedy = agents[1]
        let config = RatingConfig(agents: agents, adaptive: AdaptiveSettings(budget: budget),
                                  firstSeed: seed, rules: rules)
        let summary: RatingRun.Summary
        var games: [PlayedGame] = []
        let store: PeggleStore
        let fitPriors: [FitPriorKey: FitPrior]
        let hash: String
        do {
            store = try database ?? PeggleStore()
            let run = try RatingRun(store: store, levels: [(level.name, level)], config: config, command: "studio rate",
                                    threads: threads) { event in
                if case let .progress(played, atMost, _) = event { events(.progress(played: played, atMost: atMost)) }
            }
            stop.onStop { run.requestStop() }
            summary = try run.run()
            if let claim = summary.leftToOtherRuns.first?.claim { throw held(claim.process) }
            // The games played so far stay stored (a rating again resumes from them).
            if let reason = summary.stopReason { throw StudioError(500, "the rating stopped: \(reason)") }
            hash = try PreparedLevel(level, rules: rules).hash
            // This level's games of the run's agents only: a database may hold many levels and people's games.
            let levelID = try store.levels().first { $0.contentHash == hash }?.id
            for agent in try store.agents() where config.agents.contains(where: { $0.label == agent.label }) {
                if let levelID, let agentID = agent.id { games += try store.games(levelID: levelID, agentID: agentID) }
            }
            // Games `peggle rate` stored with another prior are read as the report reads them.
            fitPriors = try RecordedPriors.fitPriors(store, levels: [hash])
        } catch let error as StudioError {
            throw error
        } catch {
            throw StudioError(500, "the rating failed: \(error)")
        }
        guard let rating = DifficultyRater.rate(games, options: RatingOptions(bands: true, fitPriors: fitPriors,
                                                                           kindOrder: KindOrder(AgentFactory.programKinds))).first,
              let curve = rating.skill else {
            throw StudioError(500, "the rating produced no skill curve")
        }
        var result = Result(
            tier: rating.tierText, sigma50Text: SVGCharts.sigma50Text(rating.sigma50),
            games: games.count,
            agents: rating.agents.map { AgentRate(agent: $0.agentKind, sigma: $0.sigma, games: $0.episodes, winRate: $0.winRate) },
            chart: SVGCharts.skillCurve(curve), firstShot: try firstShot(level, agent: greedy, seed: seed, rules: rules),
            pegs: PegHeat(try pegRates(rating, level: level, store: store, rules: rules, threads: threads)),
            seconds: summary.seconds)
        switch rating.sigma50 {
        case let .value(v, low, high): (result.sigma50, result.low, result.high) = (v, low, high)
        case let .below(b, p): (result.bound, result.probability, result.sigma50) = ("below", p, b)
        case let .above(b, p): (result.bound, result.probability, result.sigma50) = ("above", p, b)
        case .unknown: break
        }
        result.stop = summary.measurements.first?.measurement.stop?.rawValue
        return result
    }

    /// Refuses (409) a rating of `level` while a running `peggle rate` holds it in `database`:
    /// checked before the reply starts streaming, so the refusal is a status, not a line in a 200.
    /// (A `peggle rate` that claims the level a moment later is still caught by the run itself,
    /// and reported as an error line.)
    static func checkNotHeld(_ level: Level, rules: Rules, database: PeggleStore?) throws(StudioError) {
        guard let database else { return }
        do {
            let hash = try PreparedLevel(level, rules: rules).hash
            guard let levelID = try database.levels().first(where: { $0.contentHash == hash })?.id,
                  let claim = try database.claims().first(where: { $0.levelID == levelID }), claim.process.isAlive else { return }
            throw held(claim.process)
        } catch let error as StudioError {
            throw error
        } catch {
            throw StudioError(500, "the rating failed: \(error)")
        }
    }

    /// The refusal of a level another process is rating.
    static func held(_ process: ProcessIdentity) -> StudioError {
        .conflict("a peggle rate (process \(process.pid) on \(process.host)) is rating this level in the "
            + "database now; rate again when it has finished")
    }

    /// The orange pegs' rates over the greedy games near sigma50, replayed from the store.
    static func pegRates(_ rating: LevelRating, level: Level, store: PeggleStore, rules: Rules,
                         threads: Int) throws(StudioError) -> LevelPegRates {
        do {
            let prepared = try PreparedLevel(level, rules: rules)
            var games: [PlayedGame] = []
            if let label = rating.skill?.agentLabel, let levelID = try store.levels().first(where: { $0.contentHash == prepared.hash })?.id,
               let agentID = try store.agents().first(where: { $0.label == label })?.id {
                games = try store.games(levelID: levelID, agentID: agentID, withShots: true)
            }
            return PegRates.rates(rating, prepared: prepared, games: games, threads: threads)
        } catch {
            throw StudioError(500, "the pegs' rates failed: \(error)")
        }
    }

    /// The greedy agent's first shot at sigma 0, recorded.
    static func firstShot(_ level: Level, agent: any Agent, seed: UInt64, rules: Rules) throws(StudioError) -> ShotView {
        do {
            var game = try GameState(level: level, rules: rules, seed: seed)
            var rng = SeededGenerator(seed: seed)
            let angle = agent.choose(game, context: ShotContext(shots: 0, maxShots: Episode.defaultMaxShots), rng: &rng)
            return ShotView(try game.shoot(angle: angle, recordTrajectory: true), level: level)
        } catch {
            throw StudioError(500, "the greedy agent's first shot failed: \(error)")
        }
    }
}
