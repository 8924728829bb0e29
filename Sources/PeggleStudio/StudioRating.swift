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
/// their defaults) on the open level, into a database in memory, then the report's numbers and
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
        public var seconds: Double
    }

    public struct AgentRate: Sendable, Encodable, Equatable {
        /// Encoded as its raw value.
        public var agent: AgentKind
        public var sigma: Double
        public var games: Int
        public var winRate: Double
    }

    /// Rates `level` (already validated) and reports progress through `events`; returns the result.
    public static func rate(_ level: Level, budget: Int, seed: UInt64, threads: Int, rules: Rules = Rules(),
                            events: @escaping @Sendable (Event) -> Void) throws(StudioError) -> Result {
        let greedy = GreedyAgent(threads: 1)
        let config = RatingConfig(agents: [RandomAgent(), greedy], adaptive: AdaptiveSettings(budget: budget),
                                  firstSeed: seed, rules: rules)
        let summary: RatingRun.Summary
        let games: [PlayedGame]
        do {
            let store = try PeggleStore()
            let run = try RatingRun(store: store, levels: [(level.name, level)], config: config, command: "studio rate",
                                    threads: threads) { event in
                if case let .progress(played, atMost, _) = event { events(.progress(played: played, atMost: atMost)) }
            }
            summary = try run.run()
            games = try store.games()
        } catch {
            throw StudioError(500, "the rating failed: \(error)")
        }
        guard let rating = DifficultyRater.rate(games, options: RatingOptions(bands: true)).first, let curve = rating.skill else {
            throw StudioError(500, "the rating produced no skill curve")
        }
        var result = Result(
            tier: rating.tierText, sigma50Text: SVGCharts.sigma50Text(rating.sigma50),
            games: games.count,
            agents: rating.agents.map { AgentRate(agent: $0.agentKind, sigma: $0.sigma, games: $0.episodes, winRate: $0.winRate) },
            chart: SVGCharts.skillCurve(curve), firstShot: try firstShot(level, agent: greedy, seed: seed, rules: rules),
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

    /// The greedy agent's first shot at sigma 0, recorded.
    static func firstShot(_ level: Level, agent: GreedyAgent, seed: UInt64, rules: Rules) throws(StudioError) -> ShotView {
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
