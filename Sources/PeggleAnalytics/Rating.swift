/// A level's difficulty class, from its sigma50 (see `TierEdges`).
public enum Tier: String, Sendable, CaseIterable {
    case easy, medium, hard
    case veryHard = "very hard"
    /// No skill curve: the level was not played by the skill agent.
    case unrated
}

/// sigma50 thresholds of the tiers, radians: sigma50 under `veryHard` is very hard, under `hard`
/// hard, under `medium` medium, otherwise easy. docs/metrics.md explains the defaults: at 400 board
/// units from the cannon 0.01 rad moves the ball 4 units (a fraction of a peg), 0.03 rad 12 units
/// (a peg radius), 0.08 rad 32 units (more than a peg and a ball side by side).
public struct TierEdges: Sendable, Equatable {
    public var veryHard: Double
    public var hard: Double
    public var medium: Double

    public init(veryHard: Double = 0.01, hard: Double = 0.03, medium: Double = 0.08) {
        precondition(veryHard <= hard && hard <= medium, "tier edges must increase")
        self.veryHard = veryHard
        self.hard = hard
        self.medium = medium
    }

    /// The tier of a level whose sigma50 is `sigma50` radians.
    public func tier(sigma50: Double) -> Tier {
        if sigma50 < veryHard { return .veryHard }
        if sigma50 < hard { return .hard }
        if sigma50 < medium { return .medium }
        return .easy
    }

    /// The tier of `sigma50`: `.below` is very hard, `.atLeast` easy, `.unknown` unrated.
    public func tier(_ sigma50: Sigma50) -> Tier {
        switch sigma50 {
        case let .value(s): tier(sigma50: s)
        case .below: .veryHard
        case .atLeast: .easy
        case .unknown: .unrated
        }
    }
}

/// How hard one level is, and the numbers behind it.
public struct LevelRating: Sendable, Equatable {
    public var levelHash: String
    public var levelName: String
    /// One per (agent label, sigma): agent kinds in the order random, greedy, linear, then other
    /// kinds by name; then by label, then by increasing sigma.
    public var agents: [AgentLevelStats]
    /// The skill agent's curve; nil when the skill agent never played the level.
    public var skill: SkillCurve?
    /// A number that sorts levels, larger = harder, in 0...4 (docs/metrics.md): (3, 4] when sigma50
    /// is below the smallest sigma tried, (1, 3] for an interpolated sigma50, [0, 1] when the skill
    /// agent still wins half at the largest sigma tried; unrated levels are placed on the same scale
    /// by the best agent's win rate. nil only when the level has no episodes.
    public var difficulty: Double?
    /// 1 = hardest; nil when `difficulty` is nil.
    public var rank: Int?
    public var tier: Tier
    /// Why the rating may not be trusted, in words (too few episodes, no skill agent, ...).
    public var warnings: [String]

    public init(levelHash: String, levelName: String, agents: [AgentLevelStats], skill: SkillCurve?,
                difficulty: Double?, rank: Int?, tier: Tier, warnings: [String]) {
        self.levelHash = levelHash
        self.levelName = levelName
        self.agents = agents
        self.skill = skill
        self.difficulty = difficulty
        self.rank = rank
        self.tier = tier
        self.warnings = warnings
    }

    /// The skill curve's sigma50, `.unknown` without a curve.
    public var sigma50: Sigma50 { skill?.sigma50 ?? .unknown }

    /// The agent labels of `kind` on this level, the one with the most episodes first (ties by label).
    public func labels(kind: String) -> [String] {
        var episodes: [String: Int] = [:]
        for a in agents where a.agentKind == kind { episodes[a.agentLabel, default: 0] += a.episodes }
        return episodes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    }

    /// The headline row of an agent kind: its main label (most episodes) at that label's smallest
    /// sigma, i.e. the agent's best aim. nil when the kind did not play the level.
    public func atBestAim(kind: String) -> AgentLevelStats? {
        guard let label = labels(kind: kind).first else { return nil }
        return agents.filter { $0.agentLabel == label }.min { $0.sigma < $1.sigma }
    }
}

/// How `DifficultyRater` rates.
public struct RatingOptions: Sendable, Equatable {
    /// The agent kind whose sigma sweep gives the skill curve.
    public var skillAgentKind: String
    /// Use this agent label for the skill curve (any kind). nil: the label of `skillAgentKind` with
    /// the most episodes on each level (ties by label).
    public var skillAgentLabel: String?
    /// Episodes per skill point below which the level gets a warning.
    public var minEpisodes: Int
    /// sigma50 thresholds of the tiers, radians.
    public var tierEdges: TierEdges
    /// The sigma, radians, at which an interpolated sigma50 scores difficulty 2 (the middle of
    /// the (1, 3] band): difficulty = 1 + 2 * referenceSigma / (referenceSigma + sigma50).
    public var referenceSigma: Double

    public init(skillAgentKind: String = "greedy", skillAgentLabel: String? = nil, minEpisodes: Int = 20,
                tierEdges: TierEdges = TierEdges(), referenceSigma: Double = 0.04) {
        precondition(referenceSigma > 0, "referenceSigma must be > 0")
        self.skillAgentKind = skillAgentKind
        self.skillAgentLabel = skillAgentLabel
        self.minEpisodes = minEpisodes
        self.tierEdges = tierEdges
        self.referenceSigma = referenceSigma
    }
}

/// Turns stored episodes into level ratings. docs/metrics.md is the specification.
public enum DifficultyRater {
    /// The agent kinds in the order reports list them; other kinds follow by name.
    public static let kindOrder = ["random", "greedy", "linear"]

    /// Rates every level that appears in `outcomes` (grouped by level hash). Sorted hardest first
    /// (larger difficulty first; ties by level name, then hash), levels without a difficulty last.
    public static func rate(_ outcomes: [EpisodeOutcome], options: RatingOptions = .init()) -> [LevelRating] {
        let byLevel = Dictionary(grouping: outcomes, by: \.levelHash)
        var ratings = byLevel.map { hash, episodes in rateLevel(hash: hash, episodes: episodes, options: options) }
        ratings.sort(by: harderFirst)
        var rank = 0
        for i in ratings.indices where ratings[i].difficulty != nil {
            rank += 1
            ratings[i].rank = rank
        }
        return ratings
    }

    /// The report order: larger difficulty first, no difficulty last, then by name, then by hash.
    static func harderFirst(_ a: LevelRating, _ b: LevelRating) -> Bool {
        switch (a.difficulty, b.difficulty) {
        case let (x?, y?) where x != y: return x > y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return a.levelName != b.levelName ? a.levelName < b.levelName : a.levelHash < b.levelHash
        }
    }

    static func kindPosition(_ kind: String) -> Int { kindOrder.firstIndex(of: kind) ?? kindOrder.count }

    static func agentOrder(_ a: AgentLevelStats, _ b: AgentLevelStats) -> Bool {
        let ka = kindPosition(a.agentKind), kb = kindPosition(b.agentKind)
        if ka != kb { return ka < kb }
        if a.agentKind != b.agentKind { return a.agentKind < b.agentKind }
        if a.agentLabel != b.agentLabel { return a.agentLabel < b.agentLabel }
        return a.sigma < b.sigma
    }

    struct AgentKey: Hashable {
        var label: String
        var sigma: Double
    }

    /// The rating of one level from its episodes (rank left nil).
    static func rateLevel(hash: String, episodes: [EpisodeOutcome], options: RatingOptions) -> LevelRating {
        // One name per level whatever the input order: the smallest if episodes disagree.
        let name = episodes.map(\.levelName).min() ?? ""
        let groups = Dictionary(grouping: episodes) { AgentKey(label: $0.agentLabel, sigma: $0.sigma) }
        let agents = groups.values.map { AgentLevelStats($0) }.sorted(by: agentOrder)
        var warnings: [String] = []

        // The skill agent.
        let candidates = LevelRating(levelHash: hash, levelName: name, agents: agents, skill: nil, difficulty: nil,
                                     rank: nil, tier: .unrated, warnings: []).labels(kind: options.skillAgentKind)
        let skillLabel: String?
        if let pinned = options.skillAgentLabel {
            skillLabel = agents.contains { $0.agentLabel == pinned } ? pinned : nil
        } else {
            skillLabel = candidates.first
            if candidates.count > 1, let label = candidates.first {
                warnings.append("\(candidates.count) \(options.skillAgentKind) agents played this level: "
                    + "the skill curve uses \(label) (most episodes)")
            }
        }
        var skill: SkillCurve?
        if let label = skillLabel {
            let curve = SkillCurve(agentLabel: label, stats: agents.filter { $0.agentLabel == label })
            skill = curve
            for p in curve.points where p.episodes < options.minEpisodes {
                warnings.append("only \(p.episodes) episode\(p.episodes == 1 ? "" : "s") at sigma \(format(p.sigma)): "
                    + "rating uncertain (want >= \(options.minEpisodes))")
            }
            if curve.points.count == 1 {
                warnings.append("the skill curve has one sigma only (\(format(curve.points[0].sigma))): "
                    + "sigma50 is only a bound")
            }
            switch curve.sigma50 {
            case let .below(s) where s > options.tierEdges.veryHard:
                warnings.append("\(label) wins under half already at the smallest sigma tried, \(format(s)), "
                    + "which is above the very-hard edge \(format(options.tierEdges.veryHard)): "
                    + "try smaller sigmas; the tier may overstate the difficulty")
            case let .atLeast(s) where s < options.tierEdges.medium:
                warnings.append("\(label) still wins half at the largest sigma tried, \(format(s)), "
                    + "which is below the easy edge \(format(options.tierEdges.medium)): "
                    + "try larger sigmas; the tier may understate the difficulty")
            default: break
            }
        } else if let pinned = options.skillAgentLabel {
            warnings.append("no episodes of the skill agent \(pinned): no skill curve, tier unrated")
        } else {
            warnings.append("no \(options.skillAgentKind) episodes: no skill curve, tier unrated")
        }

        let truncated = agents.reduce(0) { $0 + $1.truncated }
        if truncated > 0 {
            warnings.append("\(truncated) of \(episodes.count) episodes stopped at the shot cap (counted as not won)")
        }

        let sigma50 = skill?.sigma50 ?? .unknown
        let difficulty = difficulty(sigma50: sigma50, skill: skill, agents: agents, options: options)
        if case .unknown = sigma50, let best = bestPooled(agents) {
            warnings.append("difficulty from the best agent's win rate: \(best.label) won "
                + "\(best.wins) of \(best.episodes)")
        }
        return LevelRating(levelHash: hash, levelName: name, agents: agents, skill: skill, difficulty: difficulty,
                           rank: nil, tier: options.tierEdges.tier(sigma50), warnings: warnings)
    }

    /// The difficulty number (docs/metrics.md), larger = harder, in 0...4.
    static func difficulty(sigma50: Sigma50, skill: SkillCurve?, agents: [AgentLevelStats],
                           options: RatingOptions) -> Double? {
        switch sigma50 {
        case .below:
            // Fitted win rate at the smallest sigma, under 1/2: 0 scores 4, just under 1/2 just over 3.
            let f0 = skill?.points.first?.fitted ?? 0
            return 3 + (1 - 2 * min(max(f0, 0), 0.5))
        case let .value(s):
            let r = options.referenceSigma
            return 1 + 2 * r / (r + max(s, 0))
        case .atLeast:
            // The random agent's win rate over all its episodes; without random episodes, the skill
            // agent's fitted win rate at the largest sigma.
            let random = agents.filter { $0.agentKind == "random" }
            let episodes = random.reduce(0) { $0 + $1.episodes }
            let rate = episodes > 0
                ? Double(random.reduce(0) { $0 + $1.wins }) / Double(episodes)
                : (skill?.points.last?.fitted ?? 1)
            return 1 - min(max(rate, 0), 1)
        case .unknown:
            guard let best = bestPooled(agents) else { return nil }
            return 4 * (1 - best.rate)
        }
    }

    /// The agent label with the highest win rate over all its sigmas (ties: more episodes, then label).
    static func bestPooled(_ agents: [AgentLevelStats]) -> (label: String, wins: Int, episodes: Int, rate: Double)? {
        var totals: [String: (wins: Int, episodes: Int)] = [:]
        for a in agents {
            totals[a.agentLabel, default: (0, 0)].wins += a.wins
            totals[a.agentLabel, default: (0, 0)].episodes += a.episodes
        }
        let pooled = totals.compactMap { label, t in
            t.episodes > 0 ? (label: label, wins: t.wins, episodes: t.episodes,
                              rate: Double(t.wins) / Double(t.episodes)) : nil
        }
        return pooled.max { a, b in
            if a.rate != b.rate { return a.rate < b.rate }
            if a.episodes != b.episodes { return a.episodes < b.episodes }
            return a.label > b.label
        }
    }

    /// A sigma or rate for messages: up to 4 decimals, no trailing zeros.
    static func format(_ v: Double) -> String { SVGText.number(v, decimals: 4) }
}
