import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleHost
import PeggleServe

#if canImport(Glibc)
import Glibc
#endif

/// `peggle serve`: the environment over JSON lines on stdin and stdout (docs/protocol.md).
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve environments over JSON lines on standard input and output.",
        discussion: "One request per line in, one reply per line out, in order; the first line out is a hello. "
            + "Standard output carries protocol lines (and, with obs_encoding f32, the binary frames after them) only; "
            + "messages go to standard error. "
            + "The server exits with code 0 at end of input, on `close`, or when the client goes away.")

    @Option(help: ArgumentHelp("MiB (2^20 bytes) one session's environments and snapshots may hold, as the server "
        + "estimates them; past it, make and snapshot are refused with memory_budget (docs/protocol.md).",
        valueName: "MiB"))
    var memoryBudget = ServeSession.defaultMemoryBudget >> 20

    func run() throws {
        guard (1...1 << 20).contains(memoryBudget) else {
            throw UserError("--memory-budget: \(memoryBudget) is outside 1...\(1 << 20) MiB")
        }
        // A client that dies mid-stream closes the pipe: writing then fails (EPIPE) instead of
        // killing the process, and the loop ends cleanly.
        signal(SIGPIPE, SIG_IGN)
        // A step's reply can be most of a megabyte: a larger pipe buffer (Linux) moves it with
        // fewer hand-offs between the two processes. Harmless when stdout is not a pipe.
        _ = fcntl(1, Self.setPipeSize, 1 << 20)
        let session = StandardSession.make(memoryBudget: memoryBudget << 20)
        ServeSession.run(session, readLine: { Swift.readLine(strippingNewline: true) }, write: Self.writeReply)
    }

    /// Linux's F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7), which Glibc's Swift module leaves out.
    static let setPipeSize: Int32 = 1031

    /// Writes one reply to standard output: its line and newline, then its frame's floats as raw
    /// bytes, whole and in that order (the loop is single-threaded and nothing else writes to
    /// stdout, so nothing can come between them); false when the client has gone away.
    static func writeReply(_ line: UnsafeBufferPointer<UInt8>, _ frame: [[Float]]) -> Bool {
        guard writeAll(UnsafeRawBufferPointer(line)),
              withUnsafeBytes(of: UInt8(ascii: "\n"), { writeAll($0) }) else { return false }
        for part in frame {
            guard part.withUnsafeBytes({ writeAll($0) }) else { return false }
        }
        return true
    }

    static func writeAll(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard ServeOutput.writeAll(to: 1, bytes) else {
            FileHandle.standardError.write(Data("peggle serve: the client closed the connection; exiting\n".utf8))
            return false
        }
        return true
    }
}
