import Foundation
import PeggleEnv
import PeggleServe

#if canImport(Glibc)
import Glibc
#endif

/// What a reply must have for `ServeClient` to tell success from refusal: `ok` and, when false,
/// the error. A caller decodes each reply into its own type holding just the fields it reads
/// (protocol field names), which keeps a hot loop from building what it ignores.
public protocol ServeReply: Decodable {
    var ok: Bool { get }
    var error: ServeClient.ErrorBody? { get }
}

/// A client of one `peggle serve` child process, as an efficient client in another language
/// drives it: request lines written to its input, reply lines read from its output into one
/// reused buffer, observations copied straight from that buffer into a reused float array (a
/// binary frame's bytes as they are, or base64 decoded in place) and the rest of each reply
/// decoded into the caller's type by `ReplyDecoder` (the fields the type reads; what it leaves,
/// by `JSONDecoder`). The bench measures the protocol through it and the tests use it;
/// the Python package (`peggle_gym.client`) is the other client.
public final class ServeClient {
    /// An error reply's body.
    public struct ErrorBody: Decodable, Sendable, Equatable {
        public var code: String
        public var message: String
    }

    /// The fields most callers read.
    public struct Reply: ServeReply, Sendable {
        public var ok: Bool
        public var error: ErrorBody?
        /// Rows and floats per row of the observations this reply carried.
        public var obsShape: [Int]?
        public var frameBytes: Int?
        public var obsBytes: Int?

        enum CodingKeys: String, CodingKey {
            case ok, error
            case obsShape = "obs_shape", frameBytes = "frame_bytes", obsBytes = "obs_bytes"
        }
    }

    /// The server refused a request (`code` is the protocol's), or the pipe broke (`code` nil).
    public struct Failure: Error, CustomStringConvertible {
        public var code: String?
        public var message: String
        public var description: String { code.map { "\($0): \(message)" } ?? message }
    }

    let child: Process
    let input: FileHandle
    var reader: LineReader
    /// The observations of the latest reply that carried any (`obs` rows, row-major).
    public private(set) var observations: [Float] = []
    /// The server's first line.
    public private(set) var hello = ""
    let decoder = JSONDecoder()
    package static let base64Key = Array(#""obs_b64":""#.utf8)

    /// Starts `executable serve` (the `peggle` binary) in `directory` and reads its hello line.
    public init(executable: URL, directory: URL? = nil) throws {
        child = Process()
        child.executableURL = executable
        child.arguments = ["serve"]
        if let directory { child.currentDirectoryURL = directory }
        let inPipe = Pipe(), outPipe = Pipe()
        child.standardInput = inPipe
        child.standardOutput = outPipe
        try child.run()
        input = inPipe.fileHandleForWriting
        reader = LineReader(fd: outPipe.fileHandleForReading.fileDescriptor)
        // A server that dies makes our next write fail instead of killing this process.
        signal(SIGPIPE, SIG_IGN)
        var line = ""
        guard reader.withNextLine({ line = String(decoding: $0, as: UTF8.self) }) else {
            throw Failure(message: "peggle serve closed its output before its hello line")
        }
        hello = line
    }

    deinit { close() }

    /// Ends the server (end of its input) and waits for it.
    public func close() {
        guard child.isRunning else { return }
        try? input.close()
        child.waitUntilExit()
    }

    /// Sends one request line and returns its reply decoded as `R` (the observations, if any,
    /// are in `observations`). Throws `Failure` for an error reply or a broken pipe.
    @discardableResult
    public func request<R: ServeReply>(_ line: String, as: R.Type = Reply.self) throws -> R {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        guard bytes.withUnsafeBytes({ ServeOutput.writeAll(to: input.fileDescriptor, $0) }) else {
            throw Failure(message: "peggle serve stopped reading requests")
        }
        var frame: Int?
        var decoded: R?
        var rest = Data()
        let read = try reader.withNextLine { line in
            frame = Self.frameBytes(in: line)
            guard let (start, end) = Self.span(of: Self.base64Key, in: line) else {
                // Read in place; what the quick reader leaves is decoded by JSONDecoder below.
                decoded = line.withUnsafeBufferPointer { try? ReplyDecoder.decode(R.self, from: $0) }
                if decoded == nil { rest = Data(line) }
                return
            }
            guard Self.decodeBase64(line[start..<end], into: &observations) else {
                throw Failure(message: "observations that are not base64")
            }
            rest = Data(line[line.startIndex..<start])
            rest.append(contentsOf: line[end...])
            decoded = rest.withUnsafeBytes { try? ReplyDecoder.decode(R.self, from: $0.bindMemory(to: UInt8.self)) }
        }
        guard read else { throw Failure(message: "peggle serve closed its output") }
        let reply: R
        if let decoded {
            reply = decoded
        } else {
            do { reply = try decoder.decode(R.self, from: rest) } catch {
                throw Failure(message: "a reply that is not a JSON object of the protocol: \(String(decoding: rest.prefix(200), as: UTF8.self))")
            }
        }
        if let frame {
            // Replies here carry one array in a frame, obs (a same-step `final_obs` would follow it).
            let n = frame / 4
            if observations.count != n { observations = [Float](repeating: 0, count: n) }
            guard frame % 4 == 0, observations.withUnsafeMutableBytes({ reader.readFrame(into: $0) }) else {
                throw Failure(message: "peggle serve closed its output mid-frame")
            }
        }
        guard reply.ok else {
            throw Failure(code: reply.error?.code, message: reply.error?.message ?? "an error reply without its error")
        }
        return reply
    }

    static let frameKey = Array(#""frame_bytes":"#.utf8)

    /// The reply line's `frame_bytes`. The server writes it last (`..."frame_bytes":N}`), so
    /// the end of the line is tried first and the rest is searched only when it is not there.
    /// (A search of the whole reply through `Data.firstRange(of:)`, as before, cost about 800
    /// instructions a byte: some 12 million a 64-environment step, more than the client's JSON
    /// decoding of the same reply.)
    package static func frameBytes(in line: ArraySlice<UInt8>) -> Int? {
        line.withUnsafeBufferPointer { b -> Int? in
            // The digits before the closing brace, then the key before them.
            var i = b.count - 1
            guard i >= 0, b[i] == UInt8(ascii: "}") else { return nil }
            i -= 1
            while i >= 0 && b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i -= 1 }
            let digitsStart = i + 1
            let keyStart = digitsStart - frameKey.count
            if digitsStart < b.count - 1, keyStart >= 0, memcmp(b.baseAddress! + keyStart, frameKey, frameKey.count) == 0 {
                return number(b, from: digitsStart)
            }
            guard let (start, _) = find(frameKey, in: b) else { return nil }
            return number(b, from: start + frameKey.count)
        }
    }

    /// The whole number whose digits start at `i`.
    static func number(_ b: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
        var n = 0
        var i = i
        while i < b.count, b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") {
            n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
            i += 1
        }
        return n
    }

    /// The offsets of `key`'s first occurrence in `b` and of the byte after it.
    static func find(_ key: [UInt8], in b: UnsafeBufferPointer<UInt8>) -> (Int, Int)? {
        guard let base = b.baseAddress, !key.isEmpty, key.count <= b.count else { return nil }
        var from = 0
        while from + key.count <= b.count {
            // memchr for the key's first byte, then compare the rest.
            guard let hit = memchr(base + from, Int32(key[0]), b.count - from) else { return nil }
            let i = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
            if i + key.count <= b.count && memcmp(base + i, key, key.count) == 0 { return (i, i + key.count) }
            from = i + 1
        }
        return nil
    }

    /// The range of the string value that follows `key` (which ends with the opening quote).
    package static func span(of key: [UInt8], in line: ArraySlice<UInt8>) -> (Int, Int)? {
        line.withUnsafeBufferPointer { b -> (Int, Int)? in
            guard let (_, start) = find(key, in: b),
                  let q = memchr(b.baseAddress! + start, Int32(UInt8(ascii: "\"")), b.count - start) else { return nil }
            let end = UnsafeRawPointer(q).assumingMemoryBound(to: UInt8.self) - b.baseAddress!
            return (line.startIndex + start, line.startIndex + end)
        }
    }

    /// Decodes base64 text (padded) into `floats`' bytes, resizing it to fit; false if malformed.
    static func decodeBase64(_ text: ArraySlice<UInt8>, into floats: inout [Float]) -> Bool {
        text.withUnsafeBufferPointer { src in
            guard let byteCount = Base64.decodedCount(src), byteCount % 4 == 0 else { return false }
            if floats.count != byteCount / 4 { floats = [Float](repeating: 0, count: byteCount / 4) }
            return floats.withUnsafeMutableBytes { Base64.decode(src, into: $0) }
        }
    }

}

/// Lines and binary frames from a file descriptor, read with read(2) straight into one reused
/// buffer (no per-read allocation), and frames copied once, into the caller's memory. Each byte
/// is scanned for the newline once, so a long line arriving in many small reads costs linear time.
struct LineReader {
    let fd: Int32
    /// Bytes `start..<end` are unread; the array's whole count is usable space.
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var start = 0
    var end = 0
    var scanned = 0

    /// Calls `body` with the next line's bytes (a view of the buffer, no copy); false at end of input.
    mutating func withNextLine(_ body: (ArraySlice<UInt8>) throws -> Void) rethrows -> Bool {
        while true {
            let found = buffer.withUnsafeBytes { b in
                memchr(b.baseAddress! + scanned, Int32(UInt8(ascii: "\n")), end - scanned)
                    .map { UnsafeRawPointer($0) - UnsafeRawPointer(b.baseAddress!) }
            }
            if let nl = found {
                try body(buffer[start..<nl])
                start = nl + 1
                scanned = start
                return true
            }
            scanned = end
            guard fill() else { return false }
        }
    }

    /// Copies the next `destination.count` bytes (a binary frame) into `destination`: what is
    /// buffered first, the rest read straight into it; false if input ends first.
    mutating func readFrame(into destination: UnsafeMutableRawBufferPointer) -> Bool {
        let have = min(end - start, destination.count)
        buffer.withUnsafeBytes { src in
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[start..<(start + have)]))
        }
        start += have
        scanned = start
        var got = have
        while got < destination.count {
            let n = Glibc.read(fd, destination.baseAddress! + got, destination.count - got)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            got += n
        }
        return true
    }

    /// Reads what the descriptor has after the unread bytes (moved to the front, the buffer
    /// doubled when full); false at end of input.
    private mutating func fill() -> Bool {
        if start == end {
            start = 0; end = 0; scanned = 0
        } else if start > 0 && end == buffer.count {
            buffer.withUnsafeMutableBytes { b in
                b.baseAddress!.copyMemory(from: b.baseAddress! + start, byteCount: end - start)
            }
            end -= start; scanned -= start; start = 0
        }
        if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        while true {
            let n = buffer.withUnsafeMutableBytes { b in Glibc.read(fd, b.baseAddress! + end, b.count - end) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            end += n
            return true
        }
    }
}
