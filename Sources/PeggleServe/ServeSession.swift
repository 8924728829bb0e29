import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel

// The b64f32 and f32 encodings send floats' in-memory bytes as little-endian float32.
#if !_endian(little)
#error("peggle serve's binary observations assume a little-endian platform")
#endif

/// The `peggle serve` protocol: one JSON request per line in, one JSON reply per line out, in
/// order (docs/protocol.md); with `"obs_encoding": "f32"` a reply carrying observations is
/// followed by a binary frame of raw float32. A session holds at most one vector environment
/// and its snapshots, within a memory budget. It reads no files and writes nothing itself: the
/// tool gives it a level loader, an SVG renderer and (for the `rgb` render) a rasteriser, and
/// moves the lines. Requests are decoded in ServeRequests.swift, replies written in
/// ServeReplies.swift.
public final class ServeSession {
    /// Protocol version, in the hello line and in docs/protocol.md.
    public static let protocolVersion = 1
    /// Most snapshots kept at once.
    public static let maxSnapshots = 1024
    /// What one session may hold by default, bytes (1 GiB; `peggle serve --memory-budget MiB`):
    /// see `estimatedBytes`.
    public static let defaultMemoryBudget = 1 << 30

    /// Reads a level file; throws a message naming the file and the problem.
    public typealias LevelLoader = (String) throws -> Level
    /// Draws a game state with its latest shots as SVG.
    public typealias SVGRenderer = (GameState, [ShotResult]) -> String
    /// Draws a game state with its latest shots as RGB pixels into the buffer (resized to
    /// `height * width * 3` bytes if needed; rows top to bottom, R G B per pixel), `width` pixels
    /// wide (nil: the rasteriser's default), and returns the picture's size in pixels.
    public typealias RGBRenderer = (GameState, [ShotResult], Int?, inout [UInt8]) throws -> (width: Int, height: Int)
    /// Widths a `render` with format `rgb` may ask for, pixels.
    public static let rgbWidths = 16...4096

    let loadLevel: LevelLoader
    let renderSVG: SVGRenderer
    let renderRGB: RGBRenderer?
    /// What the `pixels` observation encoder draws with; nil: that encoder is refused.
    let rasterizer: (any BoardRasterizer)?
    /// What the `tier-*` distributions choose levels with; nil: those distributions are refused.
    let tierScreen: (any TierScreen)?
    /// Bytes the environments and snapshots of this session may hold, by `estimatedBytes`.
    public let memoryBudget: Int
    /// The pixels of the latest `rgb` render, reused from render to render.
    var pixels: [UInt8] = []
    package internal(set) var vec: VectorEnv?
    /// `estimatedBytes` of `vec`; every snapshot is counted at this size too.
    var envBytes = 0
    var encoding = ObservationEncoding.json
    var infoLayout = InfoLayout.rows
    package internal(set) var levelNames: [String] = []
    /// The environments' procedural levels, if they play those (names come from the seeds).
    package internal(set) var procedural: ProceduralLevels?
    var snapshots: [Int: VectorEnv] = [:]
    var nextSnapshot = 1
    /// Set by `close`: the loop stops after sending the reply.
    public private(set) var closed = false
    /// Why the latest request was refused (nil: it was not): the native library returns its code.
    package private(set) var lastError: EnvError?
    /// Successful `make`s so far: the native library's caller binds new buffers after each.
    package private(set) var makes = 0
    /// The reply buffer, reused from request to request.
    var buffer: [UInt8] = []
    /// The binary frame following the reply line (`f32` encoding): float arrays to send as raw
    /// little-endian float32, in order. They share storage with the environments, so nothing is
    /// copied; they are dropped once sent, before the next request could mutate the environments
    /// (holding them longer would force a copy-on-write of every observation buffer).
    public internal(set) var frame: [[Float]] = []

    /// `renderRGB` nil: `render` with format `rgb` is refused (`bad_request`); `rasterizer` nil:
    /// `make` with the `pixels` encoder is; `tierScreen` nil: `make` with a `tier-*` distribution is.
    public init(loadLevel: @escaping LevelLoader, renderSVG: @escaping SVGRenderer, renderRGB: RGBRenderer? = nil,
                rasterizer: (any BoardRasterizer)? = nil, tierScreen: (any TierScreen)? = nil,
                memoryBudget: Int = ServeSession.defaultMemoryBudget) {
        self.loadLevel = loadLevel
        self.renderSVG = renderSVG
        self.renderRGB = renderRGB
        self.rasterizer = rasterizer
        self.tierScreen = tierScreen
        self.memoryBudget = memoryBudget
    }

    /// The first line the server sends.
    public static var hello: String {
        var w = JSONWriter()
        w.beginObject()
        w.field("hello", "peggle serve")
        w.field("protocol", protocolVersion)
        w.field("engine", "peggle-gym \(PeggleGym.version)")
        w.endObject()
        return w.text
    }

    /// Serves until end of input or `close`: the hello line, then a reply per request line.
    /// `write` gets each reply's line bytes (without the newline) and its frame (the float arrays
    /// to send right after the line as raw little-endian float32, empty for most replies), and
    /// returns false when the client has gone away, which ends the loop too.
    public static func run(_ session: ServeSession, readLine: () -> String?,
                           write: (UnsafeBufferPointer<UInt8>, [[Float]]) -> Bool) {
        guard Array(hello.utf8).withUnsafeBufferPointer({ write($0, []) }) else { return }
        while !session.closed, let line = readLine() {
            if line.allSatisfy(\.isWhitespace) { continue }
            session.respond(to: line)
            let sent = session.buffer.withUnsafeBufferPointer { write($0, session.frame) }
            session.frame.removeAll()
            guard sent else { return }
        }
    }

    /// Takes over a copy of `other`'s environments as they are now (games, generators, autoreset
    /// state, latest shots) and how its replies are written, without its snapshots: the native
    /// library's copy of a session (a copy of a vector shares memory until either steps). This
    /// session keeps its own loader, renderers and budget.
    package func adoptEnvironments(of other: ServeSession) {
        vec = other.vec
        envBytes = other.envBytes
        encoding = other.encoding
        infoLayout = other.infoLayout
        levelNames = other.levelNames
        procedural = other.procedural
        snapshots = [:]
    }

    // MARK: Memory

    /// What a vector of `count` environments under `config` may hold, bytes, counted as if each
    /// environment's game had diverged from the others (as it has after a few steps): per
    /// environment, its observation and final-observation rows (4 bytes a float), its game state
    /// (16 KiB, plus 256 bytes per object of the largest level) and, with trajectories, its
    /// latest shot's ball paths (64 KiB), with the `pixels` encoder its rasteriser's buffers;
    /// plus each level's starting state once. Measured on First
    /// Steps with 128 object slots, a diverged copy holds about 35 KB per environment; this
    /// estimates 44 KB.
    /// With procedural levels of at most 1,000 seeds, the new game of every level generated is
    /// kept too (one state at the generator's largest level per seed), and with the `aim` encoder
    /// each kept level's start traces.
    public static func estimatedBytes(_ config: EnvConfig, count: Int) -> Int {
        let state = 16_384 + 256 * config.largestLevel
        // The pixels encoder's rasteriser keeps a picture (3 bytes a pixel) and a coverage mask (4).
        let encoder = config.observationEncoder
        let raster = encoder.kind == .pixels ? 7 * encoder.pixelWidth * encoder.pixelHeight : 0
        let perEnv = 2 * encoder.size * 4 + state + raster + (config.recordTrajectory ? 65_536 : 0)
        let kept = config.keptLevels
        return count * perEnv + kept * (state + encoder.keptBytesPerLevel)
    }

    /// Bytes in whole MiB (2^20 bytes), rounded up.
    static func megabytes(_ bytes: Int) -> String { "\((bytes + (1 << 20) - 1) >> 20) MiB" }

    // MARK: Requests

    /// The reply line to one request line (never throws; errors become error replies). Any
    /// frame is dropped; `handleWithFrame` keeps it.
    public func handle(_ line: String) -> String {
        handleWithFrame(line).line
    }

    /// The reply line to one request line and the bytes of the binary frame that follows it
    /// (empty unless the encoding is `f32` and the reply carries observations).
    public func handleWithFrame(_ line: String) -> (line: String, frame: [UInt8]) {
        respond(to: line)
        var bytes: [UInt8] = []
        for part in frame { part.withUnsafeBytes { bytes.append(contentsOf: $0) } }
        frame.removeAll()
        return (String(decoding: buffer, as: UTF8.self), bytes)
    }

    /// Writes the reply to `line` into `buffer`.
    func respond(to line: String) {
        frame.removeAll()
        var w = JSONWriter(takingOver: &buffer)
        reply(line, &w)
        swap(&buffer, &w.bytes)
    }

    func reply(_ line: String, _ out: inout JSONWriter) {
        lastError = nil
        let request: Request
        do {
            request = try Request.decode(line)
        } catch {
            lastError = error.failure
            out = errorReply(error.id, error.failure)
            return
        }
        do {
            var w = JSONWriter(takingOver: &out.bytes)
            defer { swap(&out.bytes, &w.bytes) }
            w.beginObject()
            writeId(&w, request.id)
            w.field("ok", true)
            switch request.command {
            case let .make(r): try make(r, &w)
            case .spaces: try spaces(&w)
            case let .reset(r): try reset(r, &w)
            case let .step(r): try step(r, &w)
            case let .render(r): try render(r, &w)
            case .snapshot: try snapshot(&w)
            case let .restore(k): try restore(k, &w)
            case let .dropSnapshot(k): try dropSnapshot(k)
            case .close: closed = true
            case .spec: Self.writeSpec(&w)
            case .saveState:
                w.key("state")
                try saveState().withUnsafeBytes { w.base64(bytes: $0) }
            case let .loadState(bytes):
                try loadState(bytes)
                let v = vec!
                writeObservations(&w, "obs", v.observations, rows: v.count, size: v.observationSize)
            }
            if !frame.isEmpty { w.field("frame_bytes", frame.reduce(0) { $0 + $1.count * 4 }) }
            w.endObject()
        } catch {
            // An error reply is a plain line: no frame follows it.
            frame.removeAll()
            let e = error as? EnvError ?? EnvError(.internal, "\(error)")
            lastError = e
            out = errorReply(request.id, e)
        }
    }

    func made() throws -> VectorEnv {
        guard let vec else { throw EnvError(.notMade, "send make first") }
        return vec
    }

    /// Checks an environment was made. Commands that change it mutate `vec` in place, never a
    /// copy: a copy would share every buffer and force copy-on-write of all of them.
    func requireMade() throws(EnvError) {
        guard vec != nil else { throw EnvError(.notMade, "send make first") }
    }

    // MARK: make, spaces

    func make(_ r: MakeRequest, _ w: inout JSONWriter) throws {
        var levels: [Level] = []
        for p in r.paths {
            do {
                levels.append(try loadLevel(p))
            } catch {
                throw EnvError(.levelError, "\(error)")
            }
        }
        if let mode = r.mode {
            for k in levels.indices { levels[k].mode = mode }
            for (k, l) in levels.enumerated() {
                if let issue = l.validate().first {
                    throw EnvError(.levelError, "\(r.paths[k]) with the given mode: \(issue)")
                }
            }
        }
        var config = r.config
        config.levels = config.procedural == nil ? levels : []
        config.rasterizer = rasterizer
        config.tierScreen = tierScreen
        let count = r.vector.count
        // Checked before anything is built: the refused request must not allocate what it asks for.
        let bytes = Self.estimatedBytes(config, count: count)
        guard bytes <= memoryBudget else {
            throw EnvError(.memoryBudget, "make: \(count) environments of \(config.observationEncoder.size) observation floats "
                + "would hold about \(Self.megabytes(bytes)); this server's budget is \(Self.megabytes(memoryBudget)) "
                + "(fewer num_envs or max_objects, or start it with a larger --memory-budget)")
        }
        vec = try VectorEnv(config: config, vector: r.vector)
        makes += 1
        envBytes = bytes
        encoding = r.encoding
        infoLayout = r.infoLayout
        levelNames = levels.map(\.name)
        procedural = config.procedural
        snapshots = [:]
        writeMade(&w, r)
        try spaces(&w)
    }

    func spaces(_ w: inout JSONWriter) throws {
        let v = try made()
        w.key("observation_space")
        Self.writeSpace(&w, v.observationSpace)
        w.key("action_space")
        Self.writeSpace(&w, v.actionSpace)
    }

    // MARK: reset, step

    func reset(_ r: ResetRequest, _ w: inout JSONWriter) throws {
        try performReset(r)
        let v = vec!
        writeObservations(&w, "obs", v.observations, rows: v.count, size: v.observationSize)
        writeInfos(&w, "infos", v.slots, .reset(mask: r.mask))
    }

    /// What `reset` does to the environments, without the reply (the native library writes
    /// the outcome into its caller's buffers instead).
    package func performReset(_ r: ResetRequest) throws(EnvError) {
        try requireMade()
        var level: Int?
        switch r.level {
        case let .name(name)?:
            if procedural != nil {
                throw EnvError.badRequest("reset: \"options.level\" is a name, but procedural levels are chosen by index "
                    + "(the level seed minus start_level)")
            }
            guard let k = levelNames.firstIndex(of: name) else {
                throw EnvError.badRequest("reset: no level named \(MessageText.quoted(name))")
            }
            level = k
        case let .index(k)?: level = k
        case nil: level = nil
        }
        try vec!.reset(seed: r.seed, mask: r.mask, level: level)
    }

    func step(_ r: StepRequest, _ w: inout JSONWriter) throws {
        try performStep(r.actions)
        let v = vec!
        writeObservations(&w, "obs", v.observations, rows: v.count, size: v.observationSize)
        // The slots' fields are read in place: iterating the slots by value would copy each
        // slot's two infos.
        var anyFinal = false
        v.slots.withUnsafeBufferPointer { slots in
            w.array("rewards", slots.indices) { $0.number(slots[$1].reward) }
            w.array("terminated", slots.indices) { $0.bool(slots[$1].terminated) }
            w.array("truncated", slots.indices) { $0.bool(slots[$1].truncated) }
            anyFinal = slots.indices.contains { slots[$0].hasFinal }
        }
        writeInfos(&w, "infos", v.slots, .step)
        if anyFinal {
            writeObservations(&w, "final_obs", v.finalObservations, rows: v.count, size: v.observationSize)
            v.slots.withUnsafeBufferPointer { slots in w.array("final_mask", slots.indices) { $0.bool(slots[$1].hasFinal) } }
            writeInfos(&w, "final_infos", v.slots, .final)
        }
    }

    /// What `step` does to the environments, without the reply.
    package func performStep(_ actions: [Double]) throws(EnvError) {
        try requireMade()
        try vec!.step(actions)
    }

    // MARK: render, snapshots

    func render(_ r: RenderRequest, _ w: inout JSONWriter) throws {
        let v = try made()
        guard r.env < v.count else { throw EnvError.badRequest("render: env \(r.env) is outside 0..<\(v.count)") }
        let env = v.envs[r.env]
        guard let game = env.game else { throw EnvError(.notReset, "render: call reset first") }
        switch r.format {
        case .svg:
            w.field(r.format.rawValue, renderSVG(game, env.lastShot.map { [$0] } ?? []))
        case .ansi:
            w.field("text", TextRenderer.render(game))
        case .rgb:
            guard let renderRGB else {
                throw EnvError.badRequest("render: format rgb needs a rasteriser, and this server has none")
            }
            let size: (width: Int, height: Int)
            do {
                size = try renderRGB(game, env.lastShot.map { [$0] } ?? [], r.width, &pixels)
            } catch {
                throw EnvError.badRequest("render: \(error)")
            }
            guard size.width > 0, size.height > 0, pixels.count == size.width * size.height * 3 else {
                throw EnvError(.internal, "render: the rasteriser gave \(pixels.count) bytes for \(size.width) x \(size.height) pixels")
            }
            w.field("width", size.width)
            w.field("height", size.height)
            w.key("rgb_b64")
            pixels.withUnsafeBytes { w.base64(bytes: $0) }
        }
    }

    func snapshot(_ w: inout JSONWriter) throws {
        let v = try made()
        guard snapshots.count < Self.maxSnapshots else {
            throw EnvError.badRequest("snapshot: \(Self.maxSnapshots) snapshots are kept already; drop some with drop_snapshot")
        }
        // A snapshot shares memory with the environments until they diverge; counted as if they had.
        let held = envBytes * (snapshots.count + 2)
        guard held <= memoryBudget else {
            throw EnvError(.memoryBudget, "snapshot: another copy of \(v.count) environments (about "
                + "\(Self.megabytes(envBytes))) would bring this session to about \(Self.megabytes(held)), past its "
                + "budget of \(Self.megabytes(memoryBudget)); drop snapshots with drop_snapshot")
        }
        let k = nextSnapshot
        nextSnapshot += 1
        snapshots[k] = v
        w.field("snapshot", k)
    }

    func restore(_ k: Int, _ w: inout JSONWriter) throws {
        try requireMade()
        guard let s = snapshots[k] else { throw EnvError(.noSnapshot, "restore: no snapshot \(k)") }
        vec = s
        writeObservations(&w, "obs", s.observations, rows: s.count, size: s.observationSize)
    }

    func dropSnapshot(_ k: Int) throws {
        try requireMade()
        guard snapshots.removeValue(forKey: k) != nil else { throw EnvError(.noSnapshot, "drop_snapshot: no snapshot \(k)") }
    }
}
