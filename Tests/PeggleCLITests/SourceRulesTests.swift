import Foundation
import PeggleAgents
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleServe
import PeggleTestSupport
import Testing

/// Rules of the house that can be checked by reading the sources: each choice is declared once,
/// so no Swift source spells one of its values as a string literal outside the file that
/// declares it (comments and doc comments may name them).
@Suite("Source rules")
struct SourceRulesTests {
    /// The choices, their values, and the one file each value may be spelled in. Agent kinds are
    /// open: PeggleGame declares the two with a role outside the agents, PeggleAgents the rest.
    static let choices: [(name: String, values: [String], home: String)] = [
        ("game mode", GameModeKind.allCases.map(\.rawValue), "Sources/PeggleLevel/GameModeKind.swift"),
        ("agent kind", [AgentKind.human, .greedy].map(\.rawValue), "Sources/PeggleGame/PlayedGame.swift"),
        ("agent kind", AgentFactory.programKinds.filter { $0 != .greedy }.map(\.rawValue), "Sources/PeggleAgents/AgentFactory.swift"),
        ("error code", ErrorCode.allCases.map(\.rawValue), "Sources/PeggleEnv/EnvError.swift"),
        ("render format", RenderFormat.allCases.map(\.rawValue), "Sources/PeggleServe/ServeRequests.swift"),
    ]

    /// Every Swift file under Sources/, by its path from the repository's root.
    static func sources() throws -> [(path: String, text: String)] {
        let root = Repository.url("Sources")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        return try files.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.map { url in
            (String(url.path.dropFirst(Repository.root.path.count + 1)), try String(contentsOf: url, encoding: .utf8))
        }.sorted { $0.path < $1.path }
    }

    /// A line without its comment (the part from a `//` that is not inside a string).
    static func code(_ line: Substring) -> Substring {
        var inString = false, previous: Character = " "
        for i in line.indices {
            let c = line[i]
            if c == "\"" && previous != "\\" { inString.toggle() }
            if !inString && c == "/" && previous == "/" { return line[..<line.index(before: i)] }
            previous = c
        }
        return line
    }

    @Test func noClosedChoiceIsSpelledOutsideItsEnum() throws {
        let files = try Self.sources()
        #expect(files.count > 100)
        var found: [String] = []
        for (path, text) in files {
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = Self.code(line)
                for choice in Self.choices where path != choice.home {
                    for value in choice.values where code.contains("\"\(value)\"") {
                        found.append("\(path):\(n + 1): the \(choice.name) \"\(value)\"")
                    }
                }
            }
        }
        #expect(found.isEmpty, "spell these through their enum: \(found.joined(separator: "; "))")
    }

    /// Paths outside the repository that a file might cite: the machine the code was written on,
    /// folders beside the checkout. A reader of a fresh clone has neither.
    static func outsidePaths(_ text: String) -> [String] {
        text.matches(of: /(?:\/work\/|\/home\/|\.\.\/shared\/)[\w.\/-]*/).map { String($0.0) }
    }

    /// Test files (code and comments) cite no path outside the repository (the help texts' checks,
    /// which look for such a folder in `--help`, are not citations).
    @Test func noTestFileCitesAPathOutsideTheRepository() throws {
        let root = Repository.url("Tests")
        let files = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        var found: [String] = []
        var read = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            read += 1
            let text = try String(contentsOf: url, encoding: .utf8)
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.contains(#"contains("/work/")"#) && !line.contains("outsidePaths(") {
                for path in Self.outsidePaths(String(line)) { found.append("\(url.lastPathComponent):\(n + 1): \(path)") }
            }
        }
        #expect(read > 50)
        #expect(found.isEmpty, "cite the repository's own files instead: \(found.joined(separator: "; "))")
        #expect(Self.outsidePaths("/// the scene of `/work/shared/bench/pymunk_peggle.py`") == ["/work/shared/bench/pymunk_peggle.py"])
        #expect(Self.outsidePaths("python3 ../shared/bench/x.py and Levels/a.json") == ["../shared/bench/x.py"])
    }

    /// The check itself finds what it looks for (a test that cannot fail is a defect).
    @Test func theCheckSeesALiteralAndSkipsComments() {
        #expect(Self.code(#"let m = "dodge" // a "classic" note"#) == #"let m = "dodge" "#)
        #expect(Self.code(#"let url = "http://x" + "y""#) == #"let url = "http://x" + "y""#)
        #expect(Self.code("/// the \"greedy\" agent").trimmingCharacters(in: .whitespaces).isEmpty)
    }
}
