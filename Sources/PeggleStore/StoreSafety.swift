import Foundation
import GRDB

// What keeps a database file safe to copy, to read, and to write: the WAL checkpoint, the
// integrity check before any write, and a read-only open that leaves no trace (docs/store.md).

extension PeggleStore {
    /// Opens an existing database for reading only: nothing is migrated, created or written, not
    /// even SQLite's `-wal` and `-shm` files beside a database that has none (a read-only open of
    /// a WAL database would create them). For `peggle report`.
    ///
    /// Throws `StoreError.sqlite` for a missing or empty file or a database without the rating
    /// tables, `.notADatabase`, `.newerSchema` (or an older one without a table a reader needs: `readerMigrations`),
    /// and `.corrupt` when `PRAGMA quick_check` finds damage.
    public convenience init(readingOnly path: String) throws(StoreError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .sqlite(path: path, message: "no such database file")
        }
        guard try Self.checkFile(path) else {
            throw .sqlite(path: path, message: "is empty (0 bytes), not a rating database; fill it with `peggle rate`")
        }
        let reader = try Self.openForReading(path)
        try Self.refuseCorrupt(reader, path: path)
        try Self.refuseNewerSchema(reader, path: path)
        let migrator = Self.migrator
        let applied = try attempt(path) { try reader.read { db in try migrator.appliedIdentifiers(db) } }
        let missing = Self.readerMigrations.filter { !applied.contains($0) }
        if applied.isEmpty {
            throw .sqlite(path: path, message: "holds no rating tables (an SQLite database, but not one `peggle rate` wrote)")
        }
        if !missing.isEmpty {
            throw .sqlite(path: path, message: "was written by an older Peggle Gym (missing schema migrations: "
                + "\(missing.joined(separator: ", "))); run `peggle rate` on it once to upgrade it")
        }
        self.init(path: path, connection: reader)
    }

    /// Copies every page of the WAL into the database file and empties the WAL
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`), so the `.sqlite` file alone holds every committed
    /// game: a process that exits without closing its connections leaves its WAL behind, and a
    /// copy of the database file without it would miss everything written since the last
    /// automatic checkpoint (or hold no tables at all). Call it when a run ends.
    /// - Returns: false when another connection's open read kept part of the WAL (nothing is
    ///   lost: those pages stay in the WAL until a later checkpoint); true otherwise, and always
    ///   for an in-memory or read-only store, which has nothing to copy.
    @discardableResult
    public func checkpoint() throws(StoreError) -> Bool {
        guard writer is DatabasePool else { return true }
        return try attempt(path) {
            try writer.writeWithoutTransaction { db in
                // One row: busy (1 if a reader blocked it), pages in the WAL, pages copied.
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                return (row?[0] as Int?) == 0
            }
        }
    }

    /// Checkpoints the WAL into the database file and closes every connection, so SQLite removes
    /// the `-wal` and `-shm` files: the `.sqlite` file alone is the database. For a process that
    /// is stopping (`peggle studio`); the store refuses any use after it. Waits for a read or
    /// write under way to end.
    public func close() throws(StoreError) {
        guard let pool = writer as? DatabasePool else { return }
        try checkpoint()
        try attempt(path) {
            try pool.close()
            // The pool closes its writer before its readers, and SQLite removes the WAL only when
            // the last connection to close can write: a connection of our own, opened and closed
            // alone, is that last one.
            try DatabaseQueue(path: path).close()
        }
    }

    /// A connection that only reads `path` (an existing, non-empty database file). With no `-wal`
    /// and no `-shm` beside it, no connection has it open (SQLite removes both when the last one
    /// closes) and the file holds everything: it is opened as immutable, so SQLite creates
    /// neither file (and needs no write access to the folder). Otherwise (a run still writing,
    /// or one that exited without closing) it is opened read-only through the WAL, whose files
    /// exist already.
    static func openForReading(_ path: String) throws(StoreError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        let files = FileManager.default
        if !files.fileExists(atPath: path + "-wal") && !files.fileExists(atPath: path + "-shm"), let uri = immutableURI(path) {
            // Needs SQLite's URI file names (Debian's libsqlite3 has them on); without them the
            // URI names no file and the plain read-only open below is used instead.
            if let queue = try? DatabaseQueue(path: uri, configuration: configuration) { return queue }
        }
        return try attempt(path) { try DatabaseQueue(path: path, configuration: configuration) }
    }

    /// `file:/absolute/path?immutable=1`, percent-encoded; nil if the path cannot be made one.
    static func immutableURI(_ path: String) -> String? {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let encoded = absolute.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) else { return nil }
        return "file:" + encoded + "?immutable=1"
    }

    /// Refuses a damaged database before anything reads or writes it: `PRAGMA quick_check` (the
    /// structure of every page and index, without cross-checking index contents; linear in the
    /// file's size) must say "ok". A file SQLite cannot even read that far is refused the same way.
    static func refuseCorrupt(_ reader: any DatabaseReader, path: String) throws(StoreError) {
        let problems: [String]
        do {
            problems = try reader.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check(5)") }
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: throw .corrupt(path: path, problem: error.message ?? "\(error)")
            default: throw StoreError(path: path, error)
            }
        } catch {
            throw .sqlite(path: path, message: "\(error)")
        }
        if problems != ["ok"] {
            throw .corrupt(path: path, problem: problems.first ?? "PRAGMA quick_check returned nothing")
        }
    }
}
