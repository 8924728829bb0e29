import GRDB

/// A row of `level`: one playable level, identified by its content hash.
public struct LevelRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "level"

    public var id: Int64?
    /// 16 lower-case hex digits computed by the caller (`Level.contentHash`): what is played, not the name.
    public var contentHash: String
    public var name: String
    /// The canonical level JSON.
    public var json: String
    /// "classic", "beat_the_score" or "dodge".
    public var mode: String
    /// The level's power ("none", "kaboom"...).
    public var power: String
    /// Pegs of every kind.
    public var pegCount: Int
    public var blue: Int
    public var orange: Int
    public var green: Int
    public var purple: Int
    public var zombie: Int
    public var confusement: Int
    public var blockCount: Int

    public init(id: Int64? = nil, contentHash: String, name: String, json: String, mode: String, power: String,
                pegCount: Int, blue: Int, orange: Int, green: Int, purple: Int, zombie: Int, confusement: Int,
                blockCount: Int) {
        self.id = id
        self.contentHash = contentHash
        self.name = name
        self.json = json
        self.mode = mode
        self.power = power
        self.pegCount = pegCount
        self.blue = blue
        self.orange = orange
        self.green = green
        self.purple = purple
        self.zombie = zombie
        self.confusement = confusement
        self.blockCount = blockCount
    }

    enum CodingKeys: String, CodingKey {
        case id, name, json, mode, power, blue, orange, green, purple, zombie, confusement
        case contentHash = "content_hash"
        case pegCount = "peg_count"
        case blockCount = "block_count"
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `agent`: one agent configuration. Kind, parameters and weights hash together are its identity.
public struct AgentRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "agent"

    public var id: Int64?
    /// "random", "greedy" or "linear".
    public var kind: String
    /// A JSON object with sorted keys, as the caller wrote it: compared as text.
    public var parameters: String
    /// Hash of a linear policy's weights; nil for agents without weights (stored as NULL, keyed as "").
    public var weightsHash: String?
    /// Human readable, e.g. `greedy(candidates=48,refine=2x8,samples=8)`.
    public var label: String

    public init(id: Int64? = nil, kind: String, parameters: String, weightsHash: String? = nil, label: String) {
        self.id = id
        self.kind = kind
        self.parameters = parameters
        self.weightsHash = weightsHash
        self.label = label
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, parameters, label
        case weightsHash = "weights_hash"
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `run`: one invocation of the tool that added episodes.
public struct RunRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "run"

    public var id: Int64?
    /// The command line, as the user typed it.
    public var command: String
    /// The run's settings as JSON.
    public var configuration: String
    public var engineVersion: String
    /// ISO 8601, UTC (`2025-01-31T12:00:00Z`).
    public var startedAt: String
    /// ISO 8601, UTC; nil while running, and forever for a run that was killed.
    public var finishedAt: String?
    /// Episodes the run stored (reruns skip stored ones, so this can be less than it played).
    public var episodesAdded: Int

    public init(id: Int64? = nil, command: String, configuration: String, engineVersion: String, startedAt: String,
                finishedAt: String? = nil, episodesAdded: Int = 0) {
        self.id = id
        self.command = command
        self.configuration = configuration
        self.engineVersion = engineVersion
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.episodesAdded = episodesAdded
    }

    enum CodingKeys: String, CodingKey {
        case id, command, configuration
        case engineVersion = "engine_version"
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case episodesAdded = "episodes_added"
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `episode`: one game of a level by an agent. (level, agent, seed, sigma) is its identity.
public struct EpisodeRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "episode"

    public var id: Int64?
    public var runID: Int64
    public var levelID: Int64
    public var agentID: Int64
    /// The episode's seed. SQLite has no unsigned integers: the column holds its Int64 bit pattern.
    public var seed: UInt64
    /// Aim noise, radians (standard deviation added to every chosen angle).
    public var sigma: Double
    /// "won", "lost" or "playing" (a truncated game).
    public var status: String
    public var won: Bool
    /// Stopped at the shot cap with the game still going.
    public var truncated: Bool
    public var score: Int
    public var shots: Int
    public var orangeCleared: Int
    public var orangeTotal: Int
    /// Classic: balls the game cost, net of free balls. Other modes: shots taken.
    public var ballsUsed: Int
    /// Game time over all shots, seconds.
    public var gameSeconds: Double

    public init(id: Int64? = nil, runID: Int64, levelID: Int64, agentID: Int64, seed: UInt64, sigma: Double,
                status: String, won: Bool, truncated: Bool, score: Int, shots: Int, orangeCleared: Int,
                orangeTotal: Int, ballsUsed: Int, gameSeconds: Double) {
        self.id = id
        self.runID = runID
        self.levelID = levelID
        self.agentID = agentID
        self.seed = seed
        self.sigma = sigma
        self.status = status
        self.won = won
        self.truncated = truncated
        self.score = score
        self.shots = shots
        self.orangeCleared = orangeCleared
        self.orangeTotal = orangeTotal
        self.ballsUsed = ballsUsed
        self.gameSeconds = gameSeconds
    }

    enum CodingKeys: String, CodingKey {
        case id, seed, sigma, status, won, truncated, score, shots
        case runID = "run_id"
        case levelID = "level_id"
        case agentID = "agent_id"
        case orangeCleared = "orange_cleared"
        case orangeTotal = "orange_total"
        case ballsUsed = "balls_used"
        case gameSeconds = "game_seconds"
    }

    // Rows are mapped by hand because GRDB stores UInt64 through Int64(_:), which traps above
    // Int64.max; the seed goes through its bit pattern instead. Codable stays synthesized.
    public init(row: Row) throws {
        id = try row.decode(Int64?.self, forColumn: "id")
        runID = try row.decode(Int64.self, forColumn: "run_id")
        levelID = try row.decode(Int64.self, forColumn: "level_id")
        agentID = try row.decode(Int64.self, forColumn: "agent_id")
        seed = UInt64(bitPattern: try row.decode(Int64.self, forColumn: "seed"))
        sigma = try row.decode(Double.self, forColumn: "sigma")
        status = try row.decode(String.self, forColumn: "status")
        won = try row.decode(Bool.self, forColumn: "won")
        truncated = try row.decode(Bool.self, forColumn: "truncated")
        score = try row.decode(Int.self, forColumn: "score")
        shots = try row.decode(Int.self, forColumn: "shots")
        orangeCleared = try row.decode(Int.self, forColumn: "orange_cleared")
        orangeTotal = try row.decode(Int.self, forColumn: "orange_total")
        ballsUsed = try row.decode(Int.self, forColumn: "balls_used")
        gameSeconds = try row.decode(Double.self, forColumn: "game_seconds")
    }

    public func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["run_id"] = runID
        container["level_id"] = levelID
        container["agent_id"] = agentID
        container["seed"] = Int64(bitPattern: seed)
        container["sigma"] = sigma
        container["status"] = status
        container["won"] = won
        container["truncated"] = truncated
        container["score"] = score
        container["shots"] = shots
        container["orange_cleared"] = orangeCleared
        container["orange_total"] = orangeTotal
        container["balls_used"] = ballsUsed
        container["game_seconds"] = gameSeconds
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The episode's identity within its level and agent.
    public var key: EpisodeKey { EpisodeKey(seed: seed, sigma: sigma) }
}

/// A row of `shot`: one shot of a stored episode.
public struct ShotRecordRow: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "shot"

    /// Filled in by the store when the episode is inserted.
    public var episodeID: Int64
    /// 0-based shot number within the episode.
    public var index: Int
    /// The agent's choice before noise, radians.
    public var chosenAngle: Double
    /// The angle fired (choice plus noise, clamped), radians.
    public var angle: Double
    public var hitsBlue: Int
    public var hitsOrange: Int
    public var hitsGreen: Int
    public var hitsPurple: Int
    public var hitsZombie: Int
    public var hitsConfusement: Int
    public var points: Int
    /// Free balls earned (bucket catches plus score thresholds).
    public var freeBalls: Int
    /// Balls caught by the bucket.
    public var caught: Int
    public var orangeCleared: Int
    /// Game seconds the shot took.
    public var seconds: Double

    public init(episodeID: Int64 = 0, index: Int, chosenAngle: Double, angle: Double, hitsBlue: Int, hitsOrange: Int,
                hitsGreen: Int, hitsPurple: Int, hitsZombie: Int, hitsConfusement: Int, points: Int, freeBalls: Int,
                caught: Int, orangeCleared: Int, seconds: Double) {
        self.episodeID = episodeID
        self.index = index
        self.chosenAngle = chosenAngle
        self.angle = angle
        self.hitsBlue = hitsBlue
        self.hitsOrange = hitsOrange
        self.hitsGreen = hitsGreen
        self.hitsPurple = hitsPurple
        self.hitsZombie = hitsZombie
        self.hitsConfusement = hitsConfusement
        self.points = points
        self.freeBalls = freeBalls
        self.caught = caught
        self.orangeCleared = orangeCleared
        self.seconds = seconds
    }

    enum CodingKeys: String, CodingKey {
        case angle, points, caught, seconds
        case episodeID = "episode_id"
        case index = "idx"
        case chosenAngle = "chosen_angle"
        case hitsBlue = "hits_blue"
        case hitsOrange = "hits_orange"
        case hitsGreen = "hits_green"
        case hitsPurple = "hits_purple"
        case hitsZombie = "hits_zombie"
        case hitsConfusement = "hits_confusement"
        case freeBalls = "free_balls"
        case orangeCleared = "orange_cleared"
    }
}

/// An episode with its shots, not yet stored (ids filled in by the store).
public struct NewEpisode: Sendable, Equatable {
    public var episode: EpisodeRecord
    public var shots: [ShotRecordRow]

    public init(episode: EpisodeRecord, shots: [ShotRecordRow]) {
        self.episode = episode
        self.shots = shots
    }
}

/// What identifies an episode among those of one level and agent.
public struct EpisodeKey: Hashable, Sendable {
    public var seed: UInt64
    /// Aim noise, radians.
    public var sigma: Double

    public init(seed: UInt64, sigma: Double) {
        self.seed = seed
        self.sigma = sigma
    }
}

/// One row for reports: an episode joined with its level and agent.
public struct EpisodeSummary: Sendable, Equatable {
    public var levelHash: String
    public var levelName: String
    public var agentKind: String
    public var agentLabel: String
    public var agentParameters: String
    public var agentID: Int64
    public var seed: UInt64
    /// Aim noise, radians.
    public var sigma: Double
    public var status: String
    public var won: Bool
    public var truncated: Bool
    public var score: Int
    public var shots: Int
    public var orangeCleared: Int
    public var orangeTotal: Int
    public var ballsUsed: Int
    /// Game seconds.
    public var gameSeconds: Double

    public init(levelHash: String, levelName: String, agentKind: String, agentLabel: String, agentParameters: String,
                agentID: Int64, seed: UInt64, sigma: Double, status: String, won: Bool, truncated: Bool, score: Int,
                shots: Int, orangeCleared: Int, orangeTotal: Int, ballsUsed: Int, gameSeconds: Double) {
        self.levelHash = levelHash
        self.levelName = levelName
        self.agentKind = agentKind
        self.agentLabel = agentLabel
        self.agentParameters = agentParameters
        self.agentID = agentID
        self.seed = seed
        self.sigma = sigma
        self.status = status
        self.won = won
        self.truncated = truncated
        self.score = score
        self.shots = shots
        self.orangeCleared = orangeCleared
        self.orangeTotal = orangeTotal
        self.ballsUsed = ballsUsed
        self.gameSeconds = gameSeconds
    }
}

/// Rows per table.
public struct StoreCounts: Equatable, Sendable {
    public var levels: Int
    public var agents: Int
    public var runs: Int
    public var episodes: Int
    public var shots: Int

    public init(levels: Int, agents: Int, runs: Int, episodes: Int, shots: Int) {
        self.levels = levels
        self.agents = agents
        self.runs = runs
        self.episodes = episodes
        self.shots = shots
    }
}
