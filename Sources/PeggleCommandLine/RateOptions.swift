import ArgumentParser
import PeggleAgents
import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PeggleRating

extension RatingMethod: ExpressibleByArgument {}
extension Placement: ListElement {}
extension PriorKind: ListElement {}
extension StopRule: ListElement {}

/// What a rating is: its agents, its method and the method's settings. `peggle rate` and
/// `peggle-bench rating` take this one group, so the benchmark rates exactly as `rate` does with
/// the same options, and their defaults and checks cannot drift apart.
package struct RateOptions: ParsableArguments {
    package init() {}

    @Option(help: "Agents, comma-separated: \(AgentFactory.kinds.map(\.syntax).joined(separator: ", ")).")
    package var agents = CommaList<AgentSpec>([.random, .greedy, .linear(file: Bundled.linearPolicy)])

    @Option(help: "adaptive (greedy games chosen per level until sigma50 is known) or grid (--sigmas for every agent).")
    package var method = RatingMethod.adaptive

    @Option(help: "Games per level and agent at each sigma of a fixed schedule: the grid's sigmas, or sigma 0 for the agents the adaptive method does not measure.")
    package var episodes = RatingConfig.defaultGames

    @Option(help: .init("Grid: aim-noise levels, radians, comma-separated (default: \(Self.defaultSigmas)).", valueName: "sigmas"))
    package var sigmas: CommaList<Double>?

    @Option(help: "Adaptive: greedy games per level at most (default: \(AdaptiveSettings.defaultBudget)).")
    package var budget: Int?

    @Option(help: "Adaptive: stop a level when the 95% interval of sigma50 is within this factor either side of the estimate (default: \(AdaptiveSettings.defaultPrecision)).")
    package var precision: Double?

    @Option(help: "Adaptive: greedy games chosen together per level, fixed so that any --threads gives the same rating (default: \(AdaptiveSettings.defaultBatchSize)).")
    package var batchSize: Int?

    @Option(help: "Adaptive: where each batch of greedy games goes: quantile (the posterior's quantiles, spread) or entropy (QUEST+: least expected entropy of sigma50) (default: \(AdaptiveSettings.defaultPlacement.rawValue)).")
    package var placement: Placement?

    @Option(help: "Adaptive: the prior each level starts from: flat, population (slope, ceiling and floor as fitted on a rated corpus) or population+estimate (also sigma50 about the instant estimate) (default: \(AdaptiveSettings.defaultPrior.rawValue)).")
    package var prior: PriorKind?

    @Option(help: "Adaptive: when a level stops besides precision, range end and budget: precision (only those), reachable (also when the precision is out of reach within the budget) or tier (also when the tier is decided with probability 0.95) (default: \(AdaptiveSettings.defaultStop.rawValue)).")
    package var stop: StopRule?

    @OptionGroup package var physicsOption: PhysicsOption

    package static let defaultSigmas = RatingConfig.defaultSigmas.map { LevelCodec.number($0) }.joined(separator: ",")

    /// The method's settings, checked, each with its default when not given.
    package struct Settings {
        /// Games of a fixed schedule per level, agent and sigma.
        package var games: Int
        /// The grid's aim-noise levels, radians.
        package var sigmas: [Double]
        package var adaptive: AdaptiveSettings
    }

    package func settings() throws -> Settings {
        guard episodes >= 1 else { throw UserError("--episodes: \(episodes) must be at least 1") }
        // An option of the other method would be silently ignored: refuse it instead.
        if method == .adaptive, sigmas != nil {
            throw UserError("--sigmas: only with --method grid (the adaptive method chooses its own sigmas)")
        }
        if method == .grid, let name = [budget.map { _ in "--budget" }, precision.map { _ in "--precision" },
                                        batchSize.map { _ in "--batch-size" }, placement.map { _ in "--placement" },
                                        prior.map { _ in "--prior" }, stop.map { _ in "--stop" }].compactMap({ $0 }).first {
            throw UserError("\(name): only with --method adaptive (the grid plays --episodes games at every --sigmas)")
        }
        let budget = self.budget ?? AdaptiveSettings.defaultBudget
        let precision = self.precision ?? AdaptiveSettings.defaultPrecision
        let batchSize = self.batchSize ?? AdaptiveSettings.defaultBatchSize
        guard (1...100_000).contains(budget) else { throw UserError("--budget: \(budget) is outside 1...100000") }
        guard (1...1000).contains(batchSize) else { throw UserError("--batch-size: \(batchSize) is outside 1...1000") }
        guard precision.isFinite, precision > 1, precision <= 100 else {
            throw UserError("--precision: \(precision) is not a factor above 1 (e.g. 1.25)")
        }
        let sigmaList = try Parse.sigmas(sigmas ?? CommaList(RatingConfig.defaultSigmas), option: "--sigmas")
        guard !sigmaList.isEmpty else { throw UserError("--sigmas: give at least one aim-noise level, e.g. 0,0.02") }
        return Settings(games: episodes, sigmas: sigmaList, adaptive: AdaptiveSettings(batchSize: batchSize, budget: budget, precision: precision,
                                                                                                 placement: placement ?? AdaptiveSettings.defaultPlacement,
                                                                                                 prior: prior ?? AdaptiveSettings.defaultPrior,
                                                                                                 stop: stop ?? AdaptiveSettings.defaultStop))
    }

    /// The agents, each once (the label names parameters and weights), made by `maker` (the
    /// options that tune the greedy agent), whose options are checked first.
    package func agentList(_ maker: some AgentMaker) throws -> [any Agent] {
        guard !agents.items.contains(where: \.text.isEmpty) else {
            throw UserError("--agents: '\(agents.text)' names no agent (e.g. random,greedy)")
        }
        try maker.check()
        var seen = Set<String>()
        var out: [any Agent] = []
        // One parser of agent names (`play --agent`'s); its refusals name this option.
        for a in try agents.map("--agents", message: { _, _, reason in reason }, { _, _, spec in try maker.agent(spec, threads: 1) })
        where seen.insert(a.label).inserted {
            out.append(a)
        }
        return out
    }

    /// The rating these options describe: `settings` from `settings()`, `agents` from `agentList`.
    package func config(_ settings: Settings, agents: [any Agent], firstSeed: UInt64 = 0,
                maxShots: Int = Episode.defaultMaxShots) -> RatingConfig {
        RatingConfig(method: method, agents: agents, games: settings.games, sigmas: settings.sigmas, adaptive: settings.adaptive,
                     firstSeed: firstSeed, maxShots: maxShots, rules: physicsOption.rules())
    }
}
