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
    public func record(_ game: PlayedGame, level: LevelRecord, agent: AgentRecord, command: String,
                       configuration: String, engineVersion: String, at date: Date = Date()) throws(StoreError) -> RecordOutcome {
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
                try Self.insert(game, runID: run.id!, levelID: levelID, agentID: agentID, db: db)
                return .added
            }
        }
    }
}
