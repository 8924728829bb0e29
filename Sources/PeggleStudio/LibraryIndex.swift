import Foundation
import Glibc
import PeggleDifficulty
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleLevelFiles
import PeggleUtilities
import Synchronization

/// The studio's index of its folder: every level file's facts (`LevelLibrary.Entry` and the
/// level's content hash), each kept with the file's stamp (device, inode, size, modification and
/// change times) so that only files whose stamp moved are read again. With ten thousand levels,
/// reading every file took 8.5 s a list request; the index reads each once.
///
/// What changed since the last request is learned from the kernel (inotify on the folder), so a
/// request costs no stat of every file; a change made outside the studio (an editor, `level
/// generate`, `rm`) is seen at the next request. Where inotify is not there, or its queue
/// overflowed, the folder is scanned again: every name stat-ed, only changed files read. A link in
/// the folder is stat-ed again at every request (its target's events name the target, not it).
///
/// The first scan reads every file on every core in chunks and publishes each chunk as it lands,
/// so the studio's list answers (with what is indexed so far, marked incomplete) while it runs.
/// The index lives in memory: a restarted studio builds it again (about 1.3 s of CPU a thousand
/// levels, 2026-12-06).
///
/// Behind the facts, every level gets its instant estimate (`peggle estimate`'s built-in model,
/// about 11 ms a level on a core): once a scan or a change has published its rows, a thread of its
/// own estimates what has none, on every core, in file order, a chunk published at a time, so the
/// list shows estimates as they arrive. Estimates are kept by content hash: a renamed or copied
/// level keeps its estimate, and a level's estimate is the same whatever thread computed it.
public final class LibraryIndex: Sendable {
    public let folder: String
    let threads: Int

    /// What identifies a version of a file: a save replaces the inode, an in-place write moves
    /// the modification time and the size, chmod moves the change time.
    struct Stamp: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64
        var isLink: Bool
        /// The file's own mode bits (the link's, for a link, as `LevelFolder.isWriteProtected`
        /// reads them) let nobody write it.
        var writeProtected: Bool
    }

    /// A level's instant estimate, as the list shows and filters it.
    struct Estimate: Equatable {
        var sigma50: Double
        var tier: Tier
    }

    struct Row {
        var entry: LevelLibrary.Entry
        var stamp: Stamp
        /// `Level.contentHash` (nil for a file that is not a level).
        var hash: String?
        /// The name in lower case: what search and the name check compare.
        var key: String
        /// The file name in lower case: what search compares too.
        var fileKey: String
    }

    package struct State {
        /// The rows by file; changed only through `set` and `keep`, which keep `inFileOrder` true.
        private(set) var rows: [String: Row] = [:]
        /// `rows` in file order, made by the first list request that needs it and kept in step by
        /// one-file changes: a list request sorts positions in it, never rows (sorting 10,000 rows
        /// by value took most of a request's 50 ms).
        private(set) var inFileOrder: [Row]?
        /// Whether a full scan has finished (until then the list is marked incomplete).
        var complete = false
        /// Whether the first scan is running, and the files it found.
        package var building = false
        var expected = 0
        /// The inotify descriptor watching the folder, or -1.
        package var watch: Int32 = -1
        /// Estimates by content hash; nil for a level the model cannot estimate (it cannot be
        /// prepared for play), so it is not tried again.
        var estimates: [String: Estimate?] = [:]
        /// Whether the estimating thread runs.
        var estimating = false

        /// Puts `row` under `file`, or drops the file (nil).
        mutating func set(_ file: String, _ row: Row?) {
            rows[file] = row
            guard var order = inFileOrder else { return }
            inFileOrder = nil  // so `order` is the array's only holder and changes in place
            var (low, high) = (0, order.count)
            while low < high {
                let mid = (low + high) / 2
                if order[mid].entry.file.utf8.lexicographicallyPrecedes(file.utf8) { low = mid + 1 } else { high = mid }
            }
            let found = low < order.count && order[low].entry.file == file
            switch (found, row) {
            case (true, let row?): order[low] = row
            case (true, nil): order.remove(at: low)
            case (false, let row?): order.insert(row, at: low)
            case (false, nil): break
            }
            inFileOrder = order
        }

        /// Puts many rows at once (a scan's chunk); `inFileOrder` is made again when next asked for.
        mutating func set(_ many: [(file: String, row: Row)]) {
            for (file, row) in many { rows[file] = row }
            inFileOrder = nil
        }

        /// Keeps only the files `keep` says yes to.
        mutating func keep(_ keep: (String) -> Bool) {
            rows = rows.filter { keep($0.key) }
            inFileOrder = nil
        }

        /// `rows` in file order.
        mutating func rowsInFileOrder() -> [Row] {
            if let order = inFileOrder { return order }
            let order = rows.values.sorted { $0.entry.file.utf8.lexicographicallyPrecedes($1.entry.file.utf8) }
            inFileOrder = order
            return order
        }
    }

    package let state = Mutex(State())
    /// One refresh at a time: two requests that find the same change read it once.
    let refreshing = Mutex(())

    init(folder: String, threads: Int) {
        self.folder = folder
        self.threads = max(1, threads)
    }

    deinit {
        let fd = state.withLock { $0.watch }
        if fd >= 0 { close(fd) }
    }

    // MARK: Refreshing

    /// Starts the first scan on a thread of its own (the studio calls this once at start), so
    /// requests answer while it runs.
    public func startBuilding() {
        let begin = state.withLock { s -> Bool in
            guard !s.complete, !s.building else { return false }
            s.building = true
            return true
        }
        guard begin else { return }
        Thread.detachNewThread { [self] in
            // A save's `refresh(wait: true)` may have taken the lock first and scanned already.
            refreshing.withLock { _ in if !state.withLock({ $0.complete }) { scanAll() } }
            state.withLock { $0.building = false }
        }
    }

    /// Brings the index up to date with the folder. While the first scan runs, a list request
    /// answers with the rows indexed so far (marked incomplete); what must see every level (the
    /// name check of a save) `wait`s for the scan.
    package func refresh(wait: Bool = false) {
        // Only while the first scan runs: once it is complete, every list must see later changes.
        if !wait, state.withLock({ $0.building && !$0.complete }) { return }
        refreshing.withLock { _ in
            let (complete, fd) = state.withLock { ($0.complete, $0.watch) }
            guard complete, fd >= 0, let names = Self.drain(fd) else {
                scanAll()
                return
            }
            let links = state.withLock { s in s.rows.filter { $0.value.stamp.isLink }.map(\.key) }
            update(Set(names).union(links))
        }
    }

    /// Every level file of the folder stat-ed, the changed and new ones read (on every core, a
    /// chunk published at a time), the gone ones dropped. The watch is set first, so a change
    /// made during the scan is seen by the next refresh.
    func scanAll() {
        watchFolder()
        let names = (try? LevelFolder.levelFileNames(in: folder)) ?? []
        let known = state.withLock { $0.rows.mapValues(\.stamp) }
        var stamps: [String: Stamp] = [:]
        var toRead: [(String, Stamp)] = []
        // Every name stat-ed on every core (ten thousand stats are a tenth of a second of one).
        let stamped = Parallel.map(names.count, threads: threads) { [self] i in stampOf(names[i]) }
        for (name, stamp) in zip(names, stamped) {
            guard let stamp else { continue }
            stamps[name] = stamp
            if known[name] != stamp { toRead.append((name, stamp)) }
        }
        state.withLock { s in
            s.keep { stamps[$0] != nil }
            s.expected = stamps.count
        }
        let chunk = 256
        var start = 0
        while start < toRead.count {
            let part = Array(toRead[start..<min(start + chunk, toRead.count)])
            // A file a chunk of the shared counter: no core waits at the end of a part for
            // another's last run of files.
            let rows = Parallel.map(part.count, threads: threads, chunksPerThread: Int.max) { [self] i in read(part[i].0, part[i].1) }
            state.withLock { s in
                s.set(rows.enumerated().map { (part[$0].0, $1) })
            }
            start += chunk
        }
        state.withLock { $0.complete = true }
        estimateBehind()
    }

    /// The files `names` stat-ed again: read if their stamp moved, dropped if they are gone or
    /// no longer level files.
    func update(_ names: Set<String>) {
        defer { if !names.isEmpty { estimateBehind() } }
        for name in names {
            let stamp = LevelFolder.isLevelFileName(name) ? stampOf(name) : nil
            guard let stamp else {
                state.withLock { $0.set(name, nil) }
                continue
            }
            if state.withLock({ $0.rows[name]?.stamp }) == stamp { continue }
            let row = read(name, stamp)
            state.withLock { $0.set(name, row) }
        }
    }

    /// The stamp of `name` in the folder (of its target, for a link), nil when it is gone or is
    /// not a regular file.
    func stampOf(_ name: String) -> Stamp? {
        let path = (folder as NSString).appendingPathComponent(name)
        var own = stat()
        guard lstat(path, &own) == 0 else { return nil }
        let isLink = own.st_mode & S_IFMT == S_IFLNK
        var st = own
        if isLink { guard stat(path, &st) == 0 else { return nil } }
        guard st.st_mode & S_IFMT == S_IFREG else { return nil }
        return Stamp(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                     modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                     changed: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec), isLink: isLink,
                     writeProtected: own.st_mode & 0o222 == 0)
    }

    /// One file's row: what `LevelLibrary.open` makes of it (a file that is not a level is listed
    /// read-only, with why).
    func read(_ name: String, _ stamp: Stamp) -> Row {
        do throws(StudioError) {
            let (level, readOnly) = try LevelLibrary.open(name, in: folder, stat: (stamp.isLink, stamp.writeProtected))
            let entry = LevelLibrary.Entry(file: name, name: level.name, readOnly: readOnly, mode: level.mode.name,
                                           pegs: level.pegs.count, orange: level.count(of: .orange),
                                           blocks: level.blocks.count, error: nil)
            return Row(entry: entry, stamp: stamp, hash: level.contentHash, key: level.name.lowercased(), fileKey: name.lowercased())
        } catch {
            let entry = LevelLibrary.Entry(file: name, name: name, readOnly: true, mode: "", pegs: 0, orange: 0, blocks: 0,
                                           error: error.message)
            return Row(entry: entry, stamp: stamp, hash: nil, key: name.lowercased(), fileKey: name.lowercased())
        }
    }

    // MARK: Estimates

    /// Starts the estimating thread unless it runs (a running one takes up what has no estimate
    /// before it stops, so nothing published is left without).
    func estimateBehind() {
        let begin = state.withLock { s -> Bool in
            guard !s.estimating else { return false }
            s.estimating = true
            return true
        }
        guard begin else { return }
        Thread.detachNewThread { [self] in estimateMissing() }
    }

    /// Estimates every indexed level that has none, in file order, on every core, publishing a
    /// chunk at a time; stops (under the lock that `estimateBehind` checks) when none is left.
    func estimateMissing() {
        var tried = Set<String>()
        while true {
            let todo = state.withLock { s -> [(file: String, hash: String)] in
                var seen = Set<String>()
                var out: [(file: String, hash: String)] = []
                for (file, row) in s.rows {
                    guard let hash = row.hash, s.estimates.index(forKey: hash) == nil, !tried.contains(hash),
                          seen.insert(hash).inserted else { continue }
                    out.append((file, hash))
                }
                if out.isEmpty { s.estimating = false }
                return out
            }.sorted { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) }
            if todo.isEmpty { return }
            let chunk = 16 * threads
            var start = 0
            while start < todo.count {
                let part = Array(todo[start..<min(start + chunk, todo.count)])
                // Below the request threads' priority: a list request answers at once while this runs.
                let done = Parallel.map(part.count, threads: threads, chunksPerThread: Int.max, priority: .background) { [folder] i in
                    Self.estimate(part[i].file, in: folder, hash: part[i].hash)
                }
                state.withLock { s in
                    for (i, e) in done.enumerated() { if let e { s.estimates[part[i].hash] = e } }
                }
                tried.formUnion(part.map(\.hash))
                start += chunk
            }
        }
    }

    /// The estimate of the level in `file`, read again: `.some(nil)` when the model cannot
    /// estimate it, nil when the file no longer holds the level of `hash` (the refresh that sees
    /// the change indexes its new content, and the estimating thread then takes it up).
    static func estimate(_ file: String, in folder: String, hash: String) -> Estimate?? {
        let path = (folder as NSString).appendingPathComponent(file)
        guard let data = FileManager.default.contents(atPath: path), let level = try? LevelCodec.decode(data),
              level.contentHash == hash else { return nil }
        return .some(estimate(level))
    }

    /// `peggle estimate`'s estimate of `level` (the built-in model, the default rules), nil when
    /// the level cannot be prepared for play or the model gives no number for it.
    static func estimate(_ level: Level) -> Estimate? {
        guard let prepared = try? PreparedLevel(level) else { return nil }
        let features = LevelFeatures(prepared)
        guard EstimateModel.builtIn.predictLog(features).isFinite else { return nil }
        let e = Sigma50Estimate(features: features, model: EstimateModel.builtIn)
        return Estimate(sigma50: e.sigma50, tier: e.tier)
    }

    // MARK: inotify

    /// Watches the folder (again, after its watch was lost); leaves -1 where inotify is not there.
    func watchFolder() {
        let old = state.withLock { s -> Int32 in
            let fd = s.watch
            s.watch = -1
            return fd
        }
        if old >= 0 { close(old) }
        let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { return }
        let events = UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MODIFY) | UInt32(IN_CLOSE_WRITE)
            | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF)
            | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR)
        guard inotify_add_watch(fd, folder, events) >= 0 else {
            close(fd)
            return
        }
        state.withLock { $0.watch = fd }
    }

    /// The names the queued events of `fd` name; nil when the queue overflowed or the folder
    /// itself went away (then only a full scan knows what is there).
    static func drain(_ fd: Int32) -> [String]? {
        var names: [String] = []
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(fd, buffer, size)
            if n < 0 {
                if errno == EINTR { continue }
                return errno == EAGAIN ? names : nil
            }
            if n == 0 { return names }
            var offset = 0
            while offset + 16 <= n {
                let mask = buffer.load(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(buffer.load(fromByteOffset: offset + 12, as: UInt32.self))
                let lost = UInt32(IN_Q_OVERFLOW) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_IGNORED)
                if mask & lost != 0 { return nil }
                if length > 0 {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + 16, count: length)
                    let name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                    if !name.isEmpty { names.append(name) }
                }
                offset += 16 + length
            }
        }
    }

    // MARK: Reading

    /// The level names the folder's levels have, in lower case, by file (files that are not
    /// levels have none), after a refresh.
    func names() -> [String: String] {
        refresh(wait: true)
        return state.withLock { s in
            var out: [String: String] = [:]
            for (file, row) in s.rows where row.entry.error == nil { out[file] = row.key }
            return out
        }
    }

    /// Every entry, in byte order of the file names, after a refresh.
    func entries() -> [LevelLibrary.Entry] {
        refresh()
        return state.withLock { s in s.rows.values.map(\.entry) }.sorted { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) }
    }

    /// The content hash of `file` as indexed (nil: not indexed, or not a level).
    func contentHash(_ file: String) -> String? {
        state.withLock { $0.rows[file]?.hash }
    }

    /// One page of the list: the rows `query` keeps, in its order, from its offset. `rated`: the
    /// content hashes of the levels that have a rating (what `query.rated` filters by).
    func page(_ query: LevelQuery, rated: Set<String> = []) -> LevelPage {
        refresh()
        let (rows, estimates, complete, expected) = state.withLock { s in (s.rowsInFileOrder(), s.estimates, s.complete, s.expected) }
        // Each row's estimate: none yet (not settled), or settled (nil: the level cannot have one).
        var estimate = [Estimate?](repeating: nil, count: rows.count)
        var estimated = 0
        let text = query.text.lowercased()
        // Positions in `rows` (file order) of the rows the query keeps.
        var kept: [Int] = []
        for (i, row) in rows.enumerated() {
            if let hash = row.hash {
                if let e = estimates[hash] {
                    estimate[i] = e
                    estimated += 1
                }
            } else {
                estimated += 1
            }
            guard query.mode == nil || row.entry.mode == query.mode,
                  query.rated.map({ rated.contains(row.hash ?? "") == $0 }) ?? true,
                  text.isEmpty || row.key.contains(text) || row.fileKey.contains(text) else { continue }
            if query.tier != nil || query.sigma50Min != nil || query.sigma50Max != nil {
                guard let e = estimate[i], query.tier == nil || e.tier == query.tier, query.sigma50Min.map({ e.sigma50 >= $0 }) ?? true,
                      query.sigma50Max.map({ e.sigma50 <= $0 }) ?? true else { continue }
            }
            kept.append(i)
        }
        var order = kept
        if query.sort == .file {
            if query.descending { order.reverse() }
        } else {
            order.sort { i, j in
                // Levels not estimated (yet) come last in either order of the estimate's sorts.
                if query.sort.readsEstimate, (estimate[i] == nil) != (estimate[j] == nil) { return estimate[j] == nil }
                let c = query.sort.compare(rows[i], estimate[i], rows[j], estimate[j])
                if c != 0 { return query.descending ? c > 0 : c < 0 }
                return i < j  // ties in file order
            }
        }
        let items = order.dropFirst(query.offset).prefix(query.limit).map { i in
            var entry = rows[i].entry
            entry.sigma50 = estimate[i]?.sigma50
            entry.tier = estimate[i]?.tier.rawValue
            return entry
        }
        return LevelPage(total: rows.count, matched: kept.count, offset: query.offset, limit: query.limit,
                         complete: complete, expected: max(expected, rows.count), estimated: estimated, items: Array(items))
    }
}

/// What `GET /api/levels` asks for: a page of the folder's levels, filtered and sorted on the
/// server, so the page never loads the whole list.
public struct LevelQuery: Sendable, Equatable {
    /// What the list is sorted by; ties in file order.
    public enum Sort: String, CaseIterable, Sendable {
        case file, name, mode, pegs, orange, blocks
        /// The estimate's sigma50 (ascending: hardest first) and its tier (ascending: easy,
        /// medium, hard, very hard); levels without an estimate come last either way.
        case sigma50, tier

        var readsEstimate: Bool { self == .sigma50 || self == .tier }

        /// The order of two rows with their estimates, by this sort alone (file order, the ties'
        /// order, is the list's; `.file` is that order already).
        func compare(_ a: LibraryIndex.Row, _ x: LibraryIndex.Estimate?, _ b: LibraryIndex.Row, _ y: LibraryIndex.Estimate?) -> Int {
            func order<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
            switch self {
            case .file: return a.entry.file.utf8.lexicographicallyPrecedes(b.entry.file.utf8) ? -1 : (a.entry.file == b.entry.file ? 0 : 1)
            case .name: return order(a.key, b.key)
            case .mode: return order(a.entry.mode, b.entry.mode)
            case .pegs: return order(a.entry.pegs, b.entry.pegs)
            case .orange: return order(a.entry.orange, b.entry.orange)
            case .blocks: return order(a.entry.blocks, b.entry.blocks)
            case .sigma50: return order(x?.sigma50 ?? 0, y?.sigma50 ?? 0)
            case .tier:
                func rank(_ e: LibraryIndex.Estimate?) -> Int { e.flatMap { Tier.allCases.firstIndex(of: $0.tier) } ?? 0 }
                return order(rank(x), rank(y))
            }
        }
    }

    public static let defaultLimit = 200
    public static let limits = 1...1000

    public var offset = 0
    public var limit = LevelQuery.defaultLimit
    public var sort = Sort.file
    public var descending = false
    /// Kept when the level's name or file name contains it (any case).
    public var text = ""
    /// Kept when the level's mode is this one (nil: any).
    public var mode: String?
    /// Kept when the level's estimate is of this tier; and when its sigma50 is at least
    /// `sigma50Min`, at most `sigma50Max` (radians). A filter on the estimate keeps no level
    /// that has none yet.
    public var tier: Tier?
    public var sigma50Min: Double?
    public var sigma50Max: Double?
    /// Kept when the level has a rating in the studio's database (true), or has none (false: so
    /// is a file that is not a level); nil: either. `StudioAPI.levels` says which are rated.
    public var rated: Bool?

    public init(offset: Int = 0, limit: Int = LevelQuery.defaultLimit, sort: Sort = .file, descending: Bool = false,
                text: String = "", mode: String? = nil, tier: Tier? = nil, sigma50Min: Double? = nil, sigma50Max: Double? = nil,
                rated: Bool? = nil) {
        self.offset = offset
        self.limit = limit
        self.sort = sort
        self.descending = descending
        self.text = text
        self.mode = mode
        self.tier = tier
        self.sigma50Min = sigma50Min
        self.sigma50Max = sigma50Max
        self.rated = rated
    }

    /// The tiers an estimate has, as `tier=` names them.
    static let tiers = Tier.askable

    /// The query a URL's parameters ask for: `offset`, `limit` (1...1000, 200 when left out),
    /// `sort` (a `Sort`), `order` (asc or desc), `q`, `mode`, `tier` (a tier's name),
    /// `sigma50_min`, `sigma50_max` (radians) and `rated` (true or false). Anything else, or a
    /// value out of range, is refused naming the parameter and the value.
    public init(parameters: [(String, String)]) throws(StudioError) {
        var seen = Set<String>()
        for (name, value) in parameters {
            guard seen.insert(name).inserted else { throw .badRequest("bad request: '\(name)' is given twice") }
            func number(_ range: ClosedRange<Int>) throws(StudioError) -> Int {
                guard let n = Int(value), range.contains(n) else {
                    throw .badRequest("bad request: \(name)=\(LevelCodec.cut(value)) is not a whole number in \(range.lowerBound)...\(range.upperBound)")
                }
                return n
            }
            switch name {
            case "offset": offset = try number(0...Int(Int32.max))
            case "limit": limit = try number(Self.limits)
            case "sort":
                guard let s = Sort(rawValue: value) else {
                    throw .badRequest("bad request: sort=\(LevelCodec.cut(value)) is not one of \(Sort.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sort = s
            case "order":
                guard value == "asc" || value == "desc" else { throw .badRequest("bad request: order=\(LevelCodec.cut(value)) is not asc or desc") }
                descending = value == "desc"
            case "q": text = value
            case "mode": mode = value.isEmpty ? nil : value
            case "tier":
                guard value.isEmpty || Self.tiers.contains(where: { $0.rawValue == value }) else {
                    throw .badRequest("bad request: tier=\(LevelCodec.cut(value)) is not one of \(Self.tiers.map(\.rawValue).joined(separator: ", "))")
                }
                tier = value.isEmpty ? nil : Tier(rawValue: value)
            case "sigma50_min", "sigma50_max":
                guard let x = Double(value), x.isFinite, x >= 0 else {
                    throw .badRequest("bad request: \(name)=\(LevelCodec.cut(value)) is not a number of radians, 0 or more")
                }
                if name == "sigma50_min" { sigma50Min = x } else { sigma50Max = x }
            case "rated":
                guard ["", "true", "false"].contains(value) else {
                    throw .badRequest("bad request: rated=\(LevelCodec.cut(value)) is not true or false")
                }
                rated = value.isEmpty ? nil : value == "true"
            default:
                throw .badRequest("bad request: '\(LevelCodec.cut(name))' is not a parameter of the level list "
                    + "(offset, limit, sort, order, q, mode, tier, sigma50_min, sigma50_max, rated)")
            }
        }
    }
}

/// A page of the level list.
public struct LevelPage: Sendable, Encodable, Equatable {
    /// Levels indexed (all the folder's level files once `complete`).
    public var total: Int
    /// Of them, those the filter keeps.
    public var matched: Int
    public var offset: Int
    public var limit: Int
    /// False while the first scan runs: `total` then counts what is indexed so far, of `expected`.
    public var complete: Bool
    public var expected: Int
    /// Of `total`, the levels whose estimate is settled (estimated, or not a level the model can
    /// estimate): the rest get theirs behind the index.
    public var estimated: Int
    public var items: [LevelLibrary.Entry]
}
