import Foundation
import PeggleGame
import PeggleLevel
import PeggleTestSupport
import Testing

@Suite("peggle level")
struct LevelCommandTests {
    static let orange = "{\"kind\": \"orange\", \"x\": 100, \"y\": 200}"

    /// Bad level files: each gets one clear message naming the file, the place and the field,
    /// and exit code 2; commands that would write a file write nothing.
    static let badLevels: [(name: String, text: String, expected: [String])] = [
        ("not-json", "this is { not json", ["not valid JSON", "line 1"]),
        ("unknown-kind", CLI.levelText(pegs: ["{\"kind\": \"pink\", \"x\": 100, \"y\": 200}"]),
         ["pegs[0].kind", "unknown value \"pink\"", "orange"]),
        ("negative-radius", CLI.levelText(pegs: ["{\"kind\": \"orange\", \"x\": 100, \"y\": 200, \"radius\": -5}"]),
         ["pegs[0] (id 1)", "radius", "-5"]),
        ("nan", CLI.levelText(pegs: ["{\"kind\": \"orange\", \"x\": NaN, \"y\": 200}"]),
         ["pegs[0] (id 1)", "x: NaN is not a number"]),
        ("overlap", CLI.levelText(pegs: [orange, "{\"id\": 9, \"kind\": \"blue\", \"x\": 110, \"y\": 205}"]),
         ["pegs[1] (id 9)", "overlaps peg 1"]),
        ("off-board", CLI.levelText(pegs: ["{\"kind\": \"orange\", \"x\": 795, \"y\": 200}"]),
         ["pegs[0] (id 1)", "off the board", "807"]),
        ("unknown-field", CLI.levelText(pegs: ["{\"kind\": \"orange\", \"x\": 100, \"y\": 200, \"radus\": 9}"]),
         ["pegs[0].radus", "unknown field"]),
    ]

    @Test("validate and play refuse bad level files with exit code 2", arguments: badLevels.map(\.name))
    func badLevelFile(name: String) throws {
        let bad = Self.badLevels.first { $0.name == name }!
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("\(name).json")
        try bad.text.write(to: file, atomically: true, encoding: .utf8)
        for args in [["level", "validate", file.path], ["play", file.path, "--angles", "0"]] {
            let r = try CLI.run(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.contains(file.path), "\(r.stderr)")
            for piece in bad.expected { #expect(r.stderr.contains(piece), "\(piece) not in \(r.stderr)") }
        }
    }

    @Test("a level of 100,000 pegs is refused with one message about the count")
    func hugeLevel() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("huge.json")
        let pegs = (0..<100_000).map { "{\"kind\":\"orange\",\"x\":\($0 % 390 * 2 + 10),\"y\":\($0 / 390 * 2 + 60)}" }
        try CLI.levelText(pegs: pegs).write(to: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["level", "validate", file.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("100000 pegs"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test("validate accepts every bundled level")
    func bundledLevelsValid() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Repository.url("Levels").path)
            .filter { $0.hasSuffix(".json") }.sorted().map { "Levels/" + $0 }
        #expect(!files.isEmpty)
        let r = try CLI.run(["level", "validate"] + files)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").count == files.count)
    }

    @Test("new --mode gives that mode with the level format's defaults, or the --field values given",
          arguments: [
              (["--mode", "dodge"], GameMode.dodge(shots: 5), "dodge: 5 clean shots", "none"),
              ([], GameMode.classic(balls: 10), "classic, 10 balls", "none"),
              (["--mode", "beat_the_score", "--power", "spooky"], GameMode.beatTheScore(targetScore: 50_000, timeLimit: 120),
               "beat the score: 50000 in 120 s", "spooky"),
              (["--mode", "beat_the_score", "--field", "target_score=7", "--field", "time_limit=30.5"],
               GameMode.beatTheScore(targetScore: 7, timeLimit: 30.5), "beat the score: 7 in 30.5 s", "none"),
              (["--mode", "beat_the_score", "--field", "time_limit=3600"],
               GameMode.beatTheScore(targetScore: 50_000, timeLimit: 3600), "beat the score: 50000 in 3600 s", "none"),
              (["--mode", "classic", "--field", "balls=3", "--power", "kaboom"], GameMode.classic(balls: 3),
               "classic, 3 balls", "kaboom"),
              (["--mode", "dodge", "--field", "shots=99"], GameMode.dodge(shots: 99), "dodge: 99 clean shots", "none"),
          ])
    func newModes(args: [String], mode: GameMode, summary: String, power: String) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "new", "Fresh"] + args, cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "created fresh.json: 'Fresh', \(summary), power \(power)\n")
        let level = try LevelCodec.decode(try Data(contentsOf: dir.appendingPathComponent("fresh.json")))
        #expect(level.mode == mode)
        #expect(level.power.rawValue == power)
    }

    @Test("new --help lists every mode field from the table: its kind, name, range and default")
    func newHelpListsTheFields() throws {
        let r = try CLI.run(["level", "new", "--help"])
        #expect(r.status == 0)
        let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for field in ModeField.all {
            #expect(help.contains("\(field.name) \(field.rangeText) (\(field.help), default \(field.defaultValue.text))"), "\(help)")
        }
        #expect(help.contains("classic: balls") && help.contains("beat_the_score: target_score") && help.contains("dodge: shots"))
    }

    @Test("new refuses an unknown mode or power, and a mode field out of range, with exit code 2 and no file",
          arguments: [
              (["--mode", "siam"], "'siam'"), (["--power", "laser"], "'laser'"),
              (["--mode", "dodge", "--field", "shots=0"], "mode: shots: 0 is outside 1...99"),
              (["--field", "balls=100"], "mode: balls: 100 is outside 1...99"),
              (["--mode", "beat_the_score", "--field", "time_limit=0.5"], "mode: time_limit: 0.5 is outside 1...3600 seconds"),
              // A field of another kind is refused, not ignored; so are text, fractions and repeats.
              (["--mode", "classic", "--field", "balls=3", "--field", "shots=9"],
               "--field 'shots=9': classic has no field 'shots' (its fields: balls)"),
              (["--field", "balls"], "--field 'balls': expected NAME=VALUE (classic's fields: balls)"),
              (["--field", "balls=2.5"], "--field 'balls=2.5': '2.5' is not a whole number"),
              (["--mode", "beat_the_score", "--field", "time_limit=soon"], "--field 'time_limit=soon': 'soon' is not a number"),
              (["--field", "balls=3", "--field", "balls=4"], "--field balls is given twice"),
              (["--balls", "3"], "'--balls'"),
          ])
    func newRefuses(args: [String], message: String) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "new", "Fresh"] + args, cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test("new, then edits: accepted edits rewrite the file, refused ones leave it byte for byte")
    func newAndEdit() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        var r = try CLI.run(["level", "new", "Edit Me"], cwd: dir)
        #expect(r.status == 0)
        let file = dir.appendingPathComponent("edit-me.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        // Names are unique within a folder.
        r = try CLI.run(["level", "new", "edit me", "-o", "other.json"], cwd: dir)
        #expect(r.status == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("other.json").path))

        r = try CLI.run(["level", "edit", "add", "edit-me.json", "--peg", "orange", "--at", "400,300"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["level", "edit", "add", "edit-me.json", "--block", "rectangle", "--at", "200,300",
                         "--size", "80,20", "--rotation", "0.4", "--springiness", "0.5"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let before = try String(contentsOf: file, encoding: .utf8)
        #expect(before.contains("\"springiness\": 0.5"))

        let refused: [[String]] = [
            ["add", "edit-me.json", "--peg", "blue", "--at", "405,300"],  // overlaps peg 1
            ["move", "edit-me.json", "--id", "1", "--to", "795,300"],  // off the board
            ["move", "edit-me.json", "--id", "1", "--to", "400,40"],  // into the cannon's space
            ["resize", "edit-me.json", "--id", "1", "--radius", "31"],  // too large
            ["resize", "edit-me.json", "--id", "1", "--size", "20,20"],  // round peg has no size
            ["remove", "edit-me.json", "--id", "99"],  // no such object
            ["move", "edit-me.json", "--at", "10,10", "--to", "300,300"],  // nothing there
            ["add", "edit-me.json", "--peg", "blue", "--at", "400,590"],  // bucket lane
            ["kind", "edit-me.json", "--id", "1", "--to", "pink"],
        ]
        for args in refused {
            r = try CLI.run(["level", "edit"] + args, cwd: dir)
            #expect(r.status == 2, "\(args) should be refused")
            #expect(r.stderr.hasPrefix("error: "), "\(args): \(r.stderr)")
            #expect(try String(contentsOf: file, encoding: .utf8) == before, "\(args) changed the file")
        }
        // Rotating the block so it reaches the peg is refused; a small turn is accepted.
        r = try CLI.run(["level", "edit", "move", "edit-me.json", "--id", "2", "--to", "350,300"], cwd: dir)
        #expect(r.status == 2)
        r = try CLI.run(["level", "edit", "rotate", "edit-me.json", "--at", "200,300", "--by", "0.2"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try CLI.run(["level", "edit", "move", "edit-me.json", "--at", "400,300", "--to", "420,320"], cwd: dir)
        #expect(r.status == 0)
        let after = try String(contentsOf: file, encoding: .utf8)
        #expect(after.contains("\"x\": 420, \"y\": 320"))
        #expect(after.contains("\"rotation\": 0.6000000000000001"))  // 0.4 + 0.2 in doubles, written exactly
        r = try CLI.run(["level", "validate", "edit-me.json"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test("editing a read-only level saves a uniquely named copy and leaves the original")
    func readOnlyCopy() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try String(contentsOf: Repository.url("Levels/bench-grid.json"), encoding: .utf8)
        try original.write(to: dir.appendingPathComponent("bench-grid.json"), atomically: true, encoding: .utf8)
        for expected in ["bench-grid-copy.json", "bench-grid-copy-2.json"] {
            let r = try CLI.run(["level", "edit", "remove", "bench-grid.json", "--id", "5"], cwd: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("read-only"))
            let copy = try String(contentsOf: dir.appendingPathComponent(expected), encoding: .utf8)
            #expect(!copy.contains("\"read_only\""))
            #expect(!copy.contains("\"id\": 5,"))
        }
        #expect(try String(contentsOf: dir.appendingPathComponent("bench-grid.json"), encoding: .utf8) == original)
    }

    @Test("info reports counts by kind")
    func info() throws {
        let r = try CLI.run(["level", "info", "Levels/bench-grid.json", "--json"])
        #expect(r.status == 0)
        let obj = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let kinds = try #require(obj["kinds"] as? [String: Int])
        #expect(kinds["orange"] == 25)
        #expect(obj["pegs"] as? Int == 120)
    }
}
