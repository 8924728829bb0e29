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
                var levelID: [Int64: Int64] = [:], agentID: [Int64: Int64] = [:], runID: [Int64: Int64] = [:]
                for var level in levels {
                    if let id = try Int64.fetchOne(db, sql: "SELECT id FROM level WHERE content_hash = ?",
                                                   arguments: [level.contentHash]) {
                        levelID[level.id!] = id
                    } else {
                        let old = level.id!
                        level.id = nil
                        try level.insert(db)
                        levelID[old] = level.id!
                        report.levelsAdded += 1
                    }
                }
                for var agent in agents {
                    let sql = "SELECT id FROM agent WHERE kind = ? AND parameters = ? AND ifnull(weights_hash, '') = ?"
                    if let id = try Int64.fetchOne(db, sql: sql, arguments: [agent.kind, agent.parameters, agent.weightsHash ?? ""]) {
                        agentID[agent.id!] = id
                    } else {
                        let old = agent.id!
                        agent.id = nil
                        try agent.insert(db)
                        agentID[old] = agent.id!
                        report.agentsAdded += 1
                    }
                }
                for var run in runs {
                    // A run has no natural key; these four together never repeat between real runs.
                    let sql = "SELECT id FROM run WHERE started_at = ? AND command = ? AND configuration = ? AND engine_version = ?"
                    if let id = try Int64.fetchOne(db, sql: sql, arguments: [run.startedAt, run.command, run.configuration,
                                                                              run.engineVersion]) {
                        runID[run.id!] = id
                    } else {
                        let old = run.id!
                        run.id = nil
                        try run.insert(db)
                        runID[old] = run.id!
                        report.runsAdded += 1
                    }
                }
                let stored = try db.cachedStatement(sql: "SELECT \(EpisodeColumn.allCases.map(\.rawValue).joined(separator: ", ")) "
                    + "FROM episode WHERE level_id = ? AND agent_id = ? AND seed = ? AND sigma = ?")
                let labels = Dictionary(uniqueKeysWithValues: agents.map { ($0.id!, $0.label) })
                let hashes = Dictionary(uniqueKeysWithValues: levels.map { ($0.id!, $0.contentHash) })
                for pair in pairs {
                    let games = try shard.gamesWithRuns(levelID: pair.level, agentID: pair.agent)
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
                        try Self.insert(game, runID: runID[run]!, levelID: level, agentID: agent, db: db)
                        report.gamesAdded += 1
                    }
                }
            }
        }
        try checkpoint()
        return report
    }

    /// Every game of one level and agent with its shots and the id of the run that stored it.
    func gamesWithRuns(levelID: Int64, agentID: Int64) throws(StoreError) -> [(run: Int64, game: PlayedGame)] {
        let sql = """
            SELECT e.id AS episode_id, e.run_id AS run_id, \(PlayedGame.selection)
            FROM episode e JOIN level l ON l.id = e.level_id JOIN agent a ON a.id = e.agent_id
            WHERE e.level_id = ? AND e.agent_id = ? ORDER BY e.id
            """
        return try attempt(path) {
            try writer.read { db in
                let shotsSQL = "SELECT * FROM shot WHERE episode_id = ? ORDER BY \(ShotColumn.index.rawValue)"
                return try Row.fetchAll(db, sql: sql, arguments: [levelID, agentID]).map { row in
                    var game = try PlayedGame(row: row)
                    let id: Int64 = row["episode_id"]
                    game.shotLog = try Row.fetchAll(db, sql: shotsSQL, arguments: [id]).map(PlayedShot.init(row:))
                    return (row["run_id"], game)
                }
            }
        }
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
