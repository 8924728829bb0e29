import Foundation
import Testing

@Suite("peggle serve")
struct ServeCommandTests {
    static let make = #"{"id": 1, "cmd": "make", "levels": ["Levels/first-steps.json"], "num_envs": 2, "max_objects": 40, "obs_encoding": "b64f32"}"#

    @Test("hello first, then one reply per pipelined request in order; end of input exits 0")
    func pipelined() throws {
        let requests = [Self.make, #"{"id": 2, "cmd": "reset", "seed": 3}"#, "not json at all",
                        #"{"id": 3, "cmd": "step", "actions": [0.1, -0.1]}"#, #"{"id": 4, "cmd": "step", "actions": [5, 0]}"#,
                        #"{"id": 5, "cmd": "spaces"}"#]
        let r = try CLI.runWithInput(["serve"], input: requests.joined(separator: "\n") + "\n")
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 + requests.count)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects[0]["protocol"] as? Int == 1)
        #expect(objects.dropFirst().map { $0["id"] as? Int } == [1, 2, nil, 3, 4, 5])
        #expect(objects.dropFirst().map { $0["ok"] as? Bool } == [true, true, false, true, false, true])
        // Standard output carries protocol lines only.
        #expect(lines.allSatisfy { $0.hasPrefix("{") })
    }

    @Test("close replies, then the server exits 0 without reading further")
    func close() throws {
        let r = try CLI.runWithInput(["serve"], input: #"{"cmd": "close"}"# + "\n" + Self.make + "\n")
        #expect(r.status == 0)
        #expect(r.stdout.split(separator: "\n").count == 2)
    }

    @Test("a client that goes away mid-stream leaves the server exiting cleanly")
    func clientGoesAway() throws {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["serve"]
        p.currentDirectoryURL = CLI.root
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = errors
        try p.run()
        // Ask for large replies, then close our end of the output without reading them.
        let big = #"{"cmd": "make", "levels": ["Levels/bench-grid.json"], "num_envs": 64, "obs_encoding": "json"}"#
        var text = big + "\n" + #"{"cmd": "reset", "seed": 1}"# + "\n"
        for _ in 0..<20 { text += #"{"cmd": "spaces"}"# + "\n" }
        try output.fileHandleForReading.close()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        #expect(p.terminationReason == .exit, "killed by a signal instead of exiting")
        #expect(p.terminationStatus == 0)
    }

    /// Runs `peggle serve` on `input` and returns its standard output's raw bytes.
    static func rawOutput(_ input: String) throws -> (status: Int32, bytes: [UInt8]) {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["serve"]
        p.currentDirectoryURL = CLI.root
        let inPipe = Pipe(), out = Pipe()
        p.standardInput = inPipe
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let writer = Thread {  // so a full output pipe cannot deadlock us
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try? inPipe.fileHandleForWriting.close()
        }
        writer.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, Array(o))
    }

    /// Splits a reply stream into lines (parsed) and the frames after them: a line with
    /// `frame_bytes` N is followed by exactly N bytes.
    static func replies(_ bytes: [UInt8]) throws -> [(reply: [String: Any], frame: [UInt8])] {
        var out: [(reply: [String: Any], frame: [UInt8])] = []
        var i = 0
        while i < bytes.count {
            let nl = try #require(bytes[i...].firstIndex(of: UInt8(ascii: "\n")), "a line without its newline")
            let reply = try #require(JSONSerialization.jsonObject(with: Data(bytes[i..<nl])) as? [String: Any])
            let n = reply["frame_bytes"] as? Int ?? 0
            try #require(nl + 1 + n <= bytes.count, "a frame cut short")
            out.append((reply, Array(bytes[(nl + 1)..<(nl + 1 + n)])))
            i = nl + 1 + n
        }
        return out
    }

    @Test("f32: pipelined replies each followed by exactly their frame; errors have none; same floats as b64f32")
    func binaryFrames() throws {
        let requests = [#"{"id": 2, "cmd": "reset", "seed": 3}"#, "not json at all",
                        #"{"id": 3, "cmd": "step", "actions": [0.1, -0.1]}"#, #"{"id": 4, "cmd": "step", "actions": [5, 0]}"#,
                        #"{"id": 5, "cmd": "spaces"}"#, #"{"id": 6, "cmd": "step", "actions": [-0.3, 0.7]}"#]
        func run(_ encoding: String) throws -> [(reply: [String: Any], frame: [UInt8])] {
            let make = Self.make.replacingOccurrences(of: "b64f32", with: encoding)
            let r = try Self.rawOutput(([make] + requests).joined(separator: "\n") + "\n")
            #expect(r.status == 0)
            return try Self.replies(r.bytes)
        }
        let binary = try run("f32")
        #expect(binary.count == 2 + requests.count)  // hello, make, then one reply per request
        #expect(binary.dropFirst().map { $0.reply["id"] as? Int } == [1, 2, nil, 3, 4, 5, 6])
        #expect(binary.dropFirst().map { $0.reply["ok"] as? Bool } == [true, true, false, true, false, true, true])
        #expect(binary.map(\.frame.count) == [0, 0, 2 * 697 * 4, 0, 2 * 697 * 4, 0, 0, 2 * 697 * 4])
        for (reply, frame) in binary where !frame.isEmpty {
            #expect(reply["obs_bytes"] as? Int == frame.count)
            #expect(reply["obs_shape"] as? [Int] == [2, 697])
        }
        let text = try run("b64f32")
        #expect(text.allSatisfy { $0.frame.isEmpty })
        for (b, t) in zip(binary, text) where !b.frame.isEmpty {
            let decoded = try #require(Data(base64Encoded: t.reply["obs_b64"] as? String ?? ""))
            #expect(b.frame == Array(decoded), "reply \(b.reply["id"] ?? "?")")
        }
    }

    @Test("render rgb: the real rasteriser's pixels as base64, no frame after the line; a bad width is refused")
    func renderRGB() throws {
        let make = #"{"id": 1, "cmd": "make", "levels": ["Levels/first-steps.json"], "num_envs": 1, "max_objects": 40, "obs_encoding": "f32", "trajectory": true}"#
        let requests = [make, #"{"id": 2, "cmd": "reset", "seed": 3}"#, #"{"id": 3, "cmd": "render", "format": "rgb"}"#,
                        #"{"id": 4, "cmd": "step", "actions": [0.2]}"#, #"{"id": 5, "cmd": "render", "format": "rgb", "width": 200}"#,
                        #"{"id": 6, "cmd": "render", "format": "rgb", "width": 5}"#]
        let input = requests.joined(separator: "\n") + "\n"
        let r = try Self.rawOutput(input)
        #expect(r.status == 0)
        let replies = try Self.replies(r.bytes)
        #expect(replies.dropFirst().map { $0.reply["ok"] as? Bool } == [true, true, true, true, true, false])
        #expect(replies.dropFirst().map(\.frame.count) == [0, 697 * 4, 0, 697 * 4, 0, 0])
        let full = replies[3].reply, small = replies[5].reply
        #expect(full["width"] as? Int == 800 && full["height"] as? Int == 600)
        #expect(small["width"] as? Int == 200 && small["height"] as? Int == 150)
        let pixels = Array(try #require(Data(base64Encoded: full["rgb_b64"] as? String ?? "")))
        #expect(pixels.count == 800 * 600 * 3)
        #expect(Array(try #require(Data(base64Encoded: small["rgb_b64"] as? String ?? ""))).count == 200 * 150 * 3)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(pixels[((y * 800 + x) * 3)..<((y * 800 + x) * 3 + 3)]) }
        #expect(pixel(400, 320) == [0xff, 0x7a, 0x1a])  // an orange peg of first-steps, before any shot
        #expect(pixel(400, 20) == [0xc9, 0xce, 0xd6])   // the cannon
        #expect(pixel(400, 200) == [0x0e, 0x16, 0x26])  // the board
        let error = try #require(replies[6].reply["error"] as? [String: Any])
        #expect(error["code"] as? String == "bad_request")
        #expect(error["message"] as? String == #""width" is 5; it must be in 16...4096"#)
        // Another server, the same requests: the same pixels.
        let again = try Self.replies(try Self.rawOutput(input).bytes)
        #expect(again[5].reply["rgb_b64"] as? String == small["rgb_b64"] as? String)
    }
}
