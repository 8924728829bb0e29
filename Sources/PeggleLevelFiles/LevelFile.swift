import Foundation
import PeggleLevel

/// A level file that cannot be played: one line per problem, each naming the file (and, for an
/// invalid level, the object and field). The tools print the lines as they are; `peggle serve`
/// and the native library join them with "; " into one `level_error` message.
public struct LevelFileError: Error, Equatable, CustomStringConvertible {
    public var lines: [String]

    public init(_ line: String) { lines = [line] }
    public init(lines: [String]) { self.lines = lines }

    public var description: String { lines.joined(separator: "; ") }
}

/// Reading one level file: the one place it is done (the tools, `peggle serve`, the native
/// library and the studio all read levels through it).
public enum LevelFile {
    /// Problems listed in a refusal before "... and N more problems".
    public static let listedProblems = 10

    /// Reads and validates a level file; every problem names the file, the object and the field.
    public static func load(_ path: String, rules: Rules = Rules(), validate: Bool = true) throws(LevelFileError) -> Level {
        let level = try decode(path)
        if validate {
            let issues = level.validate(rules: rules)
            if !issues.isEmpty {
                var lines = issues.prefix(listedProblems).map { "\(path): \($0)" }
                if issues.count > listedProblems { lines.append("\(path): ... and \(issues.count - listedProblems) more problems") }
                throw LevelFileError(lines: lines)
            }
        }
        return level
    }

    /// Reads a level file without the semantic checks (the designer edits levels in progress).
    public static func decode(_ path: String) throws(LevelFileError) -> Level {
        guard !path.isEmpty else { throw LevelFileError("the level file name is empty") }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw LevelFileError("\(path): no such file")
        }
        guard !isDir.boolValue else { throw LevelFileError("\(path): is a directory, not a level file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LevelFileError("\(path): cannot be read")
        }
        do {
            return try LevelCodec.decode(data)
        } catch {
            throw LevelFileError("\(path): \(error)")
        }
    }
}
