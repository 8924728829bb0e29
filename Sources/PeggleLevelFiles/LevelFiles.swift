import Foundation

/// A folder that cannot give its level files, naming it: the tools print it as it is.
public struct LevelFolderError: LocalizedError, Equatable, CustomStringConvertible {
    /// The folder as it was given.
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
    public var errorDescription: String? { description }
}

/// Level-folder expansion, the one rule every tool follows (`peggle rate`, `estimate`, `train`,
/// `level gallery`, `db merge --levels`, the studio's level list, `peggle-bench rating`; Python's
/// `peggle_gym.level_files` is held to it by test_level_files.py):
/// - a folder's level files are the entries directly in it (not in folders below) whose names
///   end in `.json`, except hidden ones (a leading `.`: editors' and tools' temporary files) and
///   folders (a link to a file counts as the file);
/// - by name alone: a `.json` file that is not a level (a policy's weights) is one, and reading it
///   fails naming it, while other files beside the levels (`difficulty.csv`, pictures, notes) are
///   not;
/// - in the byte order of their names (UTF-8), the same in every language and locale;
/// - a folder that cannot be listed is an error naming it; one given as an argument with no
///   level file is too (a typo should not rate nothing).
extension LevelFolder {
    /// The suffix a level file's name ends in.
    public static let levelSuffix = ".json"

    /// Whether a name in a folder is a level file's by the rule above (folders aside).
    public static func isLevelFileName(_ name: String) -> Bool {
        name.hasSuffix(levelSuffix) && !name.hasPrefix(".")
    }

    /// The names of the level files directly in `folder` (the rule above), in byte order.
    public static func levelFileNames(in folder: String) throws(LevelFolderError) -> [String] {
        let fm = FileManager.default
        let items: [String]
        do {
            items = try fm.contentsOfDirectory(atPath: folder)
        } catch {
            throw LevelFolderError(path: folder, reason: "cannot be read as a folder (\(reason(error)))")
        }
        return items.filter { name in
            guard isLevelFileName(name) else { return false }
            var isFolder: ObjCBool = false
            let exists = fm.fileExists(atPath: (folder as NSString).appendingPathComponent(name), isDirectory: &isFolder)
            return exists && !isFolder.boolValue
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The level files that arguments name: a file as it is given (whatever its name; reading it
    /// says whether it is a level), a folder as its `levelFileNames` joined to it, less the names in
    /// `excluding`. A folder without a level file is an error naming it.
    public static func levelFiles(_ arguments: [String], excluding: Set<String> = []) throws(LevelFolderError) -> [String] {
        var files: [String] = []
        for path in arguments {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                files.append(path)
                continue
            }
            let names = try levelFileNames(in: path)
            guard !names.isEmpty else { throw LevelFolderError(path: path, reason: "folder has no level files (*.json)") }
            files += names.filter { !excluding.contains($0) }.map { (path as NSString).appendingPathComponent($0) }
        }
        return files
    }

    /// The system's reason for a failed file operation ("Permission denied"), else Foundation's.
    public static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? Error {
            let posix = underlying as NSError
            if posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))) }
        }
        return ns.localizedDescription
    }
}
