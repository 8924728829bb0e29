import Foundation
import PeggleGame
import PeggleGenerator
import PeggleLevel
import PeggleTestSupport
import Testing

/// `peggle level generate` and `peggle level gallery`: corpora of generated levels, written whole
/// or not at all, and a page to look at them.
@Suite("peggle level generate, gallery")
struct LevelGenerateCommandTests {
    static func files(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    @Test("generate writes canonical, valid level files with unique names, one per seed")
    func generateWritesAFolder() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "generate", "--count", "12", "--seed", "40", "--distribution", "easy", "--out", "corpus"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("wrote 12 easy levels to corpus (seeds 40...51): "))
        let out = dir.appendingPathComponent("corpus")
        let names = try Self.files(out)
        #expect(names.count == 12)
        var levelNames = Set<String>()
        for (k, file) in names.enumerated() {
            let seed = UInt64(40 + k)
            let template = LevelGenerator.template(forSeed: seed)
            #expect(file == "easy-0000\(seed)-\(template.rawValue).json")
            let text = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
            // The file is the generator's level, written canonically.
            #expect(text == LevelCodec.encode(LevelGenerator.generate(seed: seed, distribution: .easy)))
            levelNames.insert(try LevelCodec.decode(Data(text.utf8)).name)
        }
        #expect(levelNames.count == 12)
        let v = try CLI.run(["level", "validate"] + names.map { "corpus/\($0)" }, cwd: dir)
        #expect(v.status == 0, "\(v.stdout)")

        // One template for every level; a folder that exists takes more files beside its own.
        let t = try CLI.run(["level", "generate", "--count", "3", "--seed", "40", "--template", "pockets", "--out", "corpus"], cwd: dir)
        #expect(t.status == 0, "\(t.stderr)")
        #expect(t.stdout == "wrote 3 hard levels to corpus (seeds 40...42): pockets 3; "
            + (try Self.modes(out, ["hard-000040-pockets.json", "hard-000041-pockets.json", "hard-000042-pockets.json"])) + "\n")
        #expect(try Self.files(out).count == 15)
    }

    /// "classic 3" or "classic 2, dodge 1": the modes of the files, as generate summarises them.
    static func modes(_ dir: URL, _ files: [String]) throws -> String {
        var count: [String: Int] = [:]
        for f in files { count[try LevelCodec.decode(Data(contentsOf: dir.appendingPathComponent(f))).mode.name, default: 0] += 1 }
        return ["classic", "beat_the_score", "dodge"].compactMap { m in count[m].map { "\(m) \($0)" } }.joined(separator: ", ")
    }

    @Test("generate refuses to replace a file or reuse a level name, and writes nothing then")
    func generateNeverReplaces() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["level", "generate", "--count", "3", "--seed", "5", "--out", "."], cwd: dir).status == 0)
        let before = try Self.files(dir)
        let clash = before[2]
        let original = try String(contentsOf: dir.appendingPathComponent(clash), encoding: .utf8)
        let r = try CLI.run(["level", "generate", "--count", "4", "--seed", "7", "--out", "."], cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "error: --out: . already has \(clash); nothing was written (choose another folder or seed)\n")
        #expect(try Self.files(dir) == before)
        #expect(try String(contentsOf: dir.appendingPathComponent(clash), encoding: .utf8) == original)

        // A level of the same name under another file name blocks the run too.
        try FileManager.default.moveItem(at: dir.appendingPathComponent(clash), to: dir.appendingPathComponent("renamed.json"))
        let n = try CLI.run(["level", "generate", "--count", "4", "--seed", "7", "--out", "."], cwd: dir)
        #expect(n.status == 2)
        let name = try LevelCodec.decode(Data(original.utf8)).name
        #expect(n.stderr == "error: --out: ./renamed.json already holds a level named '\(name)'; level names must be unique "
            + "in a folder, so nothing was written\n")
        #expect(try Self.files(dir).count == 3)
    }

    @Test("generate's bad input: a clear error naming the option and value, exit code 2, nothing written", arguments: [
        (["--count", "-3"], "error: --count: -3 is outside 1...100000\n"),
        (["--count", "0"], "error: --count: 0 is outside 1...100000\n"),
        (["--distribution", "medium"], "Error: The value 'medium' is invalid for '--distribution <distribution>'. Please provide one of 'easy' and 'hard'."),
        (["--template", "blob"], "Error: The value 'blob' is invalid for '--template <arcs|rows|rings|spiral|funnel|bricks|waves|pockets|ramps>'."),
        (["--seed", "-1"], "Error: The value '-1' is invalid for '--seed <seed>'"),
        (["--seed", "18446744073709551615"], "error: --seed: 18446744073709551615 + 2 levels passes the largest seed, 18446744073709551615\n"),
        (["--tier", "tough"], "Error: The value 'tough' is invalid for '--tier <easy|medium|hard|very-hard>'. Please provide one of 'easy', 'medium', 'hard' or 'very-hard'."),
        (["--tier", "hard", "--sigma50", "0.01-0.03"], "error: --tier and --sigma50: give one or the other\n"),
        (["--sigma50", "0.03"], "error: --sigma50: '0.03' is not LOW-HIGH in radians, e.g. 0.01-0.03\n"),
        (["--sigma50", "0.03-0.01"], "error: --sigma50: '0.03-0.01' must have 0.001 <= LOW < HIGH <= 1 (the rater's range)\n"),
        (["--sigma50", "0.0001-0.01"], "error: --sigma50: '0.0001-0.01' must have 0.001 <= LOW < HIGH <= 1 (the rater's range)\n"),
        (["--no-confirm"], "error: --no-confirm: applies with --tier or --sigma50 only\n"),
        (["--db", "x.sqlite"], "error: --db: applies with --tier or --sigma50 only\n"),
        (["--tier", "hard", "--no-confirm", "--db", "x.sqlite"], "error: --db: --no-confirm rates nothing, so it stores nothing\n"),
        (["--tier", "hard", "--max-candidates", "0"], "error: --max-candidates: 0 is outside 1...10000000\n"),
    ])
    func generateBadInput(extra: [String], message: String) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "generate", "--count", "2", "--seed", "1", "--out", "out"] + extra, cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
        #expect(try Self.files(dir).isEmpty)
    }

    /// --tier without confirming: the first levels from the seed on whose estimate is in the tier
    /// (the library's tests cover the confirming rating; a debug build's greedy games are slow).
    @Test("generate --tier --no-confirm writes the first levels the estimate puts in the tier")
    func generateAtATier() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "generate", "--tier", "very-hard", "--no-confirm", "--count", "2", "--seed", "0",
                             "--out", "vh", "--threads", "2"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let files = try Self.files(dir.appendingPathComponent("vh"))
        #expect(files.count == 2)
        let e = try CLI.run(["estimate", "--json"] + files.map { "vh/\($0)" }, cwd: dir)
        let rows = try #require(JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [[String: Any]])
        #expect(rows.map { $0["tier"] as? String } == ["very hard", "very hard"])
        #expect(r.stdout == "wrote 2 levels (tier very hard, by the estimate alone) to vh: 2 hard candidates (seeds 0...1), 2 passed the estimate; 1.0 candidates per level kept\n")

        // Too few candidates: what was found is said, and nothing is written.
        let few = try CLI.run(["level", "generate", "--tier", "hard", "--no-confirm", "--count", "2", "--seed", "0",
                               "--max-candidates", "1", "--out", "few"], cwd: dir)
        #expect(few.status == 2)
        #expect(few.stderr == "error: found 0 of 2 levels (tier hard, by the estimate alone) among 1 candidate (--max-candidates 1); nothing was written\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("few").path))
    }

    @Test("generate into a folder it cannot write or create: exit code 2, no staging folder left behind")
    func generateUnwritableFolder() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "x".write(to: dir.appendingPathComponent("plain"), atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--out", "plain"], "error: --out: plain is a file, not a folder\n"),
            (["--out", "plain/sub"], "error: --out: plain/sub: plain is a file, not a folder\n"),
            (["--out", "missing/sub"], "error: --out: missing/sub: the folder missing does not exist\n"),
            // /proc takes no new folders, even from root.
            (["--out", "/proc/peggle-levels"], "error: --out: /proc/peggle-levels: cannot create a folder in /proc (No such file or directory); nothing was written\n"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(["level", "generate", "--count", "2", "--seed", "1"] + args, cwd: dir)
            #expect(r.status == 2)
            #expect(r.stderr == message)
        }
        #expect(try Self.files(dir) == ["plain"])
    }

    @Test("gallery: one self-contained page with a thumbnail and caption per level, in name order")
    func gallery() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["level", "generate", "--count", "5", "--seed", "1", "--out", "c"], cwd: dir).status == 0)
        let r = try CLI.run(["level", "gallery", "c", Repository.url("Levels/spiral.json").path, "-o", "g.html", "--title", "Five & one"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "wrote g.html: 6 levels\n")
        let html = try String(contentsOf: dir.appendingPathComponent("g.html"), encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<h1>Five &amp; one</h1>"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == 6)
        // Each thumbnail is cropped to the board, with a clip path of its own.
        #expect(html.components(separatedBy: "viewBox=\"0 0 800 600\"").count - 1 == 6)
        #expect(Set((0..<6).map { html.contains("id=\"peggle-board-clip-g\($0)\"") }) == [true])
        // Nothing is fetched from elsewhere.
        #expect(!html.contains("http://") || html.components(separatedBy: "http://").dropFirst().allSatisfy { $0.hasPrefix("www.w3.org") })
        let files = try Self.files(dir.appendingPathComponent("c"))
        var last = html.startIndex
        for f in files {
            let name = try LevelCodec.decode(Data(contentsOf: dir.appendingPathComponent("c").appendingPathComponent(f))).name
            let at = try #require(html.range(of: "<div class=\"name\">\(name)</div>"))
            #expect(at.lowerBound > last)
            last = at.lowerBound
        }
        #expect(html.contains("<div class=\"name\">Spiral</div>"))
        #expect(html.contains("6 levels; pegs "))
    }

    @Test("gallery past --per-page: linked pages of at most that many levels, the whole gallery's summary on each; a shorter rerun removes its own stale pages only")
    func pagedGallery() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["level", "generate", "--count", "12", "--seed", "3", "--out", "c"], cwd: dir).status == 0)
        let r = try CLI.run(["level", "gallery", "c", "-o", "g.html", "--per-page", "5"], cwd: dir)
        #expect(r.stdout == "wrote g.html: 12 levels on 3 pages (g-2.html to g-3.html beside it)\n", "\(r.stderr)")
        func page(_ name: String) throws -> String { try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8) }
        #expect(try [page("g.html"), page("g-2.html"), page("g-3.html")].map { $0.components(separatedBy: "<svg ").count - 1 } == [5, 5, 2])
        for name in ["g.html", "g-2.html", "g-3.html"] {
            #expect(try page(name).contains("<p class=\"summary\">12 levels; pegs "))
        }
        #expect(try page("g-2.html").contains("<nav>Page 2 of 3: <a href=\"g.html\">previous</a> <a href=\"g.html\">1</a> <b>2</b> "
            + "<a href=\"g-3.html\">3</a> <a href=\"g-3.html\">next</a></nav>"))
        // Someone's own file past the new last page stays; this tool's stale pages go.
        #expect(try CLI.run(["level", "gallery", "c", "-o", "g.html", "--per-page", "2"], cwd: dir).status == 0)
        try "mine".write(to: dir.appendingPathComponent("g-7.html"), atomically: true, encoding: .utf8)
        let short = try CLI.run(["level", "gallery", "c", "-o", "g.html", "--per-page", "4"], cwd: dir)
        #expect(short.status == 0)
        #expect(try Self.files(dir) == ["c", "g-2.html", "g-3.html", "g-7.html", "g.html"])
        // One page (the default per page) has no navigation, as before.
        #expect(try CLI.run(["level", "gallery", "c", "-o", "one.html"], cwd: dir).stdout == "wrote one.html: 12 levels\n")
        #expect(try !page("one.html").contains("<nav>"))
        let bad = try CLI.run(["level", "gallery", "c", "-o", "g.html", "--per-page", "0"], cwd: dir)
        #expect(bad.status == 2 && bad.stderr == "error: --per-page: 0 is outside 1...100000\n")
    }

    @Test("gallery's bad input: an invalid level, an empty folder, a wrong output name; nothing written")
    func galleryBadInput() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("empty"), withIntermediateDirectories: false)
        try CLI.levelText(pegs: ["{\"kind\": \"orange\", \"x\": 100, \"y\": 200, \"radius\": -5}"])
            .write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["bad.json", "-o", "g.html"], "error: bad.json: pegs[0] (id 1): radius: -5 is outside 6...30\n"),
            (["empty", "-o", "g.html"], "error: empty: folder has no level files (*.json)\n"),
            (["missing.json", "-o", "g.html"], "error: missing.json: no such file\n"),
            ([Repository.url("Levels/spiral.json").path, "-o", "g.svg"], "error: -o: 'g.svg' should end in .html\n"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(["level", "gallery"] + args, cwd: dir)
            #expect(r.status == 2)
            #expect(r.stderr == message)
        }
        #expect(try Self.files(dir) == ["bad.json", "empty"])
    }
}
