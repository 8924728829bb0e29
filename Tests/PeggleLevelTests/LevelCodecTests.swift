import Foundation
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import PeggleUtilities
import Testing

/// Reading and writing the level JSON format: strict decoding whose errors say where they are,
/// and canonical encoding.
@Suite("Level codec")
struct LevelCodecTests {
    static let sampler = """
        {
          "format": 1,
          "name": "Sampler",
          "author": "Tester",
          "description": "Every feature of the format",
          "read_only": true,
          "mode": {"type": "beat_the_score", "target_score": 5000, "time_limit": 90.5},
          "power": "multiball",
          "purple_roams": false,
          "pegs": [
            {"id": 1, "kind": "blue", "x": 100, "y": 200, "radius": 12},
            {"id": 2, "kind": "orange", "x": 150.5, "y": 200},
            {"kind": "purple", "x": 300, "y": 250, "shape": "brick", "width": 30, "height": 10, "rotation": 0.25},
            {"id": 7, "kind": "zombie", "x": 350, "y": 300, "shape": "circle", "radius": 8}
          ],
          "blocks": [
            {"id": 9, "shape": "triangle", "x": 500, "y": 400, "width": 60, "height": 40, "rotation": -0.5, "springiness": 0.75},
            {"shape": "rectangle", "x": 600, "y": 450, "width": 80, "height": 20}
          ]
        }
        """

    @Test func decodesAGoodFile() throws {
        let level = try decodeText(Self.sampler)
        var expected = Level(
            name: "Sampler", mode: .beatTheScore(targetScore: 5000, timeLimit: 90.5), power: .multiball,
            pegs: [
                peg(1, .blue, 100, 200),
                peg(2, .orange, 150.5, 200),
                // No id in the file: the next free ids in file order (max id is 9).
                brick(10, .purple, 300, 250, w: 30, h: 10, rot: 0.25),
                peg(7, .zombie, 350, 300, r: 8),
            ],
            blocks: [
                Block(id: 9, shape: .triangle, center: Vec2(500, 400), width: 60, height: 40, rotation: -0.5,
                      springiness: 0.75),
                Block(id: 11, shape: .rectangle, center: Vec2(600, 450), width: 80, height: 20),
            ])
        expected.author = "Tester"
        expected.description = "Every feature of the format"
        expected.readOnly = true
        expected.purpleRoams = false
        #expect(level == expected)
        #expect(level.validate().isEmpty)
    }

    @Test func defaultsForOptionalFields() throws {
        let classic = try decodeText("""
            {"format": 1, "name": "D", "mode": {"type": "classic"}, "pegs": [{"kind": "orange", "x": 100, "y": 300}]}
            """)
        #expect(classic.mode == .classic(balls: 10))
        #expect(classic.power == Power.none)
        #expect(classic.blocks.isEmpty)
        #expect(classic.readOnly == false)
        #expect(classic.purpleRoams == true)
        #expect(classic.author == nil && classic.description == nil)
        #expect(classic.pegs == [peg(1, .orange, 100, 300)])

        let dodge = try decodeText(#"{"format": 1, "name": "D", "mode": {"type": "dodge"}, "pegs": []}"#)
        #expect(dodge.mode == .dodge(shots: 5))
        let beat = try decodeText(#"{"format": 1, "name": "D", "mode": {"type": "beat_the_score", "target_score": 7}, "pegs": []}"#)
        #expect(beat.mode == .beatTheScore(targetScore: 7, timeLimit: 120))
    }

    // MARK: Errors name the place

    /// A minimal file with `pegs` spliced in.
    static func file(pegs: String, extra: String = "", mode: String = #"{"type": "classic", "balls": 3}"#) -> String {
        """
        {
          "format": 1,
          "name": "E",\(extra)
          "mode": \(mode),
          "pegs": [\(pegs)]
        }
        """
    }

    @Test func unknownPegKindNamesPathAndAllowedValues() throws {
        let text = Self.file(pegs: """
            {"kind": "blue", "x": 100, "y": 100}, {"kind": "orange", "x": 200, "y": 100}, {"kind": "pink", "x": 300, "y": 100}
            """)
        let e = try #require(formatError(text))
        #expect(e.path == "pegs[2].kind")
        #expect(e.message.contains("\"pink\""))
        for kind in PegKind.allCases { #expect(e.message.contains(kind.rawValue), "allowed value \(kind) not listed") }
        #expect(e.description.hasPrefix("pegs[2].kind: "))
    }

    @Test func unknownPowerAndModeTypeNamePathAndAllowedValues() throws {
        let power = try #require(formatError(Self.file(pegs: "", extra: #" "power": "laser","#)))
        #expect(power.path == "power")
        for p in Power.allCases { #expect(power.message.contains(p.rawValue)) }

        let mode = try #require(formatError(Self.file(pegs: "", mode: #"{"type": "siam"}"#)))
        #expect(mode.path == "mode.type")
        for name in ["classic", "beat_the_score", "dodge"] { #expect(mode.message.contains(name)) }
    }

    @Test func unknownFieldIsAnError() throws {
        let top = try #require(formatError(Self.file(pegs: "", extra: #" "colour": "red","#)))
        #expect(top.path == "colour")
        #expect(top.message.contains("unknown field"))

        let inPeg = try #require(formatError(Self.file(pegs: #"{"kind": "blue", "x": 1, "y": 2}, {"kind": "blue", "x": 1, "y": 2, "radus": 5}"#)))
        #expect(inPeg.path == "pegs[1].radus")
        #expect(inPeg.message.contains("unknown field"))
        #expect(inPeg.message.contains("radius"), "the message should list the fields that are allowed")

        // A brick's fields on a round peg are unknown there.
        let brickField = try #require(formatError(Self.file(pegs: #"{"kind": "blue", "x": 1, "y": 2, "width": 5}"#)))
        #expect(brickField.path == "pegs[0].width")

        let inMode = try #require(formatError(Self.file(pegs: "", mode: #"{"type": "dodge", "shots": 3, "balls": 2}"#)))
        #expect(inMode.path == "mode.balls")

        let inBlock = try #require(formatError("""
            {"format": 1, "name": "E", "mode": {"type": "classic"}, "pegs": [],
             "blocks": [{"shape": "rectangle", "x": 1, "y": 2, "width": 10, "height": 10, "bounce": 1}]}
            """))
        #expect(inBlock.path == "blocks[0].bounce")
    }

    @Test func missingRequiredFieldIsAnError() throws {
        let noName = try #require(formatError(#"{"format": 1, "mode": {"type": "classic"}, "pegs": []}"#))
        #expect(noName.path == "name")
        #expect(noName.message.contains("missing"))

        let noY = try #require(formatError(Self.file(pegs: #"{"kind": "blue", "x": 1, "y": 2}, {"kind": "blue", "x": 1}"#)))
        #expect(noY.path == "pegs[1].y")
        #expect(noY.message.contains("missing"))

        let noKind = try #require(formatError(Self.file(pegs: #"{"x": 1, "y": 2}"#)))
        #expect(noKind.path == "pegs[0].kind")

        let noBrickWidth = try #require(formatError(Self.file(pegs: #"{"kind": "blue", "x": 1, "y": 2, "shape": "brick", "height": 4}"#)))
        #expect(noBrickWidth.path == "pegs[0].width")

        let noPegs = try #require(formatError(#"{"format": 1, "name": "E", "mode": {"type": "classic"}}"#))
        #expect(noPegs.path == "pegs")

        let noTarget = try #require(formatError(Self.file(pegs: "", mode: #"{"type": "beat_the_score"}"#)))
        #expect(noTarget.path == "mode.target_score")

        let noBlockShape = try #require(formatError("""
            {"format": 1, "name": "E", "mode": {"type": "classic"}, "pegs": [], "blocks": [{"x": 1, "y": 2, "width": 10, "height": 10}]}
            """))
        #expect(noBlockShape.path == "blocks[0].shape")

        let noFormat = try #require(formatError(#"{"name": "E", "mode": {"type": "classic"}, "pegs": []}"#))
        #expect(noFormat.path == "format")
    }

    @Test func wrongTypeIsAnError() throws {
        let xString = try #require(formatError(Self.file(pegs: #"{"kind": "blue", "x": "ten", "y": 2}"#)))
        #expect(xString.path == "pegs[0].x")
        #expect(xString.message.contains("number"))

        let nameNumber = try #require(formatError(#"{"format": 1, "name": 5, "mode": {"type": "classic"}, "pegs": []}"#))
        #expect(nameNumber.path == "name")
        #expect(nameNumber.message.contains("string"))

        let ballsString = try #require(formatError(Self.file(pegs: "", mode: #"{"type": "classic", "balls": "3"}"#)))
        #expect(ballsString.path == "mode.balls")
        #expect(ballsString.message.contains("whole number"))

        let readOnly = try #require(formatError(Self.file(pegs: "", extra: #" "read_only": "yes","#)))
        #expect(readOnly.path == "read_only")
        #expect(readOnly.message.contains("true or false"))

        let pegsObject = try #require(formatError(#"{"format": 1, "name": "E", "mode": {"type": "classic"}, "pegs": {}}"#))
        #expect(pegsObject.path == "pegs")

        let nullX = try #require(formatError(Self.file(pegs: #"{"kind": "blue", "x": null, "y": 2}"#)))
        #expect(nullX.path == "pegs[0].x")
    }

    /// A fraction (or a number too big for an Int) where a whole number belongs is valid JSON
    /// of the wrong type: the error must name the field, like every other type error.
    @Test func fractionInAWholeNumberFieldNamesTheField() throws {
        let cases: [(String, String)] = [
            (Self.file(pegs: "", mode: #"{"type": "classic", "balls": 2.5}"#), "mode.balls"),
            (Self.file(pegs: #"{"id": 1.5, "kind": "blue", "x": 1, "y": 2}"#), "pegs[0].id"),
            (#"{"format": 1.5, "name": "E", "mode": {"type": "classic"}, "pegs": []}"#, "format"),
            (Self.file(pegs: "", mode: #"{"type": "beat_the_score", "target_score": 1e30}"#), "mode.target_score"),
        ]
        for (text, path) in cases {
            let e = try #require(formatError(text))
            #expect(e.path == path, "got \(e)")
            #expect(!e.message.contains("not valid JSON"), "the file is valid JSON; got \(e)")
        }
    }

    @Test func notJSONSaysLineAndColumn() throws {
        // Line 3 is `  "name": ,`: the value is missing at column 11.
        let text = "{\n  \"format\": 1,\n  \"name\": ,\n  \"pegs\": []\n}\n"
        let e = try #require(formatError(text))
        #expect(e.path == "")
        #expect(e.message.contains("not valid JSON"))
        #expect(e.message.contains("line 3"), "message: \(e.message)")
        #expect(e.message.contains("column 11"), "message: \(e.message)")

        let truncated = try #require(formatError("{\"format\": 1,\n\"name\": \"x\""))
        #expect(truncated.message.contains("not valid JSON"))
        let empty = try #require(formatError(""))
        #expect(empty.message.contains("not valid JSON"))
    }

    /// The line and column point into the file as written, even when a bare NaN earlier on the
    /// line was quoted behind the scenes.
    @Test func syntaxErrorPositionIgnoresTheNaNQuoting() throws {
        // Line 2, the stray `x` is at column 43 with `1`, at column 45 with `NaN`.
        let plain = "{\"format\": 1, \"name\": \"E\", \"mode\": {\"type\": \"classic\"},\n\"pegs\": [{\"kind\": \"blue\", \"x\": 1, \"y\": 2} x]}"
        let e1 = try #require(formatError(plain))
        #expect(e1.message.contains("line 2, column 43"), "\(e1.message)")
        let withNaN = plain.replacingOccurrences(of: "\"x\": 1", with: "\"x\": NaN")
        let e2 = try #require(formatError(withNaN))
        #expect(e2.message.contains("line 2, column 45"), "\(e2.message)")
    }

    /// The format is JSON: a trailing comma is not JSON (other tools reading level files reject it).
    @Test func trailingCommaIsNotJSON() throws {
        let text = "{\"format\": 1, \"name\": \"E\", \"mode\": {\"type\": \"classic\"},\n\"pegs\": [{\"kind\": \"orange\", \"x\": 100, \"y\": 200}, ]}"
        let e = formatError(text)
        #expect(e?.message.contains("not valid JSON") == true, "a trailing comma was accepted")
    }

    /// A key given twice hides a value the decoder never reads; it is still checked as JSON, so the
    /// text is refused as it always was (the decoder alone would take the other value).
    @Test func aHiddenValueOfAKeyGivenTwiceIsStillCheckedAsJSON() throws {
        let number = try #require(formatError(Self.file(pegs: #"{"kind": "orange", "x": 100, "x": 01, "y": 200}"#)))
        #expect(number.message == "not valid JSON: Number with leading zero at line 5, column 47.", "\(number)")
        let string = try #require(formatError(Self.file(pegs: "", extra: #" "name": "\uD800","#)))
        #expect(string.message.hasPrefix("not valid JSON: Unexpected end of file during string parse"), "\(string)")
        // Valid JSON with a key given twice decodes as before: the first value.
        let level = try decodeText(Self.file(pegs: #"{"kind": "orange", "x": 100, "x": 300, "y": 200}"#))
        #expect(level.pegs[0].center.x == 100)
    }

    @Test func bareNaNReachesValidationAsANaNField() throws {
        let level = try decodeText(Self.file(pegs: #"{"id": 1, "kind": "orange", "x": NaN, "y": 200}"#))
        #expect(level.pegs[0].center.x.isNaN)
        let issues = level.validate()
        let issue = try #require(issues.first { $0.field == "x" })
        #expect(issue.path == "pegs[0]")
        #expect(issue.objectId == 1)
        #expect(issue.message == "NaN is not a number")
        #expect(issue.description == "pegs[0] (id 1): x: NaN is not a number")
    }

    @Test func bareInfinitiesReachValidation() throws {
        let level = try decodeText(Self.file(pegs: #"{"id": 4, "kind": "orange", "x": Infinity, "y": -Infinity}"#))
        #expect(level.pegs[0].center.x == .infinity)
        #expect(level.pegs[0].center.y == -.infinity)
        let issues = level.validate()
        let x = try #require(issues.first { $0.path == "pegs[0]" && $0.field == "x" })
        #expect(x.objectId == 4)
        #expect(x.message.contains("Infinity") && x.message.contains("not a finite number"))
        let y = try #require(issues.first { $0.path == "pegs[0]" && $0.field == "y" })
        #expect(y.message.contains("-Infinity") && y.message.contains("not a finite number"))
    }

    @Test func nonFiniteWordsInsideStringsAreLeftAlone() throws {
        // Quoting bare NaN must not touch strings, escaped quotes included.
        let text = Self.file(pegs: #"{"kind": "orange", "x": 100, "y": 200}"#)
            .replacingOccurrences(of: #""name": "E""#, with: #""name": "NaN \"Infinity\" -Infinity \\ NaN""#)
        let level = try decodeText(text)
        #expect(level.name == #"NaN "Infinity" -Infinity \ NaN"#)
        #expect(level.pegs[0].center == Vec2(100, 200))
    }

    @Test func bareNaNInAWholeNumberFieldIsATypeError() throws {
        let e = try #require(formatError(Self.file(pegs: "", mode: #"{"type": "classic", "balls": NaN}"#)))
        #expect(e.path == "mode.balls")
    }

    @Test func unsupportedFormatVersion() throws {
        let e = try #require(formatError(#"{"format": 2, "name": "E", "mode": {"type": "classic"}, "pegs": []}"#))
        #expect(e.path == "format")
        #expect(e.message.contains("format 2 is not supported"))
        #expect(e.message.contains("1"))
    }

    // MARK: Canonical encoding

    @Test func bundledLevelsEncodeToTheirOwnText() throws {
        let dir = Repository.url("Levels")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.contains("bench-grid.json"))
        for name in files {
            let data = try Data(contentsOf: dir.appendingPathComponent(name))
            let text = try #require(String(data: data, encoding: .utf8))
            let level = try LevelCodec.decode(data)
            #expect(LevelCodec.encode(level) == text, "\(name) is not in canonical form, or encode changed")
            #expect(level.validate().isEmpty, "\(name): \(level.validate())")
        }
    }

    @Test func exactTextOfASmallLevel() {
        var level = Level(name: "Tiny", mode: .dodge(shots: 3), power: .spooky,
                          pegs: [peg(1, .blue, 100, 200), brick(2, .orange, 300.5, 250, w: 20, h: 10, rot: 0.5)],
                          blocks: [Block(id: 3, shape: .triangle, center: Vec2(500, 400), width: 40, height: 30,
                                         rotation: -0.25, springiness: 1)])
        level.purpleRoams = false
        let expected = """
            {
              "format": 1,
              "name": "Tiny",
              "mode": {"type": "dodge", "shots": 3},
              "power": "spooky",
              "purple_roams": false,
              "pegs": [
                {"id": 1, "kind": "blue", "x": 100, "y": 200, "radius": 12},
                {"id": 2, "kind": "orange", "x": 300.5, "y": 250, "shape": "brick", "width": 20, "height": 10, "rotation": 0.5}
              ],
              "blocks": [
                {"id": 3, "shape": "triangle", "x": 500, "y": 400, "width": 40, "height": 30, "rotation": -0.25, "springiness": 1}
              ]
            }

            """
        #expect(LevelCodec.encode(level) == expected)
        let empty = Level(name: "Empty", mode: .classic(balls: 10), power: .none)
        #expect(LevelCodec.encode(empty) == """
            {
              "format": 1,
              "name": "Empty",
              "mode": {"type": "classic", "balls": 10},
              "power": "none",
              "pegs": [],
              "blocks": []
            }

            """)
    }

    static let names = [
        "Plain", #"Say "hi""#, #"back\slash"#, "two\nlines", "tab\there", "ünïcödé ✓ 🎯 日本語", "ctrl\u{1}\u{1F}",
        "\r\n", #"\"#, #""""#, "",
    ]

    static var handBuilt: [Level] {
        var out: [Level] = []
        let modes: [GameMode] = [.classic(balls: 7), .beatTheScore(targetScore: 123_456, timeLimit: 61.25), .dodge(shots: 4)]
        for (k, name) in names.enumerated() {
            let mode = modes[k % modes.count]
            let power = Power.allCases[k % Power.allCases.count]
            var level = Level(
                name: name, mode: mode, power: power,
                pegs: [
                    peg(1, .blue, 100, 200),
                    peg(2, .orange, 150.125, 200.1, r: 6),
                    peg(3, .green, 200, 333.3333333333333, r: 30),
                    peg(5, .purple, 0.1, 1e-7),
                    peg(8, .zombie, 700, 500),
                    peg(13, .confusement, 123456.789, -0.5),
                    brick(21, .blue, 250, 260, w: 30, h: 10, rot: 0.7853981633974483),
                    brick(34, .orange, 350, 360, w: 6, h: 80, rot: -3),
                ],
                blocks: [
                    Block(id: 55, shape: .rectangle, center: Vec2(400, 450), width: 200, height: 10),
                    Block(id: 89, shape: .triangle, center: Vec2(600, 450), width: 60, height: 40, rotation: 1e-3,
                          springiness: 0.5),
                    Block(id: 144, shape: .rectangle, center: Vec2(700, 300), width: 10, height: 100, rotation: 2,
                          springiness: 1),
                ])
            level.author = k % 2 == 0 ? "Author \(name)" : nil
            level.description = k % 3 == 0 ? "Description of \(name)" : nil
            level.readOnly = k % 2 == 1
            level.purpleRoams = k % 4 != 0
            out.append(level)
        }
        return out
    }

    @Test func handBuiltLevelsRoundTrip() throws {
        for level in Self.handBuilt {
            let text = LevelCodec.encode(level)
            let back = try LevelCodec.decode(Data(text.utf8))
            #expect(back == level, "round trip changed the level named \(level.name.debugDescription)")
            #expect(back.name.unicodeScalars.elementsEqual(level.name.unicodeScalars))
            // Encoding is canonical: what it read back writes the same bytes.
            #expect(LevelCodec.encode(back) == text)
            #expect(text.hasSuffix("}\n"))
        }
    }

    @Test func everyModeAndPowerRoundTrips() throws {
        let base = Level(name: "M", pegs: [peg(1, .orange, 100, 300)])
        for mode in [GameMode.classic(balls: 1), .classic(balls: 99), .beatTheScore(targetScore: 1, timeLimit: 1),
                     .beatTheScore(targetScore: 100_000_000, timeLimit: 3600), .beatTheScore(targetScore: 50, timeLimit: 0.1),
                     .dodge(shots: 1), .dodge(shots: 99)] {
            for power in Power.allCases {
                var level = base
                level.mode = mode
                level.power = power
                let back = try LevelCodec.decode(Data(LevelCodec.encode(level).utf8))
                #expect(back == level)
            }
        }
    }

    @Test func numbersAreShortestRoundTripText() throws {
        #expect(LevelCodec.number(12) == "12")
        #expect(LevelCodec.number(-3) == "-3")
        #expect(LevelCodec.number(0.1) == "0.1")
        #expect(LevelCodec.number(150.5) == "150.5")
        #expect(LevelCodec.number(.nan) == "\"NaN\"")
        #expect(LevelCodec.number(-.infinity) == "\"-Infinity\"")
        for v in [0.1, 1.0 / 3.0, 1e-7, 123456.789, 1e20, -2.5e-300, Double.pi, 0x1.fffffffffffffp-1] {
            let text = LevelCodec.number(v)
            #expect(Double(text) == v, "\(v) written as \(text)")
        }
    }

    @Test func nonFiniteValuesRoundTripThroughTheFile() throws {
        // A level with a bad value still writes and reads back, so the designer can fix it.
        let level = Level(name: "Bad", pegs: [peg(1, .orange, .nan, .infinity), peg(2, .blue, -.infinity, 100)])
        let back = try LevelCodec.decode(Data(LevelCodec.encode(level).utf8))
        #expect(back.pegs[0].center.x.isNaN)
        #expect(back.pegs[0].center.y == .infinity)
        #expect(back.pegs[1].center.x == -.infinity)
    }
}

@Suite struct ContentHashTests {
    @Test func knownVectorAndPlayedContentOnly() {
        // FNV-1a 64 reference values.
        #expect(ContentHash.hex("") == "cbf29ce484222325")
        #expect(ContentHash.hex("a") == "af63dc4c8601ec8c")
        var a = Level(name: "One", pegs: [Peg(id: 1, kind: .orange, center: .init(400, 300))])
        var b = a
        b.name = "Renamed"
        b.author = "someone"
        b.readOnly = true
        #expect(a.contentHash == b.contentHash)
        a.pegs[0].center.x += 1
        #expect(a.contentHash != b.contentHash)
        var c = b
        c.power = .kaboom
        #expect(c.contentHash != b.contentHash)
    }
}

/// A level file's text is quoted in messages only in part: a 10 MB kind or field name gives a
/// short message, not a 10 MB one.
@Suite struct LevelCodecLongTextTests {
    @Test func longValuesAndNamesAreCutInMessages() throws {
        let long = String(repeating: "k", count: 1_000_000)
        let shown = String(repeating: "k", count: 64) + "\u{2026} (1000000 characters)"
        for (text, message) in [
            (#"{"format": 1, "name": "L", "mode": {"type": "classic"}, "pegs": [{"kind": "\#(long)", "x": 1, "y": 1}]}"#,
             #"pegs[0].kind: unknown value "\#(shown)" (expected one of: blue, orange, green, purple, zombie, confusement)"#),
            (#"{"format": 1, "name": "L", "mode": {"type": "classic"}, "pegs": [], "\#(long)": 1}"#,
             "\(shown): unknown field (expected one of: author, blocks, description, format, mode, name, pegs, power, purple_roams, read_only)"),
        ] {
            #expect { try LevelCodec.decode(Data(text.utf8)) } throws: { error in
                "\(error)" == message
            }
        }
    }
}
