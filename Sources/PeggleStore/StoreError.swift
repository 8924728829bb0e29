/// Why the store refused: each names the database file and what is wrong with it.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but is not an SQLite database.
    case notADatabase(path: String)
    /// The database was written by a newer Peggle Gym (it has migrations this build does not know).
    case newerSchema(path: String, unknown: [String])
    /// `PRAGMA quick_check` found damage (`problem` is its first finding); nothing was written.
    case corrupt(path: String, problem: String)
    /// Any other SQLite failure (locked, read-only, disk full...).
    case sqlite(path: String, message: String)

    public var description: String {
        switch self {
        case let .notADatabase(path):
            "\(path): not an SQLite database (choose another --db file; this one was left untouched)"
        case let .newerSchema(path, unknown):
            "\(path): written by a newer Peggle Gym (unknown schema migrations: \(unknown.joined(separator: ", "))); "
                + "upgrade peggle or use another --db file"
        case let .corrupt(path, problem):
            "\(path): the database is damaged (\(problem)); it was left as it was. Restore a copy, or rate into "
                + "another --db file"
        case let .sqlite(path, message):
            "\(path): \(message)"
        }
    }
}
