import Foundation
import GRDB
import PeggleGame

/// The ratings database: levels, agents, runs, episodes and shots in SQLite. Safe to share between
/// threads: GRDB serializes writes and lets reads run beside them (WAL).
public final class PeggleStore: Sendable {
    /// The database file, or ":memory:".
    public let path: String
    package let writer: any DatabaseWriter

    /// Seconds a write waits for another connection (another process) to release the database
    /// before failing with "database is locked".
    public static let busyTimeout: TimeInterval = 5

    /// Opens or creates the database file at `path` in WAL mode (a DatabasePool) and migrates it.
    /// Throws `StoreError.notADatabase` if the file exists but is not SQLite (the file is left
    /// byte-for-byte untouched), `StoreError.newerSchema` if it has applied migrations this build
    /// does not know (nothing is migrated), `StoreError.corrupt` if `PRAGMA quick_check` finds
    /// damage (nothing is written), `StoreError.sqlite(path:message:)` otherwise.
    public init(path: String) throws(StoreError) {
        self.path = path
        if try Self.checkFile(path) {
            // Opening a DatabasePool writes (it turns on WAL and makes sure the WAL file is not
            // empty with a throwaway transaction), so a database this build must refuse is first
            // looked at through a read-only connection, which leaves the file as it was.
            // Closed at the end of this scope, before the pool opens. A damaged file is refused
            // before anything writes to it (StoreSafety.swift).
            let reader = try Self.openForReading(path)
            try Self.refuseCorrupt(reader, path: path)
            try Self.refuseNewerSchema(reader, path: path)
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.foreignKeysEnabled = true
        writer = try attempt(path) { try DatabasePool(path: path, configuration: configuration) }
        try prepare()
    }

    /// Wraps a connection opened elsewhere (`init(readingOnly:)` in StoreSafety.swift).
    init(path: String, connection: any DatabaseWriter) {
        self.path = path
        writer = connection
    }

    /// In memory (a DatabaseQueue), migrated: for tests.
    public init() throws(StoreError) {
        path = ":memory:"
        writer = try attempt(":memory:") { try DatabaseQueue() }
        try prepare()
    }

    /// Refuses a database a newer build migrated (checked again here, on the writer, in case
    /// another process migrated it since the read-only look), then migrates.
    private func prepare() throws(StoreError) {
        try Self.refuseNewerSchema(writer, path: path)
        let migrator = Self.migrator
        try attempt(path) { try migrator.migrate(writer) }
    }

    static func refuseNewerSchema(_ reader: any DatabaseReader, path: String) throws(StoreError) {
        let migrator = Self.migrator
        let applied = try attempt(path) { try reader.read { db in try migrator.appliedIdentifiers(db) } }
        let unknown = applied.subtracting(migrator.migrations).sorted()
        if !unknown.isEmpty { throw .newerSchema(path: path, unknown: unknown) }
    }

    /// What can be told about a file before SQLite touches it: the pool writes as it opens, so
    /// the header of an existing file is checked by hand first.
    /// - Returns: whether the file holds a database already (it exists and is not empty).
    static func checkFile(_ path: String) throws(StoreError) -> Bool {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { throw .sqlite(path: path, message: "is a folder, not a database file") }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw .sqlite(path: path, message: "cannot read the file (permissions?)")
            }
            defer { try? handle.close() }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            // An empty file is a new database to SQLite.
            if header.isEmpty { return false }
            if header != Data("SQLite format 3\0".utf8) { throw .notADatabase(path: path) }
            return true
        } else {
            let folder = (path as NSString).deletingLastPathComponent
            let dir = folder.isEmpty ? "." : folder
            if !files.fileExists(atPath: dir, isDirectory: &isFolder) || !isFolder.boolValue {
                throw .sqlite(path: path, message: "cannot create the database: folder \(dir) does not exist")
            }
            if !files.isWritableFile(atPath: dir) {
                throw .sqlite(path: path, message: "cannot create the database: folder \(dir) is not writable")
            }
            return false
        }
    }

    // MARK: - Identity rows

    /// Id of the level with this content hash, inserting it if new (an existing row keeps its id;
    /// its name and JSON are updated to the newest ones, which differ only in name and description).
    public func level(_ record: LevelRecord) throws(StoreError) -> Int64 {
        try attempt(path) {
            try writer.write { db in
                if let existing = try LevelRecord.filter(Column("content_hash") == record.contentHash).fetchOne(db),
                   let id = existing.id {
                    if existing.name != record.name || existing.json != record.json {
                        try db.execute(sql: "UPDATE level SET name = ?, json = ? WHERE id = ?",
                                       arguments: [record.name, record.json, id])
                    }
                    return id
                }
                var row = record
                row.id = nil
                try row.insert(db)
                return row.id!
            }
        }
    }

    /// Id of the agent with this kind, parameters and weights hash, inserting it if new (an
    /// existing row keeps its id and label). A nil weights hash and "" are the same key.
    public func agent(_ record: AgentRecord) throws(StoreError) -> Int64 {
        try attempt(path) {
            try writer.write { db in
                // The same expression as the unique index agent_identity, so lookup and key agree.
                let sql = "SELECT id FROM agent WHERE kind = ? AND parameters = ? AND ifnull(weights_hash, '') = ?"
                if let id = try Int64.fetchOne(db, sql: sql,
                                               arguments: [record.kind.rawValue, record.parameters, record.weightsHash ?? ""]) {
                    return id
                }
                var row = record
                row.id = nil
                try row.insert(db)
                return row.id!
            }
        }
    }

    // MARK: - Runs

    /// Records the start of a run and returns its id.
    /// - Parameter startedAt: stored as ISO 8601 UTC; the tool passes the clock, tests a fixed date.
    public func beginRun(command: String, configuration: String, engineVersion: String,
                         startedAt: Date = Date()) throws(StoreError) -> Int64 {
        try attempt(path) {
            try writer.write { db in
                var run = RunRecord(command: command, configuration: configuration, engineVersion: engineVersion,
                                    startedAt: Self.timestamp(startedAt))
                try run.insert(db)
                return run.id!
            }
        }
    }

    /// Records the end of a run. A run that was killed keeps `finished_at` NULL.
    public func finishRun(_ id: Int64, episodesAdded: Int, finishedAt: Date = Date()) throws(StoreError) {
        try attempt(path) {
            try writer.write { db in
                try db.execute(sql: "UPDATE run SET finished_at = ?, episodes_added = ? WHERE id = ?",
                               arguments: [Self.timestamp(finishedAt), episodesAdded, id])
                if db.changesCount == 0 { throw StoreError.sqlite(path: path, message: "no run with id \(id)") }
            }
        }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
    }

    // MARK: - Episodes

    /// Keys of episodes already stored for this level and agent: a rerun skips them.
    public func storedKeys(levelID: Int64, agentID: Int64) throws(StoreError) -> Set<EpisodeKey> {
        try attempt(path) {
            try writer.read { db in
                var keys = Set<EpisodeKey>()
                let rows = try Row.fetchCursor(db, sql: "SELECT seed, sigma FROM episode WHERE level_id = ? AND agent_id = ?",
                                               arguments: [levelID, agentID])
                while let row = try rows.next() {
                    keys.insert(EpisodeKey(seed: UInt64(bitPattern: row[0]), sigma: row[1]))
                }
                return keys
            }
        }
    }

    /// Stores a batch in ONE transaction: each game whose (level, agent, seed, sigma) is new is
    /// inserted with its shots; a game already stored, or repeated within the batch, is skipped
    /// with its shots, never duplicated or overwritten. Returns how many were inserted. All or
    /// nothing: if anything fails, nothing of the batch is stored.
    /// - Parameter batch: each game with the ids of its level and agent (from `level(_:)` and
    ///   `agent(_:)`); `runID` is the run that played them.
    public func insert(_ batch: [(game: PlayedGame, levelID: Int64, agentID: Int64)], runID: Int64) throws(StoreError) -> Int {
        if batch.isEmpty { return 0 }
        return try attempt(path) {
            try writer.write { db in
                let stored = try db.cachedStatement(
                    sql: "SELECT 1 FROM episode WHERE level_id = ? AND agent_id = ? AND seed = ? AND sigma = ?")
                var inserted = 0
                for (game, levelID, agentID) in batch {
                    let exists = try Bool.fetchOne(stored, arguments: [levelID, agentID, Int64(bitPattern: game.seed), game.sigma])
                    if exists != nil { continue }
                    try Self.insert(game, runID: runID, levelID: levelID, agentID: agentID, db: db)
                    inserted += 1
                }
                return inserted
            }
        }
    }

    /// Inserts one game and its shots (the caller has checked that its key is new); returns the
    /// episode's id.
    @discardableResult
    static func insert(_ game: PlayedGame, runID: Int64, levelID: Int64, agentID: Int64, db: Database) throws -> Int64 {
        // Prepared once per connection: encoding each row through a record cost most of an insert's time.
        let insertEpisode = try db.cachedStatement(sql: insertSQL(
            table: "episode", fixed: ["run_id", "level_id", "agent_id"], columns: EpisodeColumn.allCases.map(\.rawValue)))
        let insertShot = try db.cachedStatement(sql: insertSQL(
            table: "shot", fixed: ["episode_id"], columns: ShotColumn.allCases.map(\.rawValue)))
        try insertEpisode.execute(arguments: StatementArguments([runID, levelID, agentID] + EpisodeColumn.allCases.map { $0.value(game) }))
        let id = db.lastInsertedRowID
        for shot in game.shotLog {
            try insertShot.execute(arguments: StatementArguments([id] + ShotColumn.allCases.map { $0.value(shot) }))
        }
        return id
    }

    // MARK: - Reading

    /// Every stored game (without shots), ordered by level name, agent label, sigma and seed (as
    /// unsigned); ties between same-named levels or agents break by hash and id.
    public func games() throws(StoreError) -> [PlayedGame] {
        // `e.seed < 0` first: seeds above Int64.max are stored negative and must sort last.
        let sql = """
            SELECT \(PlayedGame.selection)
            FROM episode e JOIN level l ON l.id = e.level_id JOIN agent a ON a.id = e.agent_id
            ORDER BY l.name, l.content_hash, a.label, a.id, e.sigma, e.seed < 0, e.seed
            """
        return try attempt(path) {
            try writer.read { db in try Row.fetchAll(db, sql: sql).map { try PlayedGame(row: $0) } }
        }
    }

    /// The games of one level and agent in the order they were stored, with their shots if asked.
    public func games(levelID: Int64, agentID: Int64, withShots: Bool = false) throws(StoreError) -> [PlayedGame] {
        try gamesWithRuns(levelID: levelID, agentID: agentID, withShots: withShots).map(\.game)
    }

    /// The same games, each with the id of the run that stored it (what a merge copies).
    func gamesWithRuns(levelID: Int64, agentID: Int64, withShots: Bool) throws(StoreError) -> [(run: Int64, game: PlayedGame)] {
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
                    if withShots {
                        let id: Int64 = row["episode_id"]
                        game.shotLog = try Row.fetchAll(db, sql: shotsSQL, arguments: [id]).map(PlayedShot.init(row:))
                    }
                    return (row["run_id"], game)
                }
            }
        }
    }

    /// Which runs stored games of which level and agent: one entry per (level, agent, run) with a
    /// game, by level id, agent id and run id. What `RecordedPriors` reads the fit priors from.
    public func gameRuns() throws(StoreError) -> [GameRun] {
        let sql = """
            SELECT DISTINCT l.content_hash AS level_hash, a.label AS agent_label, a.kind AS agent_kind, e.run_id AS run_id
            FROM episode e JOIN level l ON l.id = e.level_id JOIN agent a ON a.id = e.agent_id
            ORDER BY e.level_id, e.agent_id, e.run_id
            """
        return try attempt(path) {
            try writer.read { db in
                try Row.fetchAll(db, sql: sql).map {
                    GameRun(levelHash: $0["level_hash"], agentLabel: $0["agent_label"], agentKind: $0["agent_kind"], runID: $0["run_id"])
                }
            }
        }
    }

    /// The content hashes of the levels with games of an agent of `kind`. With the greedy agent's
    /// (the skill agent's), the levels a report rates: what the studio's list calls rated. A probe
    /// of the episode's (level, agent) index a level and agent of the kind, not a read of the games.
    public func levelHashes(withGamesOf kind: AgentKind) throws(StoreError) -> Set<String> {
        let sql = """
            SELECT l.content_hash FROM level l
            WHERE EXISTS (SELECT 1 FROM agent a WHERE a.kind = ?
                          AND EXISTS (SELECT 1 FROM episode e WHERE e.level_id = l.id AND e.agent_id = a.id))
            """
        return try attempt(path) {
            try writer.read { db in Set(try String.fetchAll(db, sql: sql, arguments: [kind.rawValue])) }
        }
    }

    /// Every level, by id.
    public func levels() throws(StoreError) -> [LevelRecord] {
        try attempt(path) { try writer.read { db in try LevelRecord.order(Column("id")).fetchAll(db) } }
    }

    /// Every agent, by id.
    public func agents() throws(StoreError) -> [AgentRecord] {
        try attempt(path) { try writer.read { db in try AgentRecord.order(Column("id")).fetchAll(db) } }
    }

    /// Every run, by id.
    public func runs() throws(StoreError) -> [RunRecord] {
        try attempt(path) { try writer.read { db in try RunRecord.order(Column("id")).fetchAll(db) } }
    }

    /// Rows per table, read in one transaction so they agree with each other.
    public func counts() throws(StoreError) -> StoreCounts {
        try attempt(path) {
            try writer.read { db in
                let row = try Row.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM level), (SELECT COUNT(*) FROM agent), (SELECT COUNT(*) FROM run),
                           (SELECT COUNT(*) FROM episode), (SELECT COUNT(*) FROM shot)
                    """)!
                return StoreCounts(levels: row[0], agents: row[1], runs: row[2], episodes: row[3], shots: row[4])
            }
        }
    }

    /// Runs `PRAGMA integrity_check`; true when it says ok.
    public func integrityOK() throws(StoreError) -> Bool {
        try attempt(path) {
            try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"] }
        }
    }
}

/// Runs a GRDB call and maps what it throws (`any Error`) to `StoreError`.
func attempt<T>(_ path: String, _ body: () throws -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch let error as StoreError {
        throw error
    } catch let error as DatabaseError {
        throw StoreError(path: path, error)
    } catch {
        throw .sqlite(path: path, message: "\(error)")
    }
}

extension StoreError {
    init(path: String, _ error: DatabaseError) {
        let message = error.message ?? "\(error)"
        switch error.resultCode {
        case .SQLITE_NOTADB:
            self = .notADatabase(path: path)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self = .sqlite(path: path, message: "\(message) (another process is using it; waited \(Int(PeggleStore.busyTimeout)) s)")
        case .SQLITE_CANTOPEN:
            self = .sqlite(path: path, message: "cannot open the database file (\(message))")
        case .SQLITE_READONLY:
            self = .sqlite(path: path, message: "the database is read-only (\(message))")
        default:
            self = .sqlite(path: path, message: message)
        }
    }
}
