import Foundation
import GRDB
import PeggleGame

/// What `record(_:level:agent:command:configuration:engineVersion:at:)` did with a game.
public enum RecordOutcome: Sendable, Equatable {
    /// Stored, with a run of its own.
    case added
    /// The store holds this game already (same key, same fired angles): nothing was written.
    case sameGameStored
    /// The store holds another game under this key (same level, agent, seed and sigma, other
    /// angles): nothing was written. Only a person's games can do this: an agent's game is fixed
    /// by its key, a person's also by the person's choices.
    case otherGameStored
}

extension PeggleStore {
    /// Stores one game played outside a rating run (a person's game in the studio) in ONE
    /// transaction: its level and agent rows (found or inserted, as `level(_:)` and `agent(_:)`
    /// do), a run of its own started and finished at `at` with `episodes_added` 1, and the game
    /// with its shots. A game whose key is stored already is never overwritten: the outcome says
    /// whether the stored one is the same game.
    /// With `session` (a shared studio's browser session), its `game_session` row is written in
    /// the same transaction.
    public func record(_ game: PlayedGame, level: LevelRecord, agent: AgentRecord, command: String,
                       configuration: String, engineVersion: String, session: String? = nil,
                       at date: Date = Date()) throws(StoreError) -> RecordOutcome {
        let levelID = try self.level(level)
        let agentID = try self.agent(agent)
        // The identity rows above are idempotent and shared by every game; the run and the game
        // are written together or not at all.
        return try attempt(path) {
            try writer.write { db in
                let sql = "SELECT id FROM episode WHERE level_id = ? AND agent_id = ? AND seed = ? AND sigma = ?"
                if let id = try Int64.fetchOne(db, sql: sql, arguments: [levelID, agentID, Int64(bitPattern: game.seed), game.sigma]) {
                    let angles = try Double.fetchAll(db, sql: "SELECT angle FROM shot WHERE episode_id = ? ORDER BY idx", arguments: [id])
                    return angles == game.shotLog.map(\.angle) ? .sameGameStored : .otherGameStored
                }
                let stamp = Self.timestamp(date)
                var run = RunRecord(command: command, configuration: configuration, engineVersion: engineVersion,
                                    startedAt: stamp, finishedAt: stamp, episodesAdded: 1)
                try run.insert(db)
                let episode = try Self.insert(game, runID: run.id!, levelID: levelID, agentID: agentID, db: db)
                if let session { try GameSessionRecord(episodeID: episode, session: session).insert(db) }
                return .added
            }
        }
    }
}

/// A row of `game_session`: the browser session a person's game was recorded from.
public struct GameSessionRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "game_session"

    public var episodeID: Int64
    /// The session cookie's id (32 hex digits), as the studio issued it.
    public var session: String

    public init(episodeID: Int64, session: String) {
        self.episodeID = episodeID
        self.session = session
    }

    enum CodingKeys: String, CodingKey {
        case session
        case episodeID = "episode_id"
    }
}

extension PeggleStore {
    /// Every game's session, by episode id.
    /// A database from before `v3`, read as it is (`init(readingOnly:)`), has none.
    public func gameSessions() throws(StoreError) -> [GameSessionRecord] {
        try attempt(path) {
            try writer.read { db in
                try db.tableExists(GameSessionRecord.databaseTableName)
                    ? GameSessionRecord.order(Column("episode_id")).fetchAll(db) : []
            }
        }
    }

    /// The sessions of the games stored with one, by the game's key in this database (level id,
    /// agent id, seed, sigma): what a merge carries over with the games.
    func sessionsByKey() throws(StoreError) -> [String: String] {
        let sql = """
            SELECT e.level_id, e.agent_id, e.seed, e.sigma, s.session
            FROM game_session s JOIN episode e ON e.id = s.episode_id
            """
        return try attempt(path) {
            try writer.read { db in
                guard try db.tableExists(GameSessionRecord.databaseTableName) else { return [:] }
                var sessions: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: sql) {
                    sessions[Self.sessionKey(row[0], row[1], row[2], row[3])] = row[4]
                }
                return sessions
            }
        }
    }

    static func sessionKey(_ level: Int64, _ agent: Int64, _ seed: Int64, _ sigma: Double) -> String {
        "\(level) \(agent) \(seed) \(sigma.bitPattern)"
    }
}
