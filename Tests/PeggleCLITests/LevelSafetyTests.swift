import Foundation
import PeggleTestSupport
import Testing

/// The designer's commands never lose a level or write one validation refuses, and their
/// arguments are read as given (defects found by hostile testing, issue 13).
@Suite("peggle level: safe writes")
struct LevelSafetyTests {
    static let orange = "{\"kind\": \"orange\", \"x\": 100, \"y\": 200}"

    /// A fresh folder holding `mine.json` (a valid level "Mine") and a copy of the bundled,
    /// read-only `spiral.json`.
    static func folder() throws -> URL {
        let dir = try CLI.tempDir()
        try CLI.levelText(name: "Mine", pegs: [orange]).write(to: dir.appendingPathComponent("mine.json"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: Repository.url("Levels/spiral.json"),
                                         to: dir.appendingPathComponent("spiral.json"))
        return dir
    }

    static func text(_ dir: URL, _ name: String) throws -> String {
        try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    }

    static func files(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    @Test("edit -o refuses to replace a read-only level, even with --replace")
    func editOutputRefusesAReadOnlyLevel() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spiral = try Self.text(dir, "spiral.json")
        for extra in [[], ["--replace"]] {
            let r = try CLI.run(["level", "edit", "add", "mine.json", "--peg", "orange", "--at", "400,300", "-o", "spiral.json"] + extra, cwd: dir)
            #expect(r.status == 2)
            #expect(r.stderr == "error: -o: spiral.json holds the read-only level 'Spiral'; it cannot be replaced (choose another -o file)\n")
            #expect(try Self.text(dir, "spiral.json") == spiral)
        }
        // -o naming the read-only file itself is an edit of it: the edit goes to a copy.
        let r = try CLI.run(["level", "edit", "remove", "spiral.json", "--id", "3", "-o", "./spiral.json"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("in spiral-copy.json (spiral.json is read-only; saved the edit as a copy)\n"))
        #expect(try Self.text(dir, "spiral.json") == spiral)
    }

    @Test("edit -o replaces another level only when asked, and never a write-protected file")
    func editOutputAsksBeforeReplacingAnotherLevel() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try CLI.levelText(name: "Other", pegs: [Self.orange]).write(to: dir.appendingPathComponent("other.json"), atomically: true, encoding: .utf8)
        let other = try Self.text(dir, "other.json")
        let add = ["level", "edit", "add", "mine.json", "--peg", "blue", "--at", "400,300", "-o", "other.json"]
        var r = try CLI.run(add, cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "error: -o: other.json holds another level, 'Other'; add --replace to replace it, or choose another -o file\n")
        #expect(try Self.text(dir, "other.json") == other)

        // A file that is not a level is not replaced either, unless asked.
        try "notes".write(to: dir.appendingPathComponent("notes.json"), atomically: true, encoding: .utf8)
        r = try CLI.run(Array(add.dropLast()) + ["notes.json"], cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "error: -o: notes.json exists and is not a level file; add --replace to replace it\n")

        r = try CLI.run(add + ["--replace"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.text(dir, "other.json").contains("\"name\": \"Mine 2\""))
        // The same level again (its name unchanged): replaced without asking.
        r = try CLI.run(["level", "edit", "add", "mine.json", "--peg", "blue", "--at", "300,300", "-o", "other.json"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")

        // No write permission: refused whoever runs it (root too), with or without --replace.
        let locked = dir.appendingPathComponent("locked.json")
        try CLI.levelText(name: "Mine 3", pegs: [Self.orange]).write(to: locked, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: locked.path)
        r = try CLI.run(["level", "edit", "add", "mine.json", "--peg", "blue", "--at", "300,300", "-o", "locked.json", "--replace"], cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "error: -o: locked.json is read-only (no write permission); it was left as it was\n")
        r = try CLI.run(["level", "edit", "add", "locked.json", "--peg", "blue", "--at", "300,300"], cwd: dir)
        #expect(r.stderr == "error: locked.json: the file is read-only (no write permission); write the edit elsewhere with -o\n")
        #expect(try String(contentsOf: locked, encoding: .utf8) == CLI.levelText(name: "Mine 3", pegs: [Self.orange]))
    }

    @Test("the copy of a read-only level with a long name keeps within 80 characters and validates")
    func copyOfALongName() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let name = String(repeating: "Long ", count: 15) + "Name"  // 79 characters
        #expect(name.count == 79)
        try CLI.levelText(name: name, pegs: [Self.orange], extra: ", \"read_only\": true")
            .write(to: dir.appendingPathComponent("long.json"), atomically: true, encoding: .utf8)
        // The name is cut (at 73 and 71 characters) to leave room for " (copy)" and " (copy) 2".
        for (file, copyName) in [(String(repeating: "long-", count: 14) + "lon-copy.json",
                                  String(repeating: "Long ", count: 14) + "Lon (copy)"),
                                 (String(repeating: "long-", count: 14) + "l-copy-2.json",
                                  String(repeating: "Long ", count: 14) + "L (copy) 2")] {
            let r = try CLI.run(["level", "edit", "move", "long.json", "--id", "1", "--to", "120,200"], cwd: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(copyName.unicodeScalars.count == 80)
            #expect(try Self.text(dir, file).contains("\"name\": \"\(copyName)\""))
            #expect(try CLI.run(["level", "validate", file], cwd: dir).status == 0)
        }
    }

    @Test("a copy never lands on an existing file, whatever its name makes")
    func copyPicksAFreeFile() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try "not mine".write(to: dir.appendingPathComponent("spiral-copy.json"), atomically: true, encoding: .utf8)
        let r = try CLI.run(["level", "edit", "remove", "spiral.json", "--id", "3"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("in spiral-copy-2.json"))
        #expect(try Self.text(dir, "spiral-copy.json") == "not mine")
    }

    @Test("names without ASCII letters make distinct files")
    func namesWithoutASCIILetters() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, file) in [("🎯", "level.json"), ("🎲", "level-2.json"), ("日本 2", "日本-2.json"), ("Ünïcode Ok", "ünïcode-ok.json")] {
            let r = try CLI.run(["level", "new", name], cwd: dir)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(r.stdout.hasPrefix("created \(file): '\(name)'"), "\(r.stdout)")
        }
        #expect(try Self.files(dir) == ["level-2.json", "level.json", "ünïcode-ok.json", "日本-2.json"].sorted())
    }

    @Test("a level file must end in .json, so the unique-name check sees it")
    func outputsAreJSONFiles() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        var r = try CLI.run(["level", "new", "Mine", "-o", "mine.lvl"], cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "error: -o: 'mine.lvl' does not end in .json; level files are .json files\n")
        r = try CLI.run(["level", "edit", "add", "mine.json", "--peg", "blue", "--at", "400,300", "-o", "elsewhere"], cwd: dir)
        #expect(r.stderr == "error: -o: 'elsewhere' does not end in .json; level files are .json files\n")
        #expect(try Self.files(dir) == ["mine.json", "spiral.json"])
    }

    @Test("an output path that is a folder is named as one")
    func outputFolder() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for sub in ["box.json", "pics.svg"] {
            try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: false)
        }
        for (args, message) in [
            (["level", "edit", "add", "mine.json", "--peg", "blue", "--at", "400,300", "-o", "box.json"], "box.json: is a folder; give a file name inside it"),
            (["level", "new", "Boxed", "-o", "box.json"], "box.json: is a folder; give a file name inside it"),
            (["render", "mine.json", "-o", "pics.svg"], "pics.svg: is a folder; give a file name inside it"),
        ] {
            let r = try CLI.run(args, cwd: dir)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr == "error: \(message)\n", "\(args)")
        }
    }

    @Test("negative coordinates are read as values, and options an edit would ignore are refused")
    func argumentsAreReadAsGiven() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Self.text(dir, "mine.json")
        for (args, message) in [
            (["--peg", "blue", "--at", "-100,300"], "mine.json: refused: peg 2: x -100 is outside 0...800"),
            (["--peg", "blue", "--at", "400,300", "--radius", "10", "--size", "10,10"], "give --radius (a round peg) or --size (a brick), not both"),
            (["--peg", "blue", "--at", "400,300", "--rotation", "0.5"], "--rotation applies to bricks (--size W,H), not to round pegs"),
            (["--peg", "blue", "--at", "400,300", "--springiness", "0.5"], "--springiness applies to blocks, not to pegs"),
            (["--block", "rectangle", "--at", "400,300", "--size", "40,20", "--radius", "5"], "--radius applies to round pegs; a block takes --size W,H"),
        ] {
            let r = try CLI.run(["level", "edit", "add", "mine.json"] + args, cwd: dir)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr == "error: \(message)\n", "\(args)")
        }
        #expect(try Self.text(dir, "mine.json") == before)
        // Negative numbers everywhere a number or a point is taken.
        var r = try CLI.run(["level", "edit", "add", "mine.json", "--block", "rectangle", "--at", "400,300", "--size", "40,20",
                             "--rotation", "-0.25"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["level", "edit", "rotate", "mine.json", "--at", "400,300", "--by", "-0.25"], cwd: dir)
        #expect(r.stdout == "rotated block 2 to -0.5 rad in mine.json\n", "\(r.stderr)")
        r = try CLI.run(["level", "edit", "move", "mine.json", "--id", "2", "--to", "-5,300"], cwd: dir)
        #expect(r.stderr.hasPrefix("error: mine.json: refused: block 2"), "\(r.stderr)")
    }

    @Test("an empty level file name says so")
    func emptyFileName() throws {
        for args in [["level", "info", ""], ["play", "", "--angles", "0"], ["level", "edit", "remove", "", "--id", "1"]] {
            let r = try CLI.run(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr == "error: the level file name is empty\n", "\(args)")
        }
    }

    @Test("level info refuses text with escape sequences instead of printing them to the terminal")
    func infoDoesNotPrintEscapes() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("esc.json")
        try CLI.levelText(pegs: [Self.orange], extra: ", \"description\": \"\\u001b[2J\\u001b[31mred\"")
            .write(to: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["level", "info", file.path])
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "error: \(file.path): description: must not contain control characters other than line breaks and tabs\n")
        #expect(!r.stderr.contains("\u{1B}"))
    }
}
