import Foundation
import PeggleLevel
import PeggleTestSupport
import Testing

/// The mode kinds and the table of their fields (`ModeField.all`), as the level format reads,
/// writes and validates them.
@Suite("Game mode kinds")
struct GameModeKindTests {
    @Test func defaultsAreTheDocumentedOnes() {
        #expect(GameModeKind.classic.defaultMode == .classic(balls: 10))
        #expect(GameModeKind.beatTheScore.defaultMode == .beatTheScore(targetScore: 50_000, timeLimit: 120))
        #expect(GameModeKind.dodge.defaultMode == .dodge(shots: 5))
        #expect(GameModeKind.allCases.map(\.rawValue) == ["classic", "beat_the_score", "dodge"])
        for kind in GameModeKind.allCases {
            #expect(kind.defaultMode.kind == kind)
            #expect(kind.defaultMode.name == kind.rawValue)
        }
        #expect(Level(name: "New").mode == GameModeKind.classic.defaultMode)
    }

    /// The stored properties of `mode`'s fields struct (its case's payload), by name.
    static func payload(_ mode: GameMode) -> [(label: String?, value: Any)] {
        guard let value = Mirror(reflecting: mode).children.first?.value else { return [] }
        return Mirror(reflecting: value).children.map { ($0.label, $0.value) }
    }

    /// "target_score" -> "targetScore".
    static func camel(_ name: String) -> String {
        let parts = name.split(separator: "_")
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    @Test("the table has one row for each property of each kind's fields struct, in its order, of its type")
    func tableCoversEveryField() {
        // The format's first fields keep their names; a later field is a row after them.
        #expect(ModeField.all.map(\.name).filter(Self.firstFields.contains) == ["balls", "target_score", "time_limit", "shots"])
        #expect(Set(ModeField.all.map(\.name)).count == ModeField.all.count, "names are unique")
        for kind in GameModeKind.allCases {
            let payload = Self.payload(kind.defaultMode)
            #expect(payload.count == kind.fields.count, "\(kind)")
            for (field, slot) in zip(kind.fields, payload) {
                #expect(slot.label == Self.camel(field.name))
                #expect(field.isWhole == (slot.value is Int), "\(field.name)")
                #expect(field.isWhole ? !(slot.value is Double) : slot.value is Double, "\(field.name)")
                #expect(field.contains(field.defaultValue), "\(field.name)'s default is in its range")
                #expect(!field.label.isEmpty && !field.help.isEmpty)
            }
        }
    }

    @Test("each field's accessor reads and sets its own slot and no other, and nothing of another kind")
    func accessorsTouchTheirOwnSlot() {
        for field in ModeField.all {
            let before = field.kind.defaultMode
            #expect(field.value(in: before) == field.defaultValue)
            for end in Self.ends(field) {
                var mode = before
                field.set(&mode, end)
                #expect(field.value(in: mode) == end)
                for other in field.kind.fields where other.name != field.name {
                    #expect(other.value(in: mode) == other.value(in: before), "\(field.name) moved \(other.name)")
                }
                for kind in GameModeKind.allCases where kind != field.kind {
                    var foreign = kind.defaultMode
                    field.set(&foreign, end)
                    #expect(foreign == kind.defaultMode && field.value(in: foreign) == nil)
                }
            }
        }
    }

    /// The fields of the level format's first version: every file states them.
    static let firstFields: Set = ["balls", "target_score", "time_limit", "shots"]

    /// The two ends of a field's range as its values.
    static func ends(_ field: ModeField) -> [ModeFieldValue] {
        switch field.domain {
        case let .whole(r): [.whole(r.lowerBound), .whole(r.upperBound)]
        case let .real(r): [.real(r.lowerBound), .real(r.upperBound)]
        }
    }

    /// Just past the ends (a real field also a fraction past them).
    static func outside(_ field: ModeField) -> [ModeFieldValue] {
        switch field.domain {
        case let .whole(r): [.whole(r.lowerBound - 1), .whole(r.upperBound + 1)]
        case let .real(r): [.real(r.lowerBound - 0.5), .real(r.upperBound + 0.5), .real(.nan)]
        }
    }

    /// The mode object of `level`'s canonical text, with its keys in written order.
    func modeObject(_ level: Level) throws -> (keys: [String], text: String) {
        let line = try #require(LevelCodec.encode(level).split(separator: "\n").first { $0.contains("\"mode\"") })
        let text = String(line[line.firstIndex(of: "{")!...].dropLast(line.hasSuffix(",") ? 1 : 0))
        let keys = text.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        return (keys, text)
    }

    @Test("each kind's default mode round-trips through the level format, its fields in order",
          arguments: GameModeKind.allCases)
    func defaultRoundTrips(kind: GameModeKind) throws {
        let level = Level(name: "Modes", mode: kind.defaultMode, pegs: [Peg(id: 1, kind: .orange, center: .init(400, 300))])
        let back = try LevelCodec.decode(Data(LevelCodec.encode(level).utf8))
        #expect(back.mode == kind.defaultMode)
        #expect(back.validate().isEmpty)
        let (keys, text) = try modeObject(level)
        // Keys and string values alternate between the quotes: type, its value, then the fields.
        #expect(keys.first == "type" && keys.dropFirst().first == kind.rawValue, "\(text)")
        // Files written before a field was added keep their bytes: the first fields are always
        // written, a later one only away from its default (`omittedAtDefault`).
        #expect(Array(keys.dropFirst(2)) == kind.fields.filter { !$0.omittedAtDefault }.map(\.name), "\(text)")
        #expect(kind.fields.filter { Self.firstFields.contains($0.name) && $0.omittedAtDefault }.isEmpty,
                "the first fields are always written")
        #expect(kind.fields.filter { !Self.firstFields.contains($0.name) && !$0.omittedAtDefault }.isEmpty,
                "a later field is left out at its default, so files written before it keep their bytes")
    }

    @Test("every field at each end of its range is valid, written as its number, and read back",
          arguments: ModeField.all.map(\.name))
    func fieldEndsRoundTrip(name: String) throws {
        let field = try #require(ModeField.all.first { $0.name == name })
        for end in Self.ends(field) {
            let mode = ModeField.mode(field.kind, [name: end])
            let level = makeLevel(mode: mode, pegs: [peg(1, .orange, 400, 300)])
            #expect(level.validate().isEmpty, "\(mode)")
            let (_, text) = try modeObject(level)
            let omitted = field.omittedAtDefault && end == field.defaultValue
            #expect(text.contains("\"\(name)\": \(end.text)") == !omitted, "\(text)")
            #expect(try LevelCodec.decode(Data(LevelCodec.encode(level).utf8)).mode == mode)
        }
        for bad in Self.outside(field) {
            let issues = makeLevel(mode: ModeField.mode(field.kind, [name: bad]), pegs: [peg(1, .orange, 400, 300)]).validate()
            #expect(issues.map(\.description) == ["mode: \(name): \(bad.text) is outside \(field.rangeText)"
                + (field.unit.map { " " + $0 } ?? "")])
        }
    }

    @Test("a mode object with only its type takes the defaults; beat the score must give its target",
          arguments: GameModeKind.allCases)
    func missingFieldsTakeDefaults(kind: GameModeKind) throws {
        let target = kind == .beatTheScore ? #", "target_score": 50000"# : ""
        let level = try decodeText(#"{"format": 1, "name": "D", "mode": {"type": "\#(kind.rawValue)"\#(target)}, "pegs": []}"#)
        #expect(level.mode == kind.defaultMode)
        #expect(kind.fields.filter(\.requiredInFile).map(\.name) == (kind == .beatTheScore ? ["target_score"] : []))
        if kind == .beatTheScore {
            let e = try #require(formatError(#"{"format": 1, "name": "D", "mode": {"type": "beat_the_score"}, "pegs": []}"#))
            #expect(e.description == "mode.target_score: required field is missing")
        }
    }

    @Test func rangesAreWhatValidationEnforces() {
        func issues(_ mode: GameMode) -> [String] {
            makeLevel(mode: mode, pegs: [peg(1, .orange, 400, 300)]).validate().map(\.description)
        }
        #expect(ModeField.all.filter { Self.firstFields.contains($0.name) }.map(\.rangeText)
            == ["1...99", "1...100000000", "1...3600", "1...99"])
        #expect(issues(.classic(balls: 100)) == ["mode: balls: 100 is outside 1...99"])
        #expect(issues(.dodge(shots: 0)) == ["mode: shots: 0 is outside 1...99"])
        #expect(issues(.beatTheScore(targetScore: 0, timeLimit: 3600.5))
            == ["mode: target_score: 0 is outside 1...100000000", "mode: time_limit: 3600.5 is outside 1...3600 seconds"])
        #expect(issues(.beatTheScore(targetScore: 1, timeLimit: .nan)) == ["mode: time_limit: \"NaN\" is outside 1...3600 seconds"])
        for kind in GameModeKind.allCases { #expect(issues(kind.defaultMode).isEmpty) }
    }

    @Test("numbers become a field's values only in its domain: whole fields refuse fractions and text")
    func valuesOfTheDomain() throws {
        let balls = try #require(GameModeKind.classic.field("balls")), limit = try #require(GameModeKind.beatTheScore.field("time_limit"))
        #expect(balls.value(7) == .whole(7) && balls.value(2.5) == nil && balls.value(1e30) == nil)
        #expect(limit.value(30.5) == .real(30.5))
        #expect(balls.value(parsing: "7") == .whole(7) && balls.value(parsing: "7.5") == nil && balls.value(parsing: "x") == nil)
        #expect(limit.value(parsing: "30.5") == .real(30.5) && limit.value(parsing: "inf") == nil && limit.value(parsing: "nan") == nil)
        #expect(!balls.contains(.real(7)), "a real value is not a whole field's")
        #expect(GameModeKind.classic.field("shots") == nil)
        // Values of other kinds' fields are ignored by `mode` (callers refuse them first).
        #expect(ModeField.mode(.dodge, ["balls": .whole(3), "shots": .whole(7)]) == .dodge(shots: 7))
        #expect(ModeField.mode(.dodge, [:], base: .dodge(shots: 9)) == .dodge(shots: 9))
        #expect(ModeField.mode(.classic, [:], base: .dodge(shots: 9)) == .classic(balls: 10))
    }

    /// The level schema's `mode` property as the table gives it, in the file's layout: each
    /// kind's object, its required fields, and each field's type, range and default (a required
    /// field has none: a file states it).
    static func schemaModeLines() -> [String] {
        func quoted(_ s: String) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        var lines = ["    \"mode\": {", "      \"oneOf\": ["]
        for kind in GameModeKind.allCases {
            let required = (["type"] + kind.fields.filter(\.requiredInFile).map(\.name)).map(quoted).joined(separator: ", ")
            lines += ["        {", "          \"type\": \"object\",", "          \"description\": \(quoted(kind.help)),",
                      "          \"required\": [\(required)],", "          \"additionalProperties\": false,", "          \"properties\": {"]
            let properties = ["\"type\": {\"const\": \(quoted(kind.rawValue))}"] + kind.fields.map { f in
                var parts = ["\"type\": \(quoted(f.isWhole ? "integer" : "number"))", "\"minimum\": \(LevelCodec.number(f.bounds.min))",
                             "\"maximum\": \(LevelCodec.number(f.bounds.max))"]
                if !f.requiredInFile { parts.append("\"default\": \(f.defaultValue.text)") }
                return "\(quoted(f.name)): {\(parts.joined(separator: ", "))}"
            }
            lines += properties.enumerated().map { "            " + $1 + ($0 < properties.count - 1 ? "," : "") }
            lines += ["          }", kind == GameModeKind.allCases.last ? "        }" : "        },"]
        }
        return lines + ["      ]", "    },"]
    }

    /// The schema restates the table for editors and other languages. Its `mode` property is
    /// generated from the table: a new field fails here until the file is written again with
    /// `PEGGLE_WRITE_SCHEMA=1 swift test --filter GameModeKindTests` (no hand edit); the rest of
    /// the file is hand-written.
    @Test("the level schema's mode property is the table's: fields, types, ranges, defaults, required")
    func schemaMatchesTheTable() throws {
        let url = Repository.url("Levels/schema/level.schema.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "    \"mode\": {"))
        let end = try #require(lines[start...].firstIndex(of: "    },"))
        let expected = Self.schemaModeLines()
        if ProcessInfo.processInfo.environment["PEGGLE_WRITE_SCHEMA"] == "1", Array(lines[start...end]) != expected {
            lines.replaceSubrange(start...end, with: expected)
            try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let written = Array(lines[start...end])
        // The first line that differs, not the two blocks in full.
        let first = (0..<min(written.count, expected.count)).first { written[$0] != expected[$0] } ?? min(written.count, expected.count)
        let same = written == expected
        #expect(same, """
            Levels/schema/level.schema.json line \(start + first + 1) is not the table's \
            (\(first < expected.count ? expected[first] : "the mode property ends here")): \
            run PEGGLE_WRITE_SCHEMA=1 swift test --filter GameModeKindTests
            """)
        // The generated text is the JSON it reads as.
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let mode = try #require((schema["properties"] as? [String: Any])?["mode"] as? [String: Any])
        let variants = try #require(mode["oneOf"] as? [[String: Any]])
        #expect(variants.map { ($0["properties"] as? [String: [String: Any]])?["type"]?["const"] as? String }
            == GameModeKind.allCases.map(\.rawValue))
        let shots = try #require((variants.last?["properties"] as? [String: [String: Any]])?["shots"])
        #expect(shots["type"] as? String == "integer" && (shots["maximum"] as? NSNumber)?.intValue == 99)
    }
}
