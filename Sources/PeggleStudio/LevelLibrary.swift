import Foundation
import Glibc
import PeggleGame
import PeggleLevel
import PeggleLevelFiles
import Synchronization

/// The studio's folder of levels: the same rules as `peggle level edit` and `level new`. Files
/// are named by a bare `NAME.json` inside the folder (no folders, no `..`, no absolute paths, no
/// link that leads out); level names are unique in the folder (case-insensitively); read-only
/// levels (bundled ones, or files nobody may write) are saved as a copy; every write is atomic.
/// Level files end in `.json`, lower case, as every tool reads a folder (`LevelFolder`): another
/// spelling (`X.JSON`) is refused, so no file is saved that the list and the name check miss.
public struct LevelLibrary: Sendable {
    /// One save at a time in the process: the check that a name is free and the write that takes
    /// it are one step, so two saves of one new name cannot both pass the check (one would be
    /// lost, or two files would hold the name). Saves take milliseconds; one lock for every folder.
    static let saving = Mutex(())

    /// The folder, absolute and with links resolved.
    public let folder: String

    /// Opens `folder`, creating it when missing; its index reads files on `threads` threads.
    public init(folder: String, threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(StudioError) {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            guard isDir.boolValue else { throw StudioError(400, "\(folder): is a file, not a folder of levels") }
        } else {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw StudioError(400, "\(folder): cannot create the folder (\(error.localizedDescription))")
            }
        }
        self.folder = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
        index = LibraryIndex(folder: self.folder, threads: threads)
    }

    /// The folder's index: what the list shows and the name checks read (`LibraryIndex`).
    public let index: LibraryIndex

    /// One level of the folder, for the level list.
    public struct Entry: Sendable, Encodable, Equatable {
        public var file: String
        public var name: String
        public var readOnly: Bool
        public var mode: String
        public var pegs: Int, orange: Int, blocks: Int
        /// Why the file cannot be opened (not a level file), if it cannot.
        public var error: String?
        /// The instant estimate (`peggle estimate`'s built-in model): sigma50, radians, and its
        /// `Tier`; in the list's pages only, once the index has estimated the level.
        public var sigma50: Double?
        public var tier: String?
    }

    /// The folder's level files (`LevelFolder.levelFileNames`: `*.json`, not hidden, in byte order
    /// of the names), from the index; none when the folder cannot be read.
    public func list() -> [Entry] { index.entries() }

    /// A page of the list, filtered and sorted (`GET /api/levels`); `rated`: the content hashes of
    /// the levels with a rating (`StudioAPI.levels` reads them from the database).
    public func list(_ query: LevelQuery, rated: Set<String> = []) -> LevelPage { index.page(query, rated: rated) }

    /// A level name no level of the folder has (other than the file `except`), from `base`.
    public func uniqueName(_ base: String, tail: String = "", except: String? = nil) -> String {
        LevelFolder.uniqueName(base, tail: tail, taken: Set(takenNames(except: except).values))
    }

    /// The names the folder's levels have, in lower case, by file, less the file `except` (a
    /// path; a link and its target are the same file).
    func takenNames(except: String?) -> [String: String] {
        let names = index.names()
        guard let except else { return names }
        return names.filter { !LevelFolder.samePath((folder as NSString).appendingPathComponent($0.key), except) }
    }

    /// Reads `file`: the level and whether it is read-only (marked so, or not writable).
    public func open(_ file: String) throws(StudioError) -> (level: Level, readOnly: Bool) {
        try Self.open(file, in: folder)
    }

    /// `open` in the folder `folder` (absolute, links resolved): what the index reads each file with.
    /// `stat`, when the caller has the file's: whether it is a link (only a link's target needs
    /// the check that it stays in the folder) and whether its mode bits let nobody write it (what
    /// `LevelFolder.isWriteProtected` reads), so the index spends no path resolution and no
    /// attribute read a file.
    static func open(_ file: String, in folder: String, stat: (isLink: Bool, writeProtected: Bool)? = nil)
        throws(StudioError) -> (level: Level, readOnly: Bool) {
        let path = try path(of: file, in: folder, resolving: stat?.isLink ?? true)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .notFound("\(file): no such level in the folder")
        }
        let level: Level
        do { level = try LevelCodec.decode(data) } catch { throw .refused("\(file): \(error)") }
        return (level, level.readOnly || (stat?.writeProtected ?? LevelFolder.isWriteProtected(path)))
    }

    /// What a save did.
    public struct Saved: Sendable, Encodable, Equatable {
        /// The file written (a bare name in the folder).
        public var file: String
        /// The level as written (canonical JSON text).
        public var level: String
        /// Why the file or name differs from what was asked, if it does.
        public var note: String?
    }

    /// Saves `level`.
    /// - `file` nil: a new file named from the level's name; the name must be free in the folder.
    /// - `file` given: that file is replaced, unless it is read-only: then, as `level edit` does, the
    ///   level is saved as a copy ("NAME (copy)") in a new file. The name must not be another file's.
    /// - `copy`: save as a copy under a new unique name "NAME (copy)" (duplicate).
    public func save(_ level: Level, file: String?, copy: Bool = false) throws(StudioError) -> Saved {
        try Self.saving.withLock { _ throws(StudioError) in try saveAlone(level, file: file, copy: copy) }
    }

    /// `save`, under `saving`.
    func saveAlone(_ level: Level, file: String?, copy: Bool) throws(StudioError) -> Saved {
        var level = level
        // A read-only level, or a read-only file, is saved as a copy, as `level edit` does.
        var asCopy = copy || level.readOnly
        var target: String?
        if let file, !asCopy {
            let path = try path(of: file)
            if FileManager.default.fileExists(atPath: path) {
                guard let existing = try? open(file) else {
                    throw .conflict("\(file): exists and is not a level file; it was left as it was")
                }
                asCopy = existing.readOnly
            }
            if !asCopy {
                try checkNameFree(level.name, except: path)
                target = path
            }
        }
        var note: String?
        if asCopy {
            level.name = uniqueName(level.name, tail: " (copy)")
            note = "saved as a copy, '\(level.name)'"
        } else if target == nil {
            try checkNameFree(level.name, except: nil)
        }
        let path = target ?? LevelFolder.freeLevelPath(for: level.name, in: folder)
        level.readOnly = false
        if let issue = level.textIssues().first { throw .refused("refused: \(issue)") }
        let text = LevelCodec.encode(level)
        let name = (path as NSString).lastPathComponent
        try Self.writeWhole(Data(text.utf8), to: path, replacing: target != nil)
        return Saved(file: name, level: text, note: note)
    }

    /// Saves `level` as a new file, never over one: the first of `files(1)`, `files(2)`... that no
    /// file of the folder has, the level named `level.name + tail` made unique in the folder (the
    /// tuner's `NAME.tuned-TIER.json`, "NAME (TIER)").
    public func saveNew(_ level: Level, files: (Int) -> String, tail: String) throws(StudioError) -> Saved {
        try Self.saving.withLock { _ throws(StudioError) in
            var level = level
            level.readOnly = false
            level.name = uniqueName(level.name, tail: tail)
            if let issue = level.textIssues().first { throw .refused("refused: \(issue)") }
            var n = 1
            while FileManager.default.fileExists(atPath: try path(of: files(n))) { n += 1 }
            let text = LevelCodec.encode(level)
            try Self.writeWhole(Data(text.utf8), to: try path(of: files(n)), replacing: false)
            return Saved(file: files(n), level: text, note: nil)
        }
    }

    /// Writes `data` to `path` whole or not at all: into a hidden temporary file beside it
    /// (hidden files are never listed), flushed to disk, then renamed over `path` (`replacing`)
    /// or linked as `path`, which fails rather than replace a file another process made meanwhile.
    static func writeWhole(_ data: Data, to path: String, replacing: Bool) throws(StudioError) {
        let name = (path as NSString).lastPathComponent
        let temp = (LevelFolder.folder(of: path) as NSString).appendingPathComponent(".\(name).\(UUID().uuidString).tmp")
        func failed(_ what: String) -> StudioError {
            StudioError(500, "\(name): cannot be written (\(what): \(String(cString: strerror(errno))))")
        }
        let fd = Glibc.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failed("creating a temporary file") }
        defer { unlink(temp) }  // after a rename there is nothing left to remove
        let written = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        guard written, fsync(fd) == 0 else {
            let error = failed("writing")
            close(fd)
            throw error
        }
        close(fd)
        if replacing {
            guard rename(temp, path) == 0 else { throw failed("renaming into place") }
        } else if link(temp, path) != 0 {
            if errno == EEXIST { throw .conflict("\(name): a file of that name appeared while saving; it was left as it was, save again") }
            throw failed("linking into place")
        }
    }

    /// Refuses a name another level of the folder (other than the file `except`) already has.
    func checkNameFree(_ name: String, except: String?) throws(StudioError) {
        let lower = name.lowercased()
        if let clash = takenNames(except: except).filter({ $0.value == lower }).keys.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            throw .conflict("a level named '\(name)' is already in the folder (\(clash)); "
                + "names are unique per folder: choose another name")
        }
    }

    /// The path of the bare file name `file` in the folder. Refuses anything else: separators,
    /// `..`, hidden files, names not ending in .json, and links that lead out of the folder.
    public func path(of file: String) throws(StudioError) -> String { try Self.path(of: file, in: folder) }

    /// - Parameter resolving: false for a name known to be a regular file of the folder (not a
    ///   link): then it cannot lead out, and its links are not resolved.
    static func path(of file: String, in folder: String, resolving: Bool = true) throws(StudioError) -> String {
        guard !file.isEmpty else { throw .badRequest("the level file name is empty") }
        guard file.utf8.count <= 255 else {
            throw .badRequest("'\(LevelCodec.cut(file))' is \(file.utf8.count) bytes long; a file name has at most 255")
        }
        guard !file.contains("/"), !file.contains("\\"), !file.contains("\0"),
              !file.hasPrefix("."), file != ".." else {
            throw .badRequest("'\(LevelCodec.cut(file))' is not a file name in the levels folder (no folders, no '..')")
        }
        guard file.hasSuffix(".json") else {
            throw .badRequest("'\(LevelCodec.cut(file))' does not end in .json (lower case); level files are .json files")
        }
        let path = (folder as NSString).appendingPathComponent(file)
        guard resolving else { return path }
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard LevelFolder.folder(of: resolved) == folder else {
            throw .badRequest("'\(LevelCodec.cut(file))' leads out of the levels folder")
        }
        return path
    }
}
