import Foundation
import PeggleGame
import PeggleUtilities

/// A level's difficulty class, from its sigma50 (see `TierEdges`).
public enum Tier: String, Sendable, CaseIterable {
    case easy, medium, hard
    case veryHard = "very hard"
    /// No skill curve: the level was not played by the skill agent.
    case unrated

    /// The tiers one can ask for (`level generate --tier`, `level tune --tier`, the studio's
    /// tune): every tier but `unrated`.
    public static let askable = allCases.filter { $0 != .unrated }

    /// The tier as the command line and requests name it: "very-hard" rather than the tables'
    /// "very hard".
    public var argument: String { rawValue.replacingOccurrences(of: " ", with: "-") }

    /// The askable tier whose `argument` is `argument`.
    public static func named(_ argument: String) -> Tier? { askable.first { $0.argument == argument } }
}

/// sigma50 thresholds of the tiers, radians: sigma50 under `veryHard` is very hard, under `hard`
/// hard, under `medium` medium, otherwise easy. docs/skill-model.md explains the defaults: at 400 board
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

    /// Every tier that sigma50 values in `low...high` fall in, hardest first.
    public func tiers(low: Double, high: Double) -> [Tier] {
        let order: [Tier] = [.veryHard, .hard, .medium, .easy]
        let a = order.firstIndex(of: tier(sigma50: low))!, b = order.firstIndex(of: tier(sigma50: high))!
        return Array(order[a...b])
    }
}

/// How hard one level is, and the numbers behind it.
public struct LevelRating: Sendable, Equatable {
    public var levelHash: String
    public var levelName: String
    /// One per (agent label, sigma): agent kinds in `RatingOptions.kindOrder`, then by label, then
    /// by increasing sigma.
    public var agents: [AgentLevelStats]
    /// The skill agent's curve; nil when the skill agent never played the level.
    public var skill: SkillCurve?
    /// -log10 of the sigma50 estimate (the posterior median, defined even for a bound): larger =
    /// harder; sigma50 0.01 rad scores 2. nil when the level has no skill games.
    public var difficulty: Double?
    /// 1 = hardest; nil when `difficulty` is nil.
    public var rank: Int?
    /// The tier of the sigma50 estimate (the posterior median); `.unrated` without skill games.
    public var tier: Tier
    /// Every tier the 95% interval of sigma50 reaches, hardest first: one when the measurement
    /// decides the tier, more when the interval straddles an edge; empty when unrated.
    public var tierSpan: [Tier]
    /// Why the rating may not be trusted, in words.
    public var warnings: [String]

    public init(levelHash: String, levelName: String, agents: [AgentLevelStats], skill: SkillCurve?,
                difficulty: Double?, rank: Int?, tier: Tier, tierSpan: [Tier], warnings: [String]) {
        self.levelHash = levelHash
        self.levelName = levelName
        self.agents = agents
        self.skill = skill
        self.difficulty = difficulty
        self.rank = rank
        self.tier = tier
        self.tierSpan = tierSpan
        self.warnings = warnings
    }

    /// The skill curve's sigma50, `.unknown` without a curve.
    public var sigma50: Sigma50 { skill?.fit.sigma50 ?? .unknown }

    /// The tier as the interval gives it: its one tier ("hard"), or the tiers it spans when it
    /// straddles an edge ("hard to medium"); "unrated" without skill games.
    public var tierText: String {
        tierSpan.isEmpty ? tier.rawValue : [tierSpan.first!, tierSpan.last!].map(\.rawValue)
            .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: " to ")
    }

    /// The agent labels of `kind` on this level, the one with the most episodes first (ties by label).
    public func labels(kind: AgentKind) -> [String] {
        var episodes: [String: Int] = [:]
        for a in agents where a.agentKind == kind { episodes[a.agentLabel, default: 0] += a.episodes }
        return episodes.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
    }

    /// The headline row of an agent kind: its main label (most episodes) at that label's smallest
    /// sigma, i.e. the agent's best aim. nil when the kind did not play the level.
    public func atBestAim(kind: AgentKind) -> AgentLevelStats? {
        guard let label = labels(kind: kind).first else { return nil }
        return agents.filter { $0.agentLabel == label }.min { $0.sigma < $1.sigma }
    }

    /// Games the kind's main label played on this level, over all its sigmas (0 when it did not).
    public func games(kind: AgentKind) -> Int {
        guard let label = labels(kind: kind).first else { return 0 }
        return agents.filter { $0.agentLabel == label }.reduce(0) { $0 + $1.episodes }
    }
}

/// How `DifficultyRater` rates.
public struct RatingOptions: Sendable, Equatable {
    /// The agent kind whose games give the skill curve.
    public var skillAgentKind: AgentKind
    /// Use this agent label for the skill curve (any kind). nil: the label of `skillAgentKind` with
    /// the most episodes on each level (ties by label).
    public var skillAgentLabel: String?
    /// sigma50 thresholds of the tiers, radians.
    public var tierEdges: TierEdges
    /// A value of sigma50 known less precisely than this factor either side gets a warning.
    public var precision: Double
    /// Compute each skill curve's band (the posterior quantiles of the win rate along sigma) for
    /// the HTML chart: some milliseconds per level.
    public var bands: Bool
    /// The prior each skill curve is fitted with, by level hash and agent label; `FitPrior.flat`
    /// where none is given (`RecordedPriors` in PeggleRating reads them from the rating runs).
    public var fitPriors: [FitPriorKey: FitPrior]
    /// The order of each level's agent rows: by kind in this order, then by label, then by sigma.
    public var kindOrder: KindOrder

    public init(skillAgentKind: AgentKind = .greedy, skillAgentLabel: String? = nil, tierEdges: TierEdges = TierEdges(),
                precision: Double = 1.25, bands: Bool = false, fitPriors: [FitPriorKey: FitPrior] = [:],
                kindOrder: KindOrder = KindOrder()) {
        self.skillAgentKind = skillAgentKind
        self.skillAgentLabel = skillAgentLabel
        self.tierEdges = tierEdges
        self.precision = precision
        self.bands = bands
        self.fitPriors = fitPriors
        self.kindOrder = kindOrder
    }
}

/// A level (by content hash) and an agent (by label): what a fit prior is chosen for.
public struct FitPriorKey: Hashable, Sendable {
    public var levelHash: String
    public var agentLabel: String

    public init(levelHash: String, agentLabel: String) {
        self.levelHash = levelHash
        self.agentLabel = agentLabel
    }
}

/// Turns stored games into level ratings. docs/skill-model.md is the specification.
public enum DifficultyRater {
    /// Rates every level that appears in `games` (grouped by level hash). Sorted hardest first
    /// (larger difficulty first; ties by level name, then hash), levels without a difficulty last.
    /// The result depends only on the set of games, not on their order.
    public static func rate(_ games: [PlayedGame], options: RatingOptions = .init()) -> [LevelRating] {
        let byLevel = Dictionary(grouping: games, by: \.levelHash)
        var ratings = byLevel.map { hash, games in rateLevel(hash: hash, games: games, options: options) }
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

    static func agentOrder(_ a: AgentLevelStats, _ b: AgentLevelStats, kinds: KindOrder) -> Bool {
        if a.agentKind != b.agentKind { return kinds.precedes(a.agentKind, b.agentKind) }
        if a.agentLabel != b.agentLabel { return a.agentLabel < b.agentLabel }
        return a.sigma < b.sigma
    }

    struct AgentKey: Hashable {
        var label: String
        var sigma: Double
    }

    /// The rating of one level from its games (rank left nil).
    static func rateLevel(hash: String, games: [PlayedGame], options: RatingOptions) -> LevelRating {
        // One name per level whatever the input order: the smallest if games disagree.
        let name = games.map(\.levelName).min() ?? ""
        let groups = Dictionary(grouping: games) { AgentKey(label: $0.agentLabel, sigma: $0.sigma) }
        let agents = groups.values.map { AgentLevelStats($0) }.sorted { agentOrder($0, $1, kinds: options.kindOrder) }
        var warnings: [String] = []

        // The skill agent.
        let candidates = LevelRating(levelHash: hash, levelName: name, agents: agents, skill: nil, difficulty: nil,
                                     rank: nil, tier: .unrated, tierSpan: [], warnings: []).labels(kind: options.skillAgentKind)
        let skillLabel: String?
        if let pinned = options.skillAgentLabel {
            skillLabel = agents.contains { $0.agentLabel == pinned } ? pinned : nil
        } else {
            skillLabel = candidates.first
            if candidates.count > 1, let label = candidates.first {
                warnings.append("\(candidates.count) \(options.skillAgentKind.rawValue) agents played this level: "
                    + "the skill curve uses \(label) (most games)")
            }
        }
        var skill: SkillCurve?
        var tier = Tier.unrated, span: [Tier] = []
        if let label = skillLabel {
            let fitPrior = options.fitPriors[FitPriorKey(levelHash: hash, agentLabel: label)] ?? .flat
            if let w = fitPrior.warning { warnings.append(w) }
            let curve = SkillCurve(agentLabel: label, stats: agents.filter { $0.agentLabel == label }, bands: options.bands,
                                   prior: fitPrior)
            skill = curve
            let fit = curve.fit
            if fit.sigma50 != .unknown {
                tier = options.tierEdges.tier(sigma50: fit.estimate)
                span = options.tierEdges.tiers(low: fit.low, high: fit.high)
            }
            switch fit.sigma50 {
            case .value:
                if fit.precision > options.precision {
                    warnings.append("sigma50 is known only to a factor \(format(fit.precision, 2)) either side "
                        + "(95% interval \(format(fit.low)) to \(format(fit.high)) rad; the target is \(format(options.precision, 2))): "
                        + "play more games")
                }
            case let .below(b, p):
                if b > SkillModel.lowest {
                    warnings.append("sigma50 is only known to be below \(format(b)) rad (probability \(format(p, 3))): "
                        + "the interval reaches below the measured range")
                }
            case let .above(b, p):
                if b < SkillModel.highest {
                    warnings.append("sigma50 is only known to be above \(format(b)) rad (probability \(format(p, 3))): "
                        + "the interval reaches above the measured range")
                }
            case .unknown:
                warnings.append("the skill games say nothing yet about sigma50: its interval covers the whole range")
            }
            if span.count > 1 {
                warnings.append("the 95% interval of sigma50 straddles a tier edge: "
                    + span.map(\.rawValue).joined(separator: " or "))
            }
        } else if let pinned = options.skillAgentLabel {
            warnings.append("no games of the skill agent \(pinned): no skill curve, tier unrated")
        } else {
            warnings.append("no \(options.skillAgentKind.rawValue) games: no skill curve, tier unrated")
        }

        let truncated = agents.reduce(0) { $0 + $1.truncated }
        if truncated > 0 {
            warnings.append("\(truncated) of \(games.count) games stopped at the shot cap (counted as not won)")
        }
        let difficulty = skill.flatMap { $0.fit.games > 0 ? -log10($0.fit.estimate) : nil }
        return LevelRating(levelHash: hash, levelName: name, agents: agents, skill: skill, difficulty: difficulty,
                           rank: nil, tier: tier, tierSpan: span, warnings: warnings)
    }

    /// A sigma or rate for messages: up to `decimals` decimals, no trailing zeros.
    static func format(_ v: Double, _ decimals: Int = 4) -> String { DecimalText.number(v, decimals: decimals) }
}
