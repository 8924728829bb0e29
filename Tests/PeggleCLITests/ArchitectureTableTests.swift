import Foundation
import PeggleTestSupport
import Testing

/// docs/architecture.md's module table against Package.swift, both read as text: one row per
/// target of the package (test targets aside), each row's "depends on" column naming exactly the
/// target's dependencies, and every dependency in a row above (dependencies point down the table);
/// and each target's sources against its dependencies: the package modules its files import are
/// exactly the package targets it depends on (no import of a module it reaches only through
/// another, no edge that no file imports).
@Suite("The architecture table matches Package.swift")
struct ArchitectureTableTests {
    struct Target {
        var name: String
        /// Package targets it depends on, and other packages' products as (product, package).
        var targets: Set<String>
        var products: [(name: String, package: String)]
        /// Where its sources are.
        var folder: String
    }

    struct Row {
        var module: String
        var dependsOn: String
    }

    /// The text from `open` (an opening bracket or parenthesis) to its matching close, exclusive.
    static func balanced(_ text: Substring, from open: String.Index) -> Substring? {
        let pairs: [Character: Character] = ["(": ")", "[": "]"]
        guard let close = pairs[text[open]] else { return nil }
        var depth = 0, inString = false
        var i = open
        while i < text.endIndex {
            let c = text[i]
            if c == "\"" { inString.toggle() }
            if !inString {
                if c == text[open] { depth += 1 }
                if c == close { depth -= 1; if depth == 0 { return text[text.index(after: open)..<i] } }
            }
            i = text.index(after: i)
        }
        return nil
    }

    static func quoted(_ text: Substring) -> [String] {
        text.matches(of: /"([^"]*)"/).map { String($0.1) }
    }

    /// Every non-test target of Package.swift: `.target`, `.executableTarget` and `.systemLibrary`
    /// calls, without test targets and targets whose sources are under Tests/ (`tests: true`:
    /// those only, with the folder of their sources).
    static func packageTargets(tests: Bool = false) throws -> [Target] {
        let text = Substring(try String(contentsOf: Repository.url("Package.swift"), encoding: .utf8))
        var out: [Target] = []
        for call in text.matches(of: /\.(target|executableTarget|systemLibrary|testTarget)\(/) {
            let open = text.index(before: call.range.upperBound)
            let body = try #require(balanced(text, from: open), "an unbalanced call at \(call.range.lowerBound)")
            let name = try #require(body.firstMatch(of: /name:\s*"([^"]+)"/)).1
            let path = body.firstMatch(of: /path:\s*"([^"]+)"/).map { String($0.1) }
            let isTest = call.1 == "testTarget" || path?.hasPrefix("Tests/") == true
            guard isTest == tests else { continue }
            var targets = Set<String>(), products: [(String, String)] = []
            if let deps = body.firstMatch(of: /dependencies:\s*\[/) {
                var list = try #require(balanced(body, from: body.index(before: deps.range.upperBound)))
                for p in list.matches(of: /\.product\(name:\s*"([^"]+)",\s*package:\s*"([^"]+)"\)/) {
                    products.append((String(p.1), String(p.2)))
                }
                list = Substring(list.replacing(/\.product\([^)]*\)/, with: ""))
                targets = Set(quoted(list))
            }
            out.append(Target(name: String(name), targets: targets, products: products,
                              folder: path ?? (tests ? "Tests/\(name)" : "Sources/\(name)")))
        }
        return out
    }

    /// The rows of the table whose header is `| module | owns | depends on |`, in order.
    static func tableRows() throws -> [Row] {
        let text = try String(contentsOf: Repository.url("docs/architecture.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| module | owns | depends on |") },
                                  "docs/architecture.md: no table headed '| module | owns | depends on |'")
        var rows: [Row] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| `") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // "| `name` | owns | depends on |": the first cell after the leading bar, and the last before the trailing one.
            let module = try #require(cells[1].firstMatch(of: /^`([^`]+)`$/), "docs/architecture.md: a row's module cell is '\(cells[1])'").1
            rows.append(Row(module: String(module), dependsOn: cells[cells.count - 2]))
        }
        return rows
    }

    @Test("one row per target, and each row names exactly the target's dependencies, all in rows above")
    func tableMatchesPackage() throws {
        let targets = try Self.packageTargets()
        let rows = try Self.tableRows()
        let names = Set(targets.map(\.name))
        #expect(names.contains("PeggleGame") && names.contains("peggle") && names.contains("CBLAS"), "\(names)")
        #expect(rows.map(\.module).sorted() == targets.map(\.name).sorted(),
                "docs/architecture.md's module table lists \(rows.map(\.module)); Package.swift has \(targets.map(\.name))")
        var above = Set<String>()
        for row in rows {
            guard let target = targets.first(where: { $0.name == row.module }) else { continue }
            let words = Set(row.dependsOn.matches(of: /[A-Za-z][A-Za-z0-9_-]*/).map { String($0.0) })
            let named = words.intersection(names)
            #expect(named == target.targets,
                    "docs/architecture.md: \(row.module) depends on \(named.sorted()) in the table, \(target.targets.sorted()) in Package.swift")
            for p in target.products {
                #expect(words.contains(p.name) || words.contains(p.package),
                        "docs/architecture.md: \(row.module)'s row does not name \(p.name) (package \(p.package)), a dependency in Package.swift")
            }
            #expect(target.targets.isSubset(of: above),
                    "docs/architecture.md: \(row.module) depends on \(target.targets.subtracting(above).sorted()), not in a row above it")
            above.insert(row.module)
        }
    }

    @Test("every module imports only what it depends on directly")
    func importsFollowThePackage() throws {
        let targets = try Self.packageTargets()
        let names = Set(targets.map(\.name))
        var checked = 0
        for target in targets where target.name != "CBLAS" {
            let dir = Repository.url("Sources/\(target.name)")
            // Sources/peggle is grouped in folders by concern: every file below the target's folder.
            let files = try FileManager.default.subpathsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for m in text.matches(of: /(?m)^(?:@testable )?import (\w+)/) where names.contains(String(m.1)) {
                    checked += 1
                    // A module reached only through another is an edge the package does not show:
                    // declare it, or drop the import.
                    #expect(target.targets.contains(String(m.1)),
                            "Sources/\(target.name)/\(file) imports \(m.1), which \(target.name) does not depend on directly in Package.swift")
                }
            }
        }
        #expect(checked > 100, "only \(checked) imports of package modules found")
    }

    /// The package targets a target's own sources import (`import X` or `@testable import X` in
    /// any file below Sources/NAME).
    static func imports(of target: String, among names: Set<String>) throws -> Set<String> {
        try imports(inFolder: "Sources/\(target)", among: names)
    }

    @Test("no dead edge: every package target a module depends on is imported by one of its files")
    func everyDependencyIsImported() throws {
        let targets = try Self.packageTargets()
        let names = Set(targets.map(\.name))
        for target in targets where target.name != "CBLAS" {
            let unused = target.targets.subtracting(try Self.imports(of: target.name, among: names))
            #expect(unused.isEmpty,
                    "Package.swift: \(target.name) depends on \(unused.sorted()), which none of Sources/\(target.name)'s files imports")
        }
    }

    /// The package modules the Swift files below `folder` import.
    static func imports(inFolder folder: String, among names: Set<String>) throws -> Set<String> {
        let dir = Repository.url(folder)
        var found = Set<String>()
        for file in try FileManager.default.subpathsOfDirectory(atPath: dir.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            for m in text.matches(of: /(?m)^(?:@testable )?import (\w+)/) where names.contains(String(m.1)) {
                found.insert(String(m.1))
            }
        }
        return found
    }

    /// `start` and every package target it reaches through dependencies.
    static func closure(of start: [String], in targets: [Target]) -> Set<String> {
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        var seen = Set<String>(), stack = start
        while let t = stack.popLast() {
            guard seen.insert(t).inserted else { continue }
            stack += byName[t]?.targets ?? []
        }
        return seen
    }

    @Test("the product never reaches the lab: peggle and the native library do not depend on PeggleLab, even through another module")
    func theProductNeverReachesTheLab() throws {
        let targets = try Self.packageTargets() + Self.packageTargets(tests: true)
        #expect(targets.contains { $0.name == "PeggleLab" })
        for product in ["peggle", "PeggleNative"] {
            let reached = Self.closure(of: [product], in: targets)
            #expect(reached.count > 5 && !reached.contains("PeggleLab"),
                    "\(product) reaches PeggleLab through \(targets.filter { reached.contains($0.name) && $0.targets.contains("PeggleLab") }.map(\.name))")
        }
        // Only the bench and the tests depend on it.
        let users = Set(try Self.packageTargets().filter { $0.targets.contains("PeggleLab") }.map(\.name))
        #expect(users == ["peggle-bench"], "\(users.sorted())")
    }

    @Test("every test target imports only modules its dependencies reach")
    func testTargetsImportWhatTheyReach() throws {
        let library = try Self.packageTargets()
        let tests = try Self.packageTargets(tests: true)
        let all = library + tests
        let names = Set(all.map(\.name))
        #expect(tests.count > 15 && tests.contains { $0.name == "PeggleTestSupport" })
        for t in tests {
            // A module outside the closure compiles only when another target happened to build it
            // first: declare it (or a module that depends on it).
            let outside = try Self.imports(inFolder: t.folder, among: names).subtracting(Self.closure(of: [t.name], in: all))
            #expect(outside.isEmpty, "\(t.folder) imports \(outside.sorted()), which \(t.name)'s dependencies in Package.swift do not reach")
        }
    }
}
