import Foundation
import PeggleTestSupport
import Testing
import peggle
@testable import peggle_bench

/// Every `peggle` and `peggle-bench` command shown in README.md's and docs/'s code blocks parses with
/// today's options, so the docs cannot keep a flag that is gone. Parsing (not running) is enough to
/// catch a renamed or removed option, a subcommand that moved, or a value its option refuses.
@Suite("doc examples")
struct DocExamplesTests {
    /// Which executable a command line runs.
    enum Program: Equatable { case peggle, bench }

    /// A command line in a code block: `peggle ...`, `$P ...` (README's `P=.build/release/peggle`),
    /// `.build/<config>/peggle ...`, or the same with `peggle-bench` (`$B`), continued over lines
    /// ending in a backslash, without its trailing `# comment`. Lines using other shell variables
    /// are left out: their values are not in the text.
    static func examples(in text: String) -> [(line: Int, program: Program, arguments: [String])] {
        var out: [(line: Int, program: Program, arguments: [String])] = []
        var inCode = false, pending = "", start = 0
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") { inCode.toggle(); pending = ""; continue }
            guard inCode else { continue }
            if pending.isEmpty { start = n + 1 }
            pending += line
            if pending.hasSuffix("\\") { pending.removeLast(); pending += " "; continue }
            defer { pending = "" }
            guard var argv = Self.words(pending), let first = argv.first else { continue }
            let program: Program
            if first == "peggle" || first == "$P" || (first.hasPrefix(".build/") && first.hasSuffix("/peggle")) {
                program = .peggle
            } else if first == "peggle-bench" || first == "$B" || (first.hasPrefix(".build/") && first.hasSuffix("/peggle-bench")) {
                program = .bench
            } else { continue }
            argv.removeFirst()
            guard !argv.contains(where: { $0.contains("$") }) else { continue }
            out.append((start, program, argv))
        }
        return out
    }

    /// Shell words: spaces split, quotes group (no expansion), `#` starts a comment, and a
    /// pipe, `&&`, `;` or redirection ends the command; nil for an unterminated quote.
    static func words(_ line: String) -> [String]? {
        var words: [String] = [], word = "", quote: Character?, inWord = false
        for c in line {
            if let q = quote {
                if c == q { quote = nil } else { word.append(c) }
                continue
            }
            switch c {
            case "\"", "'": quote = c; inWord = true
            case " ", "\t":
                if inWord { words.append(word); word = ""; inWord = false }
            case ";":
                if inWord { words.append(word) }
                return words
            case "#", "|", ">", "&":
                // At a word's start they end the command (a comment, a pipe, a redirection, `&&`).
                guard inWord else { return words }
                word.append(c)
            default: word.append(c); inWord = true
            }
        }
        guard quote == nil else { return nil }
        if inWord { words.append(word) }
        return words
    }

    /// Why `arguments` do not parse as `program`'s, or nil.
    static func refusal(_ arguments: [String], _ program: Program = .peggle) -> String? {
        do {
            switch program {
            case .peggle: _ = try Peggle.parseAsRoot(arguments)
            case .bench: _ = try PeggleBench.parseAsRoot(arguments)
            }
            return nil
        } catch {
            return program == .peggle ? Peggle.fullMessage(for: error) : PeggleBench.fullMessage(for: error)
        }
    }

    static func shown(_ program: Program, _ arguments: [String]) -> String {
        (program == .peggle ? "peggle " : "peggle-bench ") + arguments.joined(separator: " ")
    }

    @Test func everyReadmeExampleParses() throws {
        let text = try String(contentsOf: Repository.url("README.md"), encoding: .utf8)
        let examples = Self.examples(in: text)
        // The README shows the tool's commands; finding none means this reader is broken.
        #expect(examples.count >= 20, "\(examples.map(\.arguments))")
        #expect(examples.contains { $0.program == .bench && $0.arguments.starts(with: ["vector"]) })
        for (line, program, arguments) in examples {
            #expect(Self.refusal(arguments, program) == nil, "README.md:\(line): \(Self.shown(program, arguments))")
        }
    }

    /// The benchmarks' commands in the reference docs (docs/performance.md gives each figure with
    /// its command), and no `peggle bench` left anywhere in docs/: the product has no such command.
    /// The lab notebooks (docs/lab/) keep the commands as they were run, old forms included.
    @Test func everyBenchExampleInTheDocsParses() throws {
        let folder = Repository.url("docs")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
        var seen = 0
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (line, program, arguments) in Self.examples(in: text) where program == .bench || arguments.first == "bench" {
                seen += 1
                #expect(Self.refusal(arguments, program) == nil, "docs/\(file):\(line): \(Self.shown(program, arguments))")
            }
        }
        #expect(seen >= 10)
    }

    /// The reader finds what it must, and a gone flag fails the check.
    @Test func theCheckSeesExamplesAndRefusesAGoneFlag() throws {
        let text = """
            prose peggle play x
            ```sh
            P=.build/release/peggle
            $P play Levels/a.json --angles 0.1 --seed 1     # comment --gone
            .build/release/peggle rate "My Levels" --db x.sqlite \\
                --budget 48
            peggle bench physics
            .build/release/peggle-bench vector --envs 64
            for f in $L; do .build/release/peggle play $f; done
            ```
            """
        let found = Self.examples(in: text)
        #expect(found.map(\.arguments) == [["play", "Levels/a.json", "--angles", "0.1", "--seed", "1"],
                                           ["rate", "My Levels", "--db", "x.sqlite", "--budget", "48"],
                                           ["bench", "physics"], ["vector", "--envs", "64"]])
        #expect(found.map(\.program) == [.peggle, .peggle, .peggle, .bench])
        #expect(found.map(\.line) == [4, 5, 7, 8])
        #expect(Self.refusal(found[0].arguments) == nil && Self.refusal(found[1].arguments) == nil)
        #expect(Self.refusal(found[3].arguments, .bench) == nil)
        #expect(Self.refusal(["play", "Levels/a.json", "--no-such-flag"]) != nil)
        // The benchmarks are not the product's: `peggle bench` is refused, `peggle-bench --rating` too (the old form).
        #expect(Self.refusal(["bench", "physics"]) != nil)
        #expect(Self.refusal(["--rating"], .bench) != nil)
    }
}
