import Foundation
import PeggleTestSupport
import Testing
@testable import peggle

/// Every `peggle` command shown in README.md's code blocks parses with today's options, so the
/// README cannot keep a flag that is gone. Parsing (not running) is enough to catch a renamed or
/// removed option, a subcommand that moved, or a value its option refuses.
@Suite("doc examples")
struct DocExamplesTests {
    /// A command line in a code block: `peggle ...`, `$P ...` (README's `P=.build/release/peggle`)
    /// or `.build/<config>/peggle ...`, continued over lines ending in a backslash, without its
    /// trailing `# comment`. Lines using other shell variables are left out: their values are
    /// not in the text.
    static func examples(in text: String) -> [(line: Int, arguments: [String])] {
        var out: [(line: Int, arguments: [String])] = []
        var inCode = false, pending = "", start = 0
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") { inCode.toggle(); pending = ""; continue }
            guard inCode else { continue }
            if pending.isEmpty { start = n + 1 }
            pending += line
            if pending.hasSuffix("\\") { pending.removeLast(); pending += " "; continue }
            defer { pending = "" }
            guard var argv = Self.words(pending), let first = argv.first,
                  first == "peggle" || first == "$P" || (first.hasPrefix(".build/") && first.hasSuffix("/peggle")) else { continue }
            argv.removeFirst()
            guard !argv.contains(where: { $0.contains("$") }) else { continue }
            out.append((start, argv))
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

    /// Why `arguments` do not parse, or nil.
    static func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try Peggle.parseAsRoot(arguments)
            return nil
        } catch {
            return Peggle.fullMessage(for: error)
        }
    }

    @Test func everyReadmeExampleParses() throws {
        let text = try String(contentsOf: Repository.url("README.md"), encoding: .utf8)
        let examples = Self.examples(in: text)
        // The README shows the tool's commands; finding none means this reader is broken.
        #expect(examples.count >= 20, "\(examples.map(\.arguments))")
        #expect(examples.contains { $0.arguments.starts(with: ["bench", "vector"]) })
        for (line, arguments) in examples {
            #expect(Self.refusal(arguments) == nil, "README.md:\(line): peggle \(arguments.joined(separator: " "))")
        }
    }

    /// The benchmarks' commands in docs/ (docs/performance.md gives each figure with its command).
    @Test func everyBenchExampleInTheDocsParses() throws {
        let folder = Repository.url("docs")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".md") }.sorted()
        var seen = 0
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (line, arguments) in Self.examples(in: text) where arguments.first == "bench" {
                seen += 1
                #expect(Self.refusal(arguments) == nil, "docs/\(file):\(line): peggle \(arguments.joined(separator: " "))")
                // The deprecated form is for old scripts, not for the docs.
                #expect((try? Bench.legacy(arguments)) ?? nil == nil, "docs/\(file):\(line): the old `bench --mode` form")
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
            peggle bench --rating
            for f in $L; do .build/release/peggle play $f; done
            ```
            """
        let found = Self.examples(in: text)
        #expect(found.map(\.arguments) == [["play", "Levels/a.json", "--angles", "0.1", "--seed", "1"],
                                           ["rate", "My Levels", "--db", "x.sqlite", "--budget", "48"],
                                           ["bench", "--rating"]])
        #expect(found.map(\.line) == [4, 5, 7])
        #expect(Self.refusal(found[0].arguments) == nil && Self.refusal(found[1].arguments) == nil)
        #expect(Self.refusal(["play", "Levels/a.json", "--no-such-flag"]) != nil)
        #expect(Self.refusal(["bench", "--rating"]) != nil)  // only the legacy rewrite makes it run
    }
}
