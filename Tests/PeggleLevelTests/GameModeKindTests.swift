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

    /// The associated values of `mode`'s case, by label where the case has several (a single
    /// value comes unlabelled).
    static func payload(_ mode: GameMode) -> [(label: String?, value: Any)] {
        guard let value = Mirror(reflecting: mode).children.first?.value else { return [] }
        let inner = Mirror(reflecting: value)
        return inner.displayStyle == .tuple ? inner.children.map { ($0.label, $0.value) } : [(nil, value)]
    }

    /// "target_score" -> "targetScore".
    static func camel(_ name: String) -> String {
        let parts = name.split(separator: "_")
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    @Test("the table has one row for each associated value of each kind's case, in its order, of its type")
    func tableCoversEveryField() {
        #expect(ModeField.all.map(\.name) == ["balls", "target_score", "time_limit", "shots"])
        #expect(Set(ModeField.all.map(\.name)).count == ModeField.all.count, "names are unique")
        for kind in GameModeKind.allCases {
            let payload = Self.payload(kind.defaultMode)
            #expect(payload.count == kind.fields.count, "\(kind)")
            for (field, slot) in zip(kind.fields, payload) {
                if let label = slot.label { #expect(label == Self.camel(field.name)) }
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
        let first: Set = ["balls", "target_score", "time_limit", "shots"]
        #expect(kind.fields.filter { first.contains($0.name) && $0.omittedAtDefault }.isEmpty, "the first fields are always written")
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
        #expect(ModeField.all.map(\.rangeText) == ["1...99", "1...100000000", "1...3600", "1...99"])
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

    /// The JSON Schema restates the table for editors and other languages; this keeps it true.
    @Test("the level schema's mode objects are the table's: fields, types, ranges, defaults, required")
    func schemaMatchesTheTable() throws {
        let schema = try #require(JSONSerialization.jsonObject(with: Repository.data("Levels/schema/level.schema.json")) as? [String: Any])
        let mode = try #require((schema["properties"] as? [String: Any])?["mode"] as? [String: Any])
        let variants = try #require(mode["oneOf"] as? [[String: Any]])
        #expect(variants.count == GameModeKind.allCases.count)
        for (kind, variant) in zip(GameModeKind.allCases, variants) {
            let properties = try #require(variant["properties"] as? [String: [String: Any]])
            #expect(properties["type"]?["const"] as? String == kind.rawValue)
            #expect(Set(properties.keys) == Set(["type"] + kind.fields.map(\.name)), "\(kind)")
            #expect(Set(variant["required"] as? [String] ?? []) == Set(["type"] + kind.fields.filter(\.requiredInFile).map(\.name)))
            for field in kind.fields {
                let p = try #require(properties[field.name])
                #expect(p["type"] as? String == (field.isWhole ? "integer" : "number"), "\(field.name)")
                #expect((p["minimum"] as? NSNumber)?.doubleValue == field.bounds.min, "\(field.name)")
                #expect((p["maximum"] as? NSNumber)?.doubleValue == field.bounds.max, "\(field.name)")
                // A required field has no default in a file; the others state theirs.
                #expect((p["default"] as? NSNumber)?.doubleValue == (field.requiredInFile ? nil : field.defaultValue.number), "\(field.name)")
            }
        }
    }
}
