import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process, as a claim names it: its host, its process id and when it started. The start
/// (Linux: clock ticks since boot, field 22 of /proc/PID/stat) tells a recycled process id from
/// the process that held it; elsewhere it is empty and the id alone is checked.
public struct ProcessIdentity: Sendable, Equatable, Hashable {
    public var host: String
    public var pid: Int32
    public var start: String

    public init(host: String, pid: Int32, start: String) {
        self.host = host
        self.pid = pid
        self.start = start
    }

    /// This process.
    public static let current = ProcessIdentity(host: localHost, pid: getpid(), start: startTime(of: getpid()) ?? "")

    /// The host name as `gethostname` gives it ("" if it cannot).
    static let localHost: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Whether the process still runs. A process of another host cannot be looked at, so it
    /// counts as running (a SQLite database in WAL mode is shared by one host's processes only).
    /// A zombie (killed, not yet waited for) has ended.
    public var isAlive: Bool {
        guard host == Self.localHost else { return true }
        guard pid > 0 else { return false }
        #if os(Linux)
        // The process whose id this is now, if any, must be the one that started then.
        guard let now = Self.procStat(of: pid) else { return false }
        return !now.ended && (start.isEmpty || now.start == start)
        #else
        return kill(pid, 0) == 0 || errno == EPERM
        #endif
    }

    /// Field 22 of /proc/PID/stat (the start time), nil when there is no such process.
    static func startTime(of pid: Int32) -> String? { procStat(of: pid)?.start }

    /// The state and start time of a process from /proc/PID/stat; nil when there is none (or no /proc).
    static func procStat(of pid: Int32) -> (ended: Bool, start: String)? {
        // Read with open(2) and read(2): /proc files say they are empty, so nothing that sizes
        // the file first can be trusted with them. The line is well under 1 KiB.
        let fd = open("/proc/\(pid)/stat", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (the state), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return (fields[0] == "Z" || fields[0] == "X", String(fields[19]))
    }
}

/// A row of `claim`: a level a run is rating now. Another run on the same database leaves the
/// level alone while the claiming process lives (docs/store.md, "Two runs on one database").
public struct ClaimRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "claim"

    public var levelID: Int64
    public var runID: Int64
    /// The claiming process.
    public var host: String
    public var pid: Int64
    public var processStart: String

    public init(levelID: Int64, runID: Int64, process: ProcessIdentity) {
        self.levelID = levelID
        self.runID = runID
        host = process.host
        pid = Int64(process.pid)
        processStart = process.start
    }

    public var process: ProcessIdentity { ProcessIdentity(host: host, pid: Int32(truncatingIfNeeded: pid), start: processStart) }

    enum CodingKeys: String, CodingKey {
        case host, pid
        case levelID = "level_id"
        case runID = "run_id"
        case processStart = "process_start"
    }
}

extension PeggleStore {
    /// Claims `levels` (level ids) for run `runID` of `process`, in one transaction: a level that no
    /// claim holds, or whose claim's process has ended (`isAlive` false: a run killed before it
    /// could release it), is taken; a level claimed by a running process is left to it.
    /// - Returns: the claims of the levels not taken, in the order of `levels`.
    public func claim(levels: [Int64], runID: Int64, process: ProcessIdentity = .current,
                      isAlive: (ProcessIdentity) -> Bool = { $0.isAlive }) throws(StoreError) -> [ClaimRecord] {
        try attempt(path) {
            try writer.write { db in
                var held: [ClaimRecord] = []
                for level in levels {
                    if let existing = try ClaimRecord.filter(Column("level_id") == level).fetchOne(db) {
                        if existing.runID == runID { continue }
                        if isAlive(existing.process) {
                            held.append(existing)
                            continue
                        }
                    }
                    try ClaimRecord(levelID: level, runID: runID, process: process).insert(db, onConflict: .replace)
                }
                return held
            }
        }
    }

    /// Releases every claim of run `runID` (at its end, however it ended).
    public func releaseClaims(runID: Int64) throws(StoreError) {
        try attempt(path) {
            try writer.write { db in try db.execute(sql: "DELETE FROM claim WHERE run_id = ?", arguments: [runID]) }
        }
    }

    /// Every claim, by level id.
    public func claims() throws(StoreError) -> [ClaimRecord] {
        try attempt(path) { try writer.read { db in try ClaimRecord.order(Column("level_id")).fetchAll(db) } }
    }
}
