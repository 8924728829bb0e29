import Foundation
import PeggleLab
import PeggleServe
import Testing

/// `ServeClient` reads replies with `ReplyDecoder` and falls back to `JSONDecoder` for what it
/// leaves: where it reads a reply, it must read what `JSONDecoder` reads.
@Suite struct ReplyDecoderTests {
    /// What the bench's client reads of a step.
    struct Step: Decodable, Equatable {
        struct Hits: Decodable, Equatable { var orange: [Int]; var _orange: [Bool] }
        struct Infos: Decodable, Equatable { var _angle: [Bool]?; var level_name: [String]?; var hits: Hits?; var game_seed: [UInt64]? }
        var ok: Bool
        var obs_shape: [Int]?
        var infos: Infos?
        var terminated: [Bool]?
        var frame_bytes: Int?
        var missing: [Int]?
    }

    /// Rows of infos, read as dictionaries of integers and strings, and the error body.
    struct Rows: Decodable, Equatable {
        struct Info: Decodable, Equatable { var level: Int; var level_name: String; var game_seed: UInt64?; var shots: Int8 }
        var ok: Bool
        var id: String?
        var infos: [Info?]?
        var error: ServeClient.ErrorBody?
    }

    static func replies(_ lines: [String]) -> [String] {
        let s = ServeProtocolTests.session()
        return lines.map { s.handle($0) }
    }

    static func bothRead<T: Decodable & Equatable>(_ line: String, _ type: T.Type) throws -> Bool {
        let slow = try JSONDecoder().decode(T.self, from: Data(line.utf8))
        var copy = line
        guard let fast = copy.withUTF8({ try? ReplyDecoder.decode(T.self, from: $0) }) else { return false }
        #expect(fast == slow, "\(line.prefix(300))")
        return true
    }

    @Test("a step's reply in columns reads as JSONDecoder reads it, without JSONDecoder")
    func columns() throws {
        let lines = Self.replies([
            #"{"cmd": "make", "levels": ["Levels/first-steps.json", "Levels/upside-down.json"], "num_envs": 3, "max_objects": 40, "max_shots": 2, "info_layout": "columns", "obs_encoding": "f32"}"#,
            #"{"cmd": "reset", "seed": 3}"#,
        ] + (0..<6).map { k in #"{"cmd": "step", "actions": [0.\#(k + 1), -0.3, 0.45]}"# })
        for line in lines.dropFirst() {
            #expect(try Self.bothRead(line, Step.self), "left to JSONDecoder: \(line.prefix(200))")
        }
    }

    @Test("rows, ids and unsigned seeds read as JSONDecoder reads them; escapes are left to it")
    func rows() throws {
        let lines = Self.replies([
            #"{"cmd": "make", "levels": ["Levels/first-steps.json"], "num_envs": 2, "max_objects": 40}"#,
            #"{"id": "r", "cmd": "reset", "seed": 18446744073709551}"#,
            #"{"id": "s", "cmd": "step", "actions": [0.1, 0.2]}"#,
            #"{"id": "m", "cmd": "reset", "reset_mask": [false, true]}"#,
        ])
        for line in lines.dropFirst() { #expect(try Self.bothRead(line, Rows.self), "\(line.prefix(200))") }
        // An error whose message quotes a value: its escapes are JSONDecoder's to read.
        let error = Self.replies([#"{"id": "e", "cmd": "make", "level": "Levels/first-steps.json", "reward": "x"}"#])[0]
        #expect(error.contains(#"\""#))
        #expect(try !Self.bothRead(error, Rows.self))
    }

    @Test("what is not plainly read is left to JSONDecoder", arguments: [
        #"{"ok":true,"obs_shape":[1.0,2]}"#,
        #"{"ok":true,"obs_shape":[1e2,2]}"#,
        #"{"ok":true,"obs_shape":[01,2]}"#,
        #"{"ok":true,"obs_shape":[99999999999999999999,2]}"#,
        #"{"ok":"yes"}"#,
        #"{"ok":true} x"#,
        #"{"ok":true"#,
        #"{"obs_shape":[1,2]}"#,
    ])
    func left(line: String) {
        var copy = line
        #expect(copy.withUTF8 { try? ReplyDecoder.decode(ServeClient.Reply.self, from: $0) } == nil)
    }
}
