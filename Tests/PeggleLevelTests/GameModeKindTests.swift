import Foundation
import PeggleLevel
import PeggleTestSupport
import Testing

/// The mode kinds, their defaults and ranges, as the level format reads and writes them.
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
        #expect(Array(keys.dropFirst(2)) == kind.fields, "\(text)")
    }

    @Test("a mode object with only its type takes the defaults; beat the score must give its target",
          arguments: GameModeKind.allCases)
    func missingFieldsTakeDefaults(kind: GameModeKind) throws {
        let target = kind == .beatTheScore ? #", "target_score": 50000"# : ""
        let level = try decodeText(#"{"format": 1, "name": "D", "mode": {"type": "\#(kind.rawValue)"\#(target)}, "pegs": []}"#)
        #expect(level.mode == kind.defaultMode)
        if kind == .beatTheScore {
            let e = try #require(formatError(#"{"format": 1, "name": "D", "mode": {"type": "beat_the_score"}, "pegs": []}"#))
            #expect(e.description == "mode.target_score: required field is missing")
        }
    }

    @Test func rangesAreWhatValidationEnforces() {
        func issues(_ mode: GameMode) -> [String] {
            makeLevel(mode: mode, pegs: [peg(1, .orange, 400, 300)]).validate().map(\.description)
        }
        let ends: [GameMode] = [
            .classic(balls: GameMode.ballsRange.lowerBound), .classic(balls: GameMode.ballsRange.upperBound),
            .dodge(shots: GameMode.shotsRange.lowerBound), .dodge(shots: GameMode.shotsRange.upperBound),
            .beatTheScore(targetScore: GameMode.targetScoreRange.lowerBound, timeLimit: GameMode.timeLimitRange.lowerBound),
            .beatTheScore(targetScore: GameMode.targetScoreRange.upperBound, timeLimit: GameMode.timeLimitRange.upperBound),
        ]
        for mode in ends { #expect(issues(mode).isEmpty, "\(mode)") }
        #expect(issues(.classic(balls: 100)) == ["mode: balls: 100 is outside 1...99"])
        #expect(issues(.dodge(shots: 0)) == ["mode: shots: 0 is outside 1...99"])
        #expect(issues(.beatTheScore(targetScore: 0, timeLimit: 3600.5))
            == ["mode: target_score: 0 is outside 1...100000000", "mode: time_limit: 3600.5 is outside 1...3600 seconds"])
        #expect(issues(.beatTheScore(targetScore: 1, timeLimit: .nan)) == ["mode: time_limit: \"NaN\" is outside 1...3600 seconds"])
        for kind in GameModeKind.allCases { #expect(issues(kind.defaultMode).isEmpty) }
    }
}
