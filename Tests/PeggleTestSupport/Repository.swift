import Foundation

/// The repository's files, for tests that read the bundled levels, agents and docs. Found from
/// this file's path (Tests/PeggleTestSupport/Repository.swift), so it holds wherever the tests run.
public enum Repository {
    /// The repository's root folder.
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A path under the root, e.g. "Levels/spiral.json".
    public static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// The bytes of a file under the root.
    public static func data(_ relative: String) throws -> Data { try Data(contentsOf: url(relative)) }
}
