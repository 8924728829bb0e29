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
}
