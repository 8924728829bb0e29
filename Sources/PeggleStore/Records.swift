import GRDB
import PeggleGame
import PeggleLevel

/// A row of `level`: one playable level, identified by its content hash.
public struct LevelRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "level"

    public var id: Int64?
    /// 16 lower-case hex digits computed by the caller (`Level.contentHash`): what is played, not the name.
    public var contentHash: String
    public var name: String
    /// The canonical level JSON.
    public var json: String
    /// Stored as its raw value, the level file's spelling ("classic", "beat_the_score" or "dodge").
    public var mode: GameModeKind
    /// Stored as its raw value ("none", "kaboom"...).
    public var power: Power
    /// Pegs of every kind.
    public var pegCount: Int
    public var blue: Int
    public var orange: Int
    public var green: Int
    public var purple: Int
    public var zombie: Int
    public var confusement: Int
    public var blockCount: Int

    public init(id: Int64? = nil, contentHash: String, name: String, json: String, mode: GameModeKind, power: Power,
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
    /// Stored as its raw value ("random", "greedy", "human", ...: any well-formed kind).
    public var kind: AgentKind
    /// A JSON object with sorted keys, as the caller wrote it: compared as text.
    public var parameters: String
    /// Hash of a linear policy's weights; nil for agents without weights (stored as NULL, keyed as "").
    public var weightsHash: String?
    /// Human readable, e.g. `greedy(candidates=48,refine=2x8,samples=8,screen=4)`.
    public var label: String

    public init(id: Int64? = nil, kind: AgentKind, parameters: String, weightsHash: String? = nil, label: String) {
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

/// A run that stored games of a level and agent (`PeggleStore.gameRuns`).
public struct GameRun: Sendable, Equatable {
    public var levelHash: String
    public var agentLabel: String
    /// The agent's kind as stored (`AgentKind`'s raw value).
    public var agentKind: String
    public var runID: Int64
}
