import Foundation
import GRDB
import PeggleGame

/// What merging one shard added to a database, and what it found there already (docs/store.md).
public struct MergeReport: Sendable, Equatable {
    /// The shard's path.
    public var shard: String
    public var levelsAdded = 0, agentsAdded = 0, runsAdded = 0
    public var gamesAdded = 0
    /// Games whose key (level, agent, seed, sigma) the database held already with the same outcome.
    public var gamesAlreadyThere = 0
    /// Games whose key the database held with a different outcome: kept as they were.
    public var conflicts: [MergeConflict] = []

    public init(shard: String) { self.shard = shard }
}

/// A record with a row id (the identity tables' records), so a merge can renumber it.
protocol Identified {
    var id: Int64? { get set }
}

extension LevelRecord: Identified {}
extension AgentRecord: Identified {}
extension RunRecord: Identified {}

/// A game stored in both databases under one key with different outcomes (written by different
/// engine versions, say). The database keeps its own; the shard's is not written.
public struct MergeConflict: Sendable, Equatable {
    public var levelHash: String
    public var agentLabel: String
    public var key: EpisodeKey
    /// "won, score 41200, 7 shots, ..." in the database, and in the shard.
    public var kept: String
    public var refused: String
}

extension PeggleStore {
    /// Merges every level, agent, run and game of `shard` into this database, in ONE transaction:
    /// all of the shard or nothing. Identity decides what is new (docs/store.md): levels by content
    /// hash, agents by kind, parameters and weights hash, runs by start time, command,
    /// configuration and engine version, games by (level, agent, seed, sigma). A game already
    /// here is not written again; when its outcome differs it is reported as a conflict and this
    /// database's game is kept. Merging the same shard twice adds nothing. The shard is only read
    /// (open it with `init(readingOnly:)`). Ends with a WAL checkpoint.
    ///
    /// With `onlyLevels` (content hashes), only those levels are merged, with their games and the
    /// agents and runs those games name: how a distributed rating gives each worker the games its
    /// levels already have (docs/distributed.md).
    public func merge(_ shard: PeggleStore, onlyLevels: Set<String>? = nil) throws(StoreError) -> MergeReport {
        var report = MergeReport(shard: shard.path)
        var levels = try shard.levels(), agents = try shard.agents(), runs = try shard.runs()
        let groups = try attempt(shard.path) {
            try shard.writer.read { db in
                try Row.fetchAll(db, sql: "SELECT DISTINCT level_id, agent_id, run_id FROM episode ORDER BY level_id, agent_id, run_id")
                    .map { (level: $0[0] as Int64, agent: $0[1] as Int64, run: $0[2] as Int64) }
            }
        }
        // A person's game keeps the browser session it was recorded from (`game_session`).
        let sessions = try shard.sessionsByKey()
        var pairs: [(level: Int64, agent: Int64)] = []
        for g in groups {
            if let last = pairs.last, last.level == g.level, last.agent == g.agent { continue }
            pairs.append((g.level, g.agent))
        }
        if let only = onlyLevels {
            levels.removeAll { !only.contains($0.contentHash) }
            let kept = Set(levels.map { $0.id! })
            let named = groups.filter { kept.contains($0.level) }
            let agentIDs = Set(named.map(\.agent)), runIDs = Set(named.map(\.run))
            pairs.removeAll { !kept.contains($0.level) }
            agents.removeAll { !agentIDs.contains($0.id!) }
            runs.removeAll { !runIDs.contains($0.id!) }
        }
        try attempt(path) {
            try writer.write { db in
                let levelID = try Self.adopt(levels, db: db, added: &report.levelsAdded) {
                    try Int64.fetchOne(db, sql: "SELECT id FROM level WHERE content_hash = ?", arguments: [$0.contentHash])
                }
                let agentID = try Self.adopt(agents, db: db, added: &report.agentsAdded) {
                    let sql = "SELECT id FROM agent WHERE kind = ? AND parameters = ? AND ifnull(weights_hash, '') = ?"
                    return try Int64.fetchOne(db, sql: sql, arguments: [$0.kind.rawValue, $0.parameters, $0.weightsHash ?? ""])
                }
                let runID = try Self.adopt(runs, db: db, added: &report.runsAdded) {
                    // A run has no natural key; these four together never repeat between real runs.
                    let sql = "SELECT id FROM run WHERE started_at = ? AND command = ? AND configuration = ? AND engine_version = ?"
                    return try Int64.fetchOne(db, sql: sql, arguments: [$0.startedAt, $0.command, $0.configuration, $0.engineVersion])
                }
                let stored = try db.cachedStatement(sql: "SELECT \(EpisodeColumn.allCases.map(\.rawValue).joined(separator: ", ")) "
                    + "FROM episode WHERE level_id = ? AND agent_id = ? AND seed = ? AND sigma = ?")
                let labels = Dictionary(uniqueKeysWithValues: agents.map { ($0.id!, $0.label) })
                let hashes = Dictionary(uniqueKeysWithValues: levels.map { ($0.id!, $0.contentHash) })
                for pair in pairs {
                    let games = try shard.gamesWithRuns(levelID: pair.level, agentID: pair.agent, withShots: true)
                    for (run, game) in games {
                        let level = levelID[pair.level]!, agent = agentID[pair.agent]!
                        if let row = try Row.fetchOne(stored, arguments: [level, agent, Int64(bitPattern: game.seed), game.sigma]) {
                            let here = Self.outcome(row)
                            let there = Self.outcome(game)
                            if here == there {
                                report.gamesAlreadyThere += 1
                            } else {
                                report.conflicts.append(MergeConflict(levelHash: hashes[pair.level]!, agentLabel: labels[pair.agent]!,
                                                                      key: game.key, kept: here, refused: there))
                            }
                            continue
                        }
                        let episode = try Self.insert(game, runID: runID[run]!, levelID: level, agentID: agent, db: db)
                        if let session = sessions[Self.sessionKey(pair.level, pair.agent, Int64(bitPattern: game.seed), game.sigma)] {
                            try GameSessionRecord(episodeID: episode, session: session).insert(db)
                        }
                        report.gamesAdded += 1
                    }
                }
            }
        }
        try checkpoint()
        return report
    }

    /// Maps each shard record's id to its id here: the row `existing` finds by identity, or the
    /// record inserted anew (counted in `added`).
    static func adopt<R: MutablePersistableRecord & Identified>(_ records: [R], db: Database, added: inout Int,
                                                               existing: (R) throws -> Int64?) throws -> [Int64: Int64] {
        var ids: [Int64: Int64] = [:]
        for var record in records {
            let old = record.id!
            if let here = try existing(record) {
                ids[old] = here
                continue
            }
            record.id = nil
            try record.insert(db)
            ids[old] = record.id!
            added += 1
        }
        return ids
    }

    /// A game's outcome columns as text, to compare and to show.
    static func outcome(_ game: PlayedGame) -> String {
        "\(game.status.rawValue), score \(game.score), \(game.shots) shots, orange \(game.orangeCleared)/\(game.orangeTotal), "
            + "balls used \(game.ballsUsed), \(game.gameSeconds) s"
    }

    static func outcome(_ row: Row) -> String {
        "\(row[EpisodeColumn.status] as String), score \(row[EpisodeColumn.score] as Int), \(row[EpisodeColumn.shots] as Int) shots, "
            + "orange \(row[EpisodeColumn.orangeCleared] as Int)/\(row[EpisodeColumn.orangeTotal] as Int), "
            + "balls used \(row[EpisodeColumn.ballsUsed] as Int), \(row[EpisodeColumn.gameSeconds] as Double) s"
    }
}
