import PeggleLevel

/// Who played a game: an agent kind (`random`, `greedy`, ...), or a person (`human`: a game
/// finished in the studio's Play tab, docs/studio.md). The raw value is what the store's
/// `agent.kind` column holds and what reports print. Kinds are open: this module declares only
/// the two with a role outside the agents (`human`, and `greedy`, the rating's default skill
/// agent); PeggleAgents declares the kinds a program plays and their order (`AgentFactory.kinds`),
/// and the store, the ratings and the reports take kinds as data. A kind is a word: a lowercase
/// ASCII letter, then lowercase letters, digits or `-` (it is written inside labels such as
/// `greedy(...)`, agent names such as `linear:FILE` and column names such as `greedy_games`).
public struct AgentKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// The kind named `rawValue`; nil when it is not a well-formed kind.
    public init?(rawValue: String) {
        guard Self.isWellFormed(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A kind declared in code (`static let greedy = AgentKind(declaring: "greedy")`); the name
    /// must be well-formed.
    public init(declaring name: StaticString) {
        let text = name.description
        precondition(Self.isWellFormed(text), "agent kind '\(text)' is not \(Self.wellFormed)")
        rawValue = text
    }

    /// What a well-formed kind is, for messages.
    public static let wellFormed = "a lowercase letter, then lowercase letters, digits or '-'"

    /// Whether `text` may name a kind: a lowercase ASCII letter, then lowercase letters, digits or `-`.
    public static func isWellFormed(_ text: String) -> Bool {
        guard let first = text.utf8.first, (0x61...0x7A).contains(first) else { return false }
        return text.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// A person, playing in the studio. No program plays it; reports show its games apart.
    public static let human = AgentKind(declaring: "human")
    /// The greedy search agent (PeggleAgents' `GreedyAgent`): declared here because the rating's
    /// skill curve uses it by default (`RatingOptions.skillAgentKind`).
    public static let greedy = AgentKind(declaring: "greedy")

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let kind = AgentKind(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "agent kind '\(text)' is not \(Self.wellFormed)"))
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// One played game: which level, which agent, which seed and aim noise, and how it went. The one
/// row type for a game across the package: the episode runner makes it, the store writes and
/// reads it, the analytics and the reports read it.
public struct PlayedGame: Sendable, Equatable {
    /// The level's content hash (`Level.contentHash`): what groups games into levels.
    public var levelHash: String
    public var levelName: String
    public var agentKind: AgentKind
    /// The agent with its settings (kind and sorted parameters); distinct agents have distinct labels.
    public var agentLabel: String
    /// The episode seed: it alone fixes the game's random events, the agent's stream and the aim noise.
    public var seed: UInt64
    /// Aim noise, radians: the standard deviation of the Gaussian added to every chosen angle.
    public var sigma: Double
    /// `.won`, `.lost`, or `.playing` when the runner stopped the game at its shot cap (truncated).
    public var status: GameStatus
    public var score: Int
    /// Shots taken.
    public var shots: Int
    public var orangeCleared: Int
    /// Orange pegs on the level.
    public var orangeTotal: Int
    /// Classic: balls the game cost, net of free balls (starting balls minus balls left).
    /// Other modes: shots taken.
    public var ballsUsed: Int
    /// Game time over all shots, seconds.
    public var gameSeconds: Double
    /// Every shot in order; empty when the game was read without its shots.
    public var shotLog: [PlayedShot]

    public init(levelHash: String, levelName: String, agentKind: AgentKind, agentLabel: String, seed: UInt64,
                sigma: Double, status: GameStatus, score: Int, shots: Int, orangeCleared: Int, orangeTotal: Int,
                ballsUsed: Int, gameSeconds: Double, shotLog: [PlayedShot] = []) {
        self.levelHash = levelHash
        self.levelName = levelName
        self.agentKind = agentKind
        self.agentLabel = agentLabel
        self.seed = seed
        self.sigma = sigma
        self.status = status
        self.score = score
        self.shots = shots
        self.orangeCleared = orangeCleared
        self.orangeTotal = orangeTotal
        self.ballsUsed = ballsUsed
        self.gameSeconds = gameSeconds
        self.shotLog = shotLog
    }

    public var won: Bool { status == .won }
    /// The game's identity among the games of its level and agent.
    public var key: EpisodeKey { EpisodeKey(seed: seed, sigma: sigma) }
    /// Stopped at the runner's shot cap with the game still going (counts as not won).
    public var truncated: Bool { status == .playing }

    /// Orange pegs cleared over orange pegs on the level (1 when the level has none).
    public var orangeFraction: Double { orangeTotal <= 0 ? 1 : Double(orangeCleared) / Double(orangeTotal) }

    /// The game without its shots (what reports read).
    public var withoutShots: PlayedGame {
        var g = self
        g.shotLog = []
        return g
    }
}

/// What identifies a game among those of one level and agent: its seed fixes everything random,
/// and its aim noise the rest. The store keys games by it; a rater plans games as keys.
public struct EpisodeKey: Hashable, Sendable {
    public var seed: UInt64
    /// Aim noise, radians.
    public var sigma: Double

    public init(seed: UInt64, sigma: Double) {
        self.seed = seed
        self.sigma = sigma
    }
}

/// One shot of a played game.
public struct PlayedShot: Sendable, Equatable {
    /// 0-based shot number.
    public var index: Int
    /// The agent's choice, radians, before noise.
    public var chosen: Double
    /// The angle fired: the choice plus aim noise, clamped to the aim range, radians.
    public var angle: Double
    /// Pegs lit this shot, by kind.
    public var hits: KindCounts
    public var points: Int
    /// Free balls this shot earned (bucket catches plus score thresholds).
    public var freeBalls: Int
    /// Balls caught by the bucket this shot.
    public var caught: Int
    public var orangeCleared: Int
    /// Game seconds the shot took.
    public var seconds: Double

    public init(index: Int, chosen: Double, angle: Double, hits: KindCounts, points: Int, freeBalls: Int, caught: Int,
                orangeCleared: Int, seconds: Double) {
        self.index = index
        self.chosen = chosen
        self.angle = angle
        self.hits = hits
        self.points = points
        self.freeBalls = freeBalls
        self.caught = caught
        self.orangeCleared = orangeCleared
        self.seconds = seconds
    }
}

/// A validated level ready to play: checked and built once, with its content hash; every game
/// starts from a copy of the same start state (a copy shares storage until the game changes it).
public struct PreparedLevel: Sendable {
    public let level: Level
    /// `level.contentHash`, computed once.
    public let hash: String
    /// The start of every game, seed 0.
    public let start: GameState

    /// Throws the level's first problem if it is not valid.
    public init(_ level: Level, rules: Rules = Rules()) throws(LevelIssue) {
        self.level = level
        start = try GameState(level: level, rules: rules, seed: 0)
        hash = level.contentHash
    }

    public var rules: Rules { start.rules }

    /// A new game with `seed`: exactly `GameState(level:rules:seed:)`, without validating again.
    public func newGame(seed: UInt64) -> GameState {
        var game = start
        game.reseed(seed)
        return game
    }
}
