import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleServe
import PeggleTestSupport
import Testing

/// `render` with format `rgb`: the session passes the game, its latest shot and the width to the
/// injected rasteriser and replies its bytes as base64. The rasteriser here is a stand-in whose
/// bytes encode what it was given; the real one is tested in PeggleDrawingTests and end to end
/// in ServeCommandTests.
@Suite("Serve render rgb")
struct ServeRenderTests {
    /// What the stand-in rasteriser saw on its latest call.
    final class Calls {
        var widths: [Int?] = []
        var shots: [Int] = []
        var bufferCounts: [Int] = []
    }

    /// A session whose rasteriser draws `width` (default 20) x `width / 2` pixels, byte k being
    /// `(k + shots + balls left) % 256`.
    static func session(_ calls: Calls, failing: Bool = false) -> ServeSession {
        ServeSession(
            loadLevel: { path in try LevelCodec.decode(Repository.data(path)) },
            renderSVG: { _, _ in "<svg/>" },
            renderRGB: { state, shots, width, pixels in
                struct Refused: Error, CustomStringConvertible { var description: String { "the stand-in refuses" } }
                if failing { throw Refused() }
                calls.widths.append(width)
                calls.shots.append(shots.count)
                calls.bufferCounts.append(pixels.count)
                let w = width ?? 20, h = w / 2
                if pixels.count != w * h * 3 { pixels = [UInt8](repeating: 0, count: w * h * 3) }
                for k in pixels.indices { pixels[k] = UInt8((k + shots.count + state.ballsLeft) % 256) }
                return (w, h)
            })
    }

    static func reply(_ s: ServeSession, _ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(s.handle(line).utf8)) as? [String: Any])
    }

    static func error(_ r: [String: Any]) -> (code: String, message: String)? {
        guard r["ok"] as? Bool == false, let e = r["error"] as? [String: Any] else { return nil }
        return (e["code"] as? String ?? "", e["message"] as? String ?? "")
    }

    /// The reply's `rgb_b64`, decoded.
    static func decoded(_ r: [String: Any]) throws -> Data {
        let text = try #require(r["rgb_b64"] as? String)
        return try #require(Data(base64Encoded: text))
    }

    static let make = #"{"cmd": "make", "level": "Levels/first-steps.json", "num_envs": 2, "max_objects": 40}"#

    @Test func rgbRepliesSizeAndBase64Bytes() throws {
        let calls = Calls()
        let s = Self.session(calls)
        _ = try Self.reply(s, Self.make)
        _ = try Self.reply(s, #"{"cmd": "reset", "seed": 1}"#)
        let r = try Self.reply(s, #"{"id": 9, "cmd": "render", "format": "rgb"}"#)
        #expect(r["ok"] as? Bool == true && r["id"] as? Int == 9)
        #expect(r["width"] as? Int == 20 && r["height"] as? Int == 10)
        let bytes = try Self.decoded(r)
        #expect(bytes.count == 20 * 10 * 3)
        let expected = (0..<600).map { UInt8(($0 + 10) % 256) }  // no shot yet, 10 balls
        #expect(Array(bytes) == expected)
        #expect(calls.widths == [nil] && calls.shots == [0])
    }

    @Test func widthAndLatestShotReachTheRasteriser() throws {
        let calls = Calls()
        let s = Self.session(calls)
        _ = try Self.reply(s, Self.make)
        _ = try Self.reply(s, #"{"cmd": "reset", "seed": 1}"#)
        _ = try Self.reply(s, #"{"cmd": "step", "actions": [0.1, -0.1]}"#)
        let r = try Self.reply(s, #"{"cmd": "render", "env": 1, "format": "rgb", "width": 64}"#)
        #expect(r["width"] as? Int == 64 && r["height"] as? Int == 32)
        let bytes = try Self.decoded(r)
        #expect(bytes.count == 64 * 32 * 3)
        #expect(bytes.first == UInt8(1 + 9))  // one shot, nine balls left
        // Bounds are inclusive; null means the default.
        _ = try Self.reply(s, #"{"cmd": "render", "format": "rgb", "width": 16}"#)
        _ = try Self.reply(s, #"{"cmd": "render", "format": "rgb", "width": null}"#)
        #expect(calls.widths == [64, 16, nil])
        #expect(calls.shots == [1, 1, 1])
        // The session keeps its pixel buffer: the second render of a size gets the last one's bytes back.
        _ = try Self.reply(s, #"{"cmd": "render", "format": "rgb", "width": null}"#)
        #expect(calls.bufferCounts.last == 20 * 10 * 3)
    }

    @Test("a bad width is refused naming the field and the value", arguments: [
        (#""width": 15"#, #""width" is 15; it must be in 16...4096"#),
        (#""width": 4097"#, #""width" is 4097; it must be in 16...4096"#),
        (#""width": -1"#, #""width" is -1; it must be in 16...4096"#),
        (#""width": 100.5"#, #""width" must be a whole number"#),
        (#""width": "wide""#, #""width" must be a whole number"#),
        (#""width": true"#, #""width" must be a whole number"#),
    ])
    func badWidth(field: String, message: String) throws {
        let calls = Calls()
        let s = Self.session(calls)
        _ = try Self.reply(s, Self.make)
        _ = try Self.reply(s, #"{"cmd": "reset"}"#)
        let r = try Self.reply(s, #"{"id": 3, "cmd": "render", "format": "rgb", \#(field)}"#)
        let e = try #require(Self.error(r))
        #expect(e.code == "bad_request")
        #expect(e.message == message)
        #expect(r["id"] as? Int == 3)
        #expect(calls.widths.isEmpty, "the rasteriser ran for a refused request")
    }

    @Test func otherRefusals() throws {
        let calls = Calls()
        let s = Self.session(calls)
        _ = try Self.reply(s, Self.make)
        #expect(Self.error(try Self.reply(s, #"{"cmd": "render", "format": "rgb"}"#))?.code == "not_reset")
        _ = try Self.reply(s, #"{"cmd": "reset"}"#)
        // A width is for rgb only.
        let svg = try #require(Self.error(try Self.reply(s, #"{"cmd": "render", "format": "svg", "width": 300}"#)))
        #expect(svg.code == "bad_request" && svg.message.contains("\"width\" is 300") && svg.message.contains("only format rgb"))
        // The list of formats names rgb.
        let unknown = try #require(Self.error(try Self.reply(s, #"{"cmd": "render", "format": "png"}"#)))
        #expect(unknown.message == #"render: format "png" is not svg, ansi or rgb"#)
        // A session made without a rasteriser says so.
        let bare = ServeSession(loadLevel: { path in try LevelCodec.decode(Repository.data(path)) },
                                renderSVG: { _, _ in "<svg/>" })
        _ = try Self.reply(bare, Self.make)
        _ = try Self.reply(bare, #"{"cmd": "reset"}"#)
        let none = try #require(Self.error(try Self.reply(bare, #"{"cmd": "render", "format": "rgb"}"#)))
        #expect(none.code == "bad_request" && none.message.contains("rasteriser"))
        // The rasteriser's own refusal is passed on.
        let failing = Self.session(Calls(), failing: true)
        _ = try Self.reply(failing, Self.make)
        _ = try Self.reply(failing, #"{"cmd": "reset"}"#)
        let refused = try #require(Self.error(try Self.reply(failing, #"{"cmd": "render", "format": "rgb"}"#)))
        #expect(refused.code == "bad_request" && refused.message == "render: the stand-in refuses")
        // After all that the session still serves.
        #expect(try Self.reply(s, #"{"cmd": "render", "format": "rgb"}"#)["ok"] as? Bool == true)
    }
}
