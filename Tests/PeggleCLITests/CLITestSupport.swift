import Foundation
import PeggleTestSupport
import Testing

/// What a run of the `peggle` binary did.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    /// The repository root (for the bundled levels), where commands run by default.
    static let root = Repository.root

    /// The `peggle` binary built beside the test bundle, or $PEGGLE_BIN.
    static let binary = built("peggle", environment: "PEGGLE_BIN")

    /// The `peggle-bench` binary built beside the test bundle, or $PEGGLE_BENCH_BIN.
    static let benchBinary = built("peggle-bench", environment: "PEGGLE_BENCH_BIN")

    static func built(_ name: String, environment: String) -> URL {
        if let env = ProcessInfo.processInfo.environment[environment] { return URL(fileURLWithPath: env) }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        // On some platforms the test runner sits inside the .xctest bundle.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/\(name)")
    }

    /// Runs `peggle-bench args...` in `cwd` and waits for it.
    static func bench(_ args: [String], cwd: URL? = nil) throws -> RunResult {
        try run(args, cwd: cwd, binary: benchBinary)
    }

    /// Runs `peggle args...` in `cwd` and waits for it.
    static func run(_ args: [String], cwd: URL? = nil, binary: URL = CLI.binary) throws -> RunResult {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        p.currentDirectoryURL = cwd ?? root
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read before waiting so a large output cannot fill the pipe and stall the child.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return RunResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                         stderr: String(decoding: e, as: UTF8.self))
    }

    /// Runs `peggle args...` with `input` on its standard input.
    static func runWithInput(_ args: [String], input: String) throws -> RunResult {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        p.currentDirectoryURL = root
        let inPipe = Pipe(), out = Pipe(), err = Pipe()
        p.standardInput = inPipe
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Feed the input from another thread so a full output pipe cannot deadlock us.
        let writer = Thread {
            inPipe.fileHandleForWriting.write(Data(input.utf8))
            try? inPipe.fileHandleForWriting.close()
        }
        writer.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return RunResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                         stderr: String(decoding: e, as: UTF8.self))
    }

    /// A fresh empty folder under the system temporary directory; each test removes its own with `defer`.
    /// Starts `peggle rate` with `--pause-after-batches batches` and returns once it says it has
    /// paused (it then holds still until killed), with what it said on stderr.
    static func startPausedRate(_ args: [String], batches: Int) throws -> (process: Process, said: String) {
        let p = Process()
        p.executableURL = binary
        p.arguments = args + ["--pause-after-batches", String(batches)]
        p.currentDirectoryURL = root
        p.standardOutput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        var said = ""
        while !said.contains("paused after \(batches) batches") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        return (p, said)
    }

    static func tempDir() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("peggle-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A minimal valid classic level's JSON text with the given pegs (JSON objects as text).
    static func levelText(name: String = "Test Level", pegs: [String], extra: String = "") -> String {
        "{\"format\": 1, \"name\": \"\(name)\", \"mode\": {\"type\": \"classic\", \"balls\": 3}, \"power\": \"none\"\(extra), "
            + "\"pegs\": [\(pegs.joined(separator: ", "))], \"blocks\": []}"
    }
}
