import PeggleAgents
import PeggleDifficulty
import PeggleGame
import PeggleLevel

/// How a rating run chooses the games it plays.
public enum RatingMethod: String, Sendable, CaseIterable {
    /// The skill agent's games are chosen adaptively per level (`SkillMeasurement`) until sigma50
    /// is known to the precision asked or the budget is spent; every other agent plays
    /// `RatingConfig.games` games at sigma 0 (its win rate: context and the floor).
    case adaptive
    /// Every agent plays `RatingConfig.games` games at every sigma of `RatingConfig.sigmas`.
    case grid
}

/// Everything a rating run needs to know besides the levels, the store and the machine.
/// The defaults are written here once.
public struct RatingConfig: Sendable {
    public var method: RatingMethod
    /// The agents, in order; labels are distinct.
    public var agents: [any Agent]
    /// Agents of this kind measure sigma50 (adaptive: they play the adaptive measurement).
    public var skillKind: AgentKind
    /// Games of each fixed-schedule agent per level and sigma: the grid's games at every sigma,
    /// or the adaptive method's context games at sigma 0.
    public var games: Int
    /// The grid's sigmas, radians.
    public var sigmas: [Double]
    public var adaptive: AdaptiveSettings
    /// Seeds of fixed-schedule games are `firstSeed ..< firstSeed + games`; game k of a level's
    /// adaptive measurement has seed `firstSeed + k`.
    public var firstSeed: UInt64
    /// Shot cap per game (a game still going there is stored as unfinished).
    public var maxShots: Int
    public var rules: Rules

    public static let defaultGames = 20
    public static let defaultSigmas = [0, 0.01, 0.02, 0.04, 0.08]

    public init(method: RatingMethod = .adaptive, agents: [any Agent], skillKind: AgentKind = .greedy,
                games: Int = defaultGames, sigmas: [Double] = defaultSigmas, adaptive: AdaptiveSettings = AdaptiveSettings(),
                firstSeed: UInt64 = 0, maxShots: Int = Episode.defaultMaxShots, rules: Rules = Rules()) {
        precondition(games >= 1 && maxShots >= 1 && !sigmas.isEmpty)
        self.method = method
        self.agents = agents
        self.skillKind = skillKind
        self.games = games
        self.sigmas = sigmas
        self.adaptive = adaptive
        self.firstSeed = firstSeed
        self.maxShots = maxShots
        self.rules = rules
    }

    /// Whether `agent` plays the adaptive measurement in this run.
    func isMeasured(_ agent: any Agent) -> Bool { method == .adaptive && agent.kind == skillKind }
}
