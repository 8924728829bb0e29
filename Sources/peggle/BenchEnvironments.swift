import Foundation
import PeggleEnv
import PeggleGame

/// `peggle bench --vector` and `--serve`: environment throughput in process and through a pipe.
extension Bench {
    /// The workload: `envs` environments on the level (next-step autoreset, the default object
    /// encoder), reset with seed 0, then `batches` steps of seeded random actions.
    func environmentConfig(_ lvl: Level) -> EnvConfig {
        var c = EnvConfig(levels: [lvl])
        c.encoder = ObservationEncoder(maxObjects: max(128, lvl.pegs.count + lvl.blocks.count))
        return c
    }

    func batchActions() -> [[Double]] {
        var g = SeededGenerator(seed: 1)
        return (0..<batches).map { _ in (0..<envs).map { _ in g.nextUnit() * 2 - 1 } }
    }

    func runEnvironments(_ lvl: Level, _ counts: [Int]) throws -> [[String: Any]] {
        var rows: [[String: Any]] = []
        for t in counts {
            var inProcess: [Run] = []
            var piped: [Run] = []
            for _ in 0..<`repeat` {
                inProcess.append(try runVector(lvl, threads: t))
                if serve { piped.append(try runServe(level, threads: t)) }
            }
            var row = Self.envRow(vector || !serve ? "vector" : "serve", Self.median(serve ? piped : inProcess),
                                  envs: envs, threads: t, batches: batches)
            if serve {
                row["obs_encoding"] = obsEncoding
                let local = Self.median(inProcess)
                row["in_process_shots_per_s"] = Self.round(Double(local.shots) / local.seconds, 1)
                row["serve_over_in_process"] = Self.round((row["shots_per_s"] as! Double) / (row["in_process_shots_per_s"] as! Double), 3)
            }
            rows.append(row)
            if json {
                printLine(JSON.text(row))
            } else {
                var line = "\(row["mode"]!), \(envs) envs, threads \(t): \(row["shots_per_s"]!) shots/s (median of \(`repeat`))"
                if serve { line += "; in process \(row["in_process_shots_per_s"]!) shots/s" }
                printLine(line)
            }
        }
        return rows
    }

    static func envRow(_ mode: String, _ r: Run, envs: Int, threads: Int, batches: Int) -> [String: Any] {
        ["mode": mode, "engine": "peggle-gym \(PeggleGym.version)", "envs": envs, "threads": threads,
         "cores": ProcessInfo.processInfo.activeProcessorCount, "batches": batches, "shots": r.shots,
         "seconds": round(r.seconds, 4), "shots_per_s": round(Double(r.shots) / r.seconds, 1)]
    }

    /// In process: a VectorEnv stepped `batches` times. Counts shots actually taken (a next-step
    /// reset takes none).
    func runVector(_ lvl: Level, threads: Int) throws -> Run {
        var v = try VectorEnv(config: environmentConfig(lvl), count: envs, threads: threads)
        try v.reset(seed: 0)
        let all = batchActions()
        var shots = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for a in all {
            try v.step(a)
            for s in v.slots where s.info.shot != nil { shots += 1 }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Run(shots: shots, steps: 0, seconds: seconds)
    }

    /// Through a pipe: a real `peggle serve` child, driven request by request as a client would,
    /// decoding every reply (infos in the columns layout) and its observations (a binary frame
    /// or base64, per --obs-encoding).
    func runServe(_ levelPath: String, threads: Int) throws -> Run {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let child = Process()
        child.executableURL = exe
        child.arguments = ["serve"]
        let input = Pipe(), output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        defer {
            try? input.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        var reader = LineReader(output.fileHandleForReading)
        let requestFD = input.fileHandleForWriting.fileDescriptor
        signal(SIGPIPE, SIG_IGN)  // a server that dies makes the write fail, not kill the bench
        // As an efficient client does: the observations are copied straight from the read buffer
        // into a reused float array (the frame's bytes as they are, or base64 decoded in place);
        // the rest (rewards, flags, infos) is parsed as JSON.
        var observations: [Float] = []
        let key = Array(#""obs_b64":""#.utf8)
        let binary = obsEncoding == "f32"
        let decoder = JSONDecoder()
        func request(_ line: String) throws -> Reply {
            var bytes = Array(line.utf8)
            bytes.append(UInt8(ascii: "\n"))
            guard bytes.withUnsafeBytes({ Serve.writeAll(to: requestFD, $0) }) else {
                throw UserError("--serve: the server stopped reading requests")
            }
            var rest = Data()
            let ok = try reader.withNextLine { bytes in
                guard !binary, let (start, end) = Self.span(of: key, in: bytes) else {
                    rest = Data(bytes)
                    return
                }
                guard try Self.decodeBase64(bytes[start..<end], into: &observations) else {
                    throw UserError("--serve: observations that are not base64")
                }
                rest = Data(bytes[bytes.startIndex..<start])
                rest.append(contentsOf: bytes[end...])
            }
            guard ok else { throw UserError("--serve: the server closed the pipe") }
            // Decoded into the fields this client reads (the others are scanned, not built):
            // `JSONDecoder` is several times faster here than `JSONSerialization`'s `NSNumber`s.
            let reply: Reply
            do { reply = try decoder.decode(Reply.self, from: rest) } catch {
                throw UserError("--serve: a reply that is not a JSON object of the protocol: \(String(decoding: rest.prefix(200), as: UTF8.self))")
            }
            if let n = reply.frame_bytes {
                // This workload's replies carry one array, obs, so the frame is exactly it.
                guard n % 4 == 0, let obsBytes = reply.obs_bytes, obsBytes <= n else {
                    throw UserError("--serve: a frame of \(n) bytes that does not hold its observations")
                }
                guard n == obsBytes else { throw UserError("--serve: a frame holding more than observations") }
                if observations.count != obsBytes / 4 { observations = [Float](repeating: 0, count: obsBytes / 4) }
                let got = observations.withUnsafeMutableBytes { reader.readFrame(into: $0) }
                guard got else { throw UserError("--serve: the server closed the pipe mid-frame") }
            }
            guard reply.ok else { throw UserError("--serve: the server refused: \(String(decoding: rest, as: UTF8.self))") }
            return reply
        }
        guard reader.withNextLine({ _ in }) else { throw UserError("--serve: the server closed the pipe before its hello") }
        let absolute = URL(fileURLWithPath: levelPath).path
        _ = try request(#"{"cmd":"make","level":\#(LevelCodec.quote(absolute)),"num_envs":\#(envs),"threads":\#(threads),"obs_encoding":"\#(obsEncoding)","info_layout":"columns","max_objects":\#(environmentConfig(try Files.loadLevel(levelPath)).encoder.maxObjects)}"#)
        _ = try request(#"{"cmd":"reset","seed":0}"#)
        let all = batchActions()
        var shots = 0
        var checksum: Float = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for a in all {
            let reply = try request(#"{"cmd":"step","actions":[\#(a.map { "\($0)" }.joined(separator: ","))]}"#)
            guard observations.count == envs * (reply.obs_shape?.last ?? -1) else {
                throw UserError("--serve: a reply without its observations")
            }
            checksum += observations[0]
            // Infos in columns (as the Python vector client takes them): `_angle` marks the
            // environments that shot (the others were reset).
            let shot = reply.infos?._angle ?? []
            shots += shot.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        _ = checksum
        return Run(shots: shots, steps: 0, seconds: seconds)
    }
}

/// The parts of a reply the benchmark client reads (protocol field names).
struct Reply: Decodable {
    struct Infos: Decodable { var _angle: [Bool]? }
    var ok: Bool
    var obs_shape: [Int]?
    var frame_bytes: Int?
    var obs_bytes: Int?
    var infos: Infos?
}

extension Bench {
    /// The range of the string value that follows `key` (which ends with the opening quote).
    static func span(of key: [UInt8], in line: ArraySlice<UInt8>) -> (Int, Int)? {
        line.withUnsafeBufferPointer { b -> (Int, Int)? in
            guard let base = b.baseAddress, key.count <= b.count else { return nil }
            var from = 0
            while from + key.count <= b.count {
                // memchr for the key's first byte, then compare the rest.
                guard let hit = memchr(base + from, Int32(key[0]), b.count - from) else { return nil }
                let i = UnsafeRawPointer(hit).assumingMemoryBound(to: UInt8.self) - base
                if i + key.count <= b.count && memcmp(base + i, key, key.count) == 0 {
                    let start = i + key.count
                    guard let q = memchr(base + start, Int32(UInt8(ascii: "\"")), b.count - start) else { return nil }
                    let end = UnsafeRawPointer(q).assumingMemoryBound(to: UInt8.self) - base
                    return (line.startIndex + start, line.startIndex + end)
                }
                from = i + 1
            }
            return nil
        }
    }

    /// Decodes base64 text (padded) into `floats`' bytes, resizing it to fit; false if malformed.
    static func decodeBase64(_ text: ArraySlice<UInt8>, into floats: inout [Float]) throws -> Bool {
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
    init(_ handle: FileHandle) { fd = handle.fileDescriptor }

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
