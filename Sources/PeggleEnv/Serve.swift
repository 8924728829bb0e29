import Foundation
import PeggleGame

// The b64f32 and f32 encodings send floats' in-memory bytes as little-endian float32.
#if !_endian(little)
#error("peggle serve's binary observations assume a little-endian platform")
#endif

/// The `peggle serve` protocol: one JSON request per line in, one JSON reply per line out, in
/// order (docs/protocol.md); with `"obs_encoding": "f32"` a reply carrying observations is
/// followed by a binary frame of raw float32. A session holds at most one vector environment. It reads no files
/// and writes nothing itself: the tool gives it a level loader, an SVG renderer and (for the `rgb`
/// render) a rasteriser, and moves the lines.
public final class ServeSession {
    /// Protocol version, in the hello line and in docs/protocol.md.
    public static let protocolVersion = 1
    /// Most snapshots kept at once.
    public static let maxSnapshots = 1024

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
    /// The pixels of the latest `rgb` render, reused from render to render.
    var pixels: [UInt8] = []
    var vec: VectorEnv?
    var encoding = "json"
    /// `rows` (one info object per environment) or `columns` (Gymnasium's vector-info layout).
    var infoLayout = "rows"
    var levelNames: [String] = []
    var snapshots: [Int: VectorEnv] = [:]
    var nextSnapshot = 1
    /// Set by `close`: the loop stops after sending the reply.
    public private(set) var closed = false
    /// The reply buffer, reused from request to request.
    var buffer: [UInt8] = []
    /// The binary frame following the reply line (`f32` encoding): float arrays to send as raw
    /// little-endian float32, in order. They share storage with the environments, so nothing is
    /// copied; they are dropped once sent, before the next request could mutate the environments
    /// (holding them longer would force a copy-on-write of every observation buffer).
    public private(set) var frame: [[Float]] = []

    /// `renderRGB` nil: `render` with format `rgb` is refused (`bad_request`).
    public init(loadLevel: @escaping LevelLoader, renderSVG: @escaping SVGRenderer, renderRGB: RGBRenderer? = nil) {
        self.loadLevel = loadLevel
        self.renderSVG = renderSVG
        self.renderRGB = renderRGB
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

    // MARK: Requests

    struct Failure: Error {
        var code: String
        var message: String
        init(_ code: String, _ message: String) {
            self.code = code
            self.message = message
        }
    }

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
        var id: Any?
        do {
            guard let obj = RequestJSON.object(line) else {
                throw Failure("bad_json", "the line is not a JSON object (note: JSON has no NaN or Infinity, and numbers must fit a double)")
            }
            id = obj["id"]
            guard let cmd = obj["cmd"] as? String else { throw Failure("bad_request", "missing \"cmd\" (a string)") }
            var w = JSONWriter(takingOver: &out.bytes)
            defer { swap(&out.bytes, &w.bytes) }
            w.beginObject()
            writeId(&w, id)
            w.field("ok", true)
            switch cmd {
            case "make": try make(obj, &w)
            case "spaces": try spaces(&w)
            case "reset": try reset(obj, &w)
            case "step": try step(obj, &w)
            case "render": try render(obj, &w)
            case "snapshot": try snapshot(&w)
            case "restore": try restore(obj, &w)
            case "drop_snapshot": try dropSnapshot(obj)
            case "close": closed = true
            default:
                throw Failure("unknown_command", "unknown command \"\(cmd)\" (expected one of: make, spaces, reset, step, render, snapshot, restore, drop_snapshot, close)")
            }
            if !frame.isEmpty { w.field("frame_bytes", frame.reduce(0) { $0 + $1.count * 4 }) }
            w.endObject()
        } catch {
            // An error reply is a plain line: no frame follows it.
            frame.removeAll()
            replyError(id, error, &out)
        }
    }

    func replyError(_ id: Any?, _ error: Error, _ out: inout JSONWriter) {
        switch error {
        case let f as Failure:
            out = errorReply(id, f.code, f.message)
        case let e as EnvError:
            out = errorReply(id, e.code, e.message)
        default:
            out = errorReply(id, "internal", "\(error)")
        }
    }

    func writeId(_ w: inout JSONWriter, _ id: Any?) {
        guard let id else { return }
        w.key("id")
        switch id {
        case let s as String: w.string(s)
        case let n as NSNumber where Self.isBool(n): w.bool(n.boolValue)
        case let n as NSNumber: w.number(n.doubleValue)
        default: w.null()
        }
    }

    func errorReply(_ id: Any?, _ code: String, _ message: String) -> JSONWriter {
        var w = JSONWriter()
        w.beginObject()
        writeId(&w, id)
        w.field("ok", false)
        w.key("error")
        w.beginObject()
        w.field("code", code)
        w.field("message", message)
        w.endObject()
        w.endObject()
        return w
    }

    func made() throws -> VectorEnv {
        guard let vec else { throw Failure("not_made", "send make first") }
        return vec
    }

    /// Checks an environment was made. Commands that change it mutate `vec` in place, never a
    /// copy: a copy would share every buffer and force copy-on-write of all of them.
    func requireMade() throws {
        guard vec != nil else { throw Failure("not_made", "send make first") }
    }

    // MARK: make, spaces

    func make(_ o: [String: Any], _ w: inout JSONWriter) throws {
        let known: Set<String> = ["id", "cmd", "levels", "level", "level_order", "num_envs", "encoder", "max_objects",
                                  "reward", "autoreset", "action", "bins", "max_shots", "threads", "seed",
                                  "obs_encoding", "trajectory", "mode", "info_layout"]
        if let unknown = o.keys.filter({ !known.contains($0) }).sorted().first {
            throw Failure("bad_request", "make: unknown field \"\(unknown)\"")
        }
        var paths: [String] = []
        if let one = o["level"] { paths = [try Self.string(one, "level")] }
        if let many = o["levels"] {
            guard let list = many as? [Any], !list.isEmpty else { throw Failure("bad_request", "make: \"levels\" must be a non-empty list of level files") }
            paths += try list.map { try Self.string($0, "levels[]") }
        }
        guard !paths.isEmpty else { throw Failure("bad_request", "make: give \"levels\" (a list of level files) or \"level\"") }
        var levels: [Level] = []
        for p in paths {
            do {
                levels.append(try loadLevel(p))
            } catch {
                throw Failure("level_error", "\(error)")
            }
        }
        if let m = o["mode"] {
            let mode = try Self.mode(m)
            for k in levels.indices { levels[k].mode = mode }
            for (k, l) in levels.enumerated() {
                if let issue = l.validate().first {
                    throw Failure("level_error", "\(paths[k]) with the given mode: \(issue)")
                }
            }
        }
        var config = EnvConfig(levels: levels)
        config.order = try Self.choice(o["level_order"], "level_order", default: .cycle)
        let encoderKind: EncoderKind = try Self.choice(o["encoder"], "encoder", default: .objects)
        config.encoder = ObservationEncoder(kind: encoderKind, maxObjects: try Self.int(o["max_objects"], "max_objects", default: 128, 1...10_000))
        config.reward = try Self.choice(o["reward"], "reward", default: .progress)
        switch try Self.string(o["action"] ?? "continuous", "action") {
        case "continuous": config.action = .continuous
        case "discrete": config.action = .discrete(bins: try Self.int(o["bins"], "bins", default: 31, 2...100_000))
        case let other: throw Failure("bad_request", "make: action \"\(other)\" is not continuous or discrete")
        }
        config.maxShots = try Self.int(o["max_shots"], "max_shots", default: 100, 1...1_000_000)
        config.recordTrajectory = try Self.bool(o["trajectory"], "trajectory", default: false)
        let count = try Self.int(o["num_envs"], "num_envs", default: 1, 1...4096)
        let threads = try Self.int(o["threads"], "threads", default: 1, 1...256)
        let seed = UInt64(try Self.int(o["seed"], "seed", default: 0, 0...Int.max))
        let autoreset: AutoresetMode = try Self.choice(o["autoreset"], "autoreset", default: .nextStep)
        let enc = try Self.string(o["obs_encoding"] ?? "json", "obs_encoding")
        guard ["json", "b64f32", "f32"].contains(enc) else {
            throw Failure("bad_request", "make: obs_encoding \"\(enc)\" is not json, b64f32 or f32")
        }
        let layout = try Self.string(o["info_layout"] ?? "rows", "info_layout")
        guard layout == "rows" || layout == "columns" else {
            throw Failure("bad_request", "make: info_layout \"\(layout)\" is not rows or columns")
        }
        vec = try VectorEnv(config: config, count: count, autoreset: autoreset, threads: threads, seed: seed)
        encoding = enc
        infoLayout = layout
        levelNames = levels.map(\.name)
        snapshots = [:]
        w.field("num_envs", count)
        w.field("autoreset", autoreset.rawValue)
        w.field("obs_encoding", enc)
        w.field("info_layout", layout)
        w.key("levels")
        w.beginArray()
        for n in levelNames { w.string(n) }
        w.endArray()
        try spaces(&w)
    }

    func spaces(_ w: inout JSONWriter) throws {
        let v = try made()
        w.key("observation_space")
        Self.writeSpace(&w, v.observationSpace)
        w.key("action_space")
        Self.writeSpace(&w, v.actionSpace)
    }

    static func writeSpace(_ w: inout JSONWriter, _ s: Space) {
        w.beginObject()
        switch s {
        case let .box(low, high, shape):
            w.field("type", "box")
            w.field("dtype", "float32")
            w.key("shape")
            w.beginArray()
            for d in shape { w.int(d) }
            w.endArray()
            w.key("low"); w.number(low)
            w.key("high"); w.number(high)
        case let .discrete(n):
            w.field("type", "discrete")
            w.field("dtype", "int64")
            w.field("n", n)
        }
        w.endObject()
    }

    // MARK: reset, step

    func reset(_ o: [String: Any], _ w: inout JSONWriter) throws {
        try requireMade()
        let options = (o["options"] as? [String: Any]) ?? [:]
        if o["options"] != nil && !(o["options"] is [String: Any]) && !(o["options"] is NSNull) {
            throw Failure("bad_request", "reset: \"options\" must be an object")
        }
        var seed: UInt64?
        if let s = o["seed"], !(s is NSNull) { seed = UInt64(try Self.int(s, "seed", default: 0, 0...Int.max)) }
        var mask: [Bool]?
        if let m = o["reset_mask"] ?? options["reset_mask"], !(m is NSNull) {
            guard let list = m as? [Any] else { throw Failure("bad_request", "reset: \"reset_mask\" must be a list of booleans") }
            mask = try list.map { try Self.bool($0, "reset_mask[]", default: false) }
        }
        var level: Int?
        if let l = options["level"], !(l is NSNull) {
            if let name = l as? String {
                guard let k = levelNames.firstIndex(of: name) else { throw Failure("bad_request", "reset: no level named \"\(name)\"") }
                level = k
            } else {
                level = try Self.int(l, "options.level", default: 0, 0...Int.max)
            }
        }
        try vec!.reset(seed: seed, mask: mask, level: level)
        let v = vec!
        writeObservations(&w, "obs", v.observations, rows: v.count, size: v.observationSize)
        writeInfos(&w, "infos", count: v.count) { i in (mask?[i] ?? true) ? (v.slots[i].info, true) : nil }
    }

    func step(_ o: [String: Any], _ w: inout JSONWriter) throws {
        try requireMade()
        guard let raw = o["actions"] else { throw Failure("bad_request", "step: missing \"actions\"") }
        let list: [Any] = (raw as? [Any]) ?? [raw]
        var actions: [Double] = []
        actions.reserveCapacity(list.count)
        for (i, a) in list.enumerated() {
            guard let n = a as? NSNumber, !Self.isBool(n) else {
                throw Failure("bad_action", "step: action \(i) is not a number")
            }
            actions.append(n.doubleValue)
        }
        try vec!.step(actions)
        let v = vec!
        writeObservations(&w, "obs", v.observations, rows: v.count, size: v.observationSize)
        w.array("rewards", v.slots) { $0.number($1.reward) }
        w.array("terminated", v.slots) { $0.bool($1.terminated) }
        w.array("truncated", v.slots) { $0.bool($1.truncated) }
        writeInfos(&w, "infos", count: v.count) { i in (v.slots[i].info, v.slots[i].info.shot == nil) }
        if v.slots.contains(where: \.hasFinal) {
            writeObservations(&w, "final_obs", v.finalObservations, rows: v.count, size: v.observationSize)
            w.array("final_mask", v.slots) { $0.bool($1.hasFinal) }
            writeInfos(&w, "final_infos", count: v.count) { i in v.slots[i].hasFinal ? (v.slots[i].finalInfo, false) : nil }
        }
    }

    /// `key`: the infos of `count` environments, in the session's layout. `item(i)` is
    /// environment i's info and whether it comes from a reset (which adds `game_seed`), or nil
    /// for an environment that has none.
    func writeInfos(_ w: inout JSONWriter, _ key: String, count: Int, _ item: (Int) -> (EnvInfo, Bool)?) {
        w.key(key)
        if infoLayout == "columns" {
            writeInfoColumns(&w, count: count, item)
            return
        }
        w.beginArray()
        for i in 0..<count {
            if let (info, reset) = item(i) { writeInfo(&w, info, reset: reset) } else { w.null() }
        }
        w.endArray()
    }

    /// Gymnasium's vector-info layout: an object whose every key maps to `count` values and
    /// `_key` to `count` booleans saying which environments have it (the others hold a filler:
    /// 0, false or null); `hits` nests the same way. Keys no environment has are left out, and
    /// the keys come in the order of the rows layout.
    func writeInfoColumns(_ w: inout JSONWriter, count: Int, _ item: (Int) -> (EnvInfo, Bool)?) {
        w.beginObject()
        func column(_ name: String, _ has: (EnvInfo, Bool) -> Bool, filler: (inout JSONWriter) -> Void,
                    _ value: (inout JSONWriter, EnvInfo) -> Void) {
            var any = false
            for i in 0..<count { if let (info, reset) = item(i), has(info, reset) { any = true; break } }
            guard any else { return }
            w.key(name)
            w.beginArray()
            for i in 0..<count {
                if let (info, reset) = item(i), has(info, reset) { value(&w, info) } else { filler(&w) }
            }
            w.endArray()
            w.key("_" + name)
            w.beginArray()
            for i in 0..<count {
                if let (info, reset) = item(i) { w.bool(has(info, reset)) } else { w.bool(false) }
            }
            w.endArray()
        }
        let always: (EnvInfo, Bool) -> Bool = { _, _ in true }
        let shot: (EnvInfo, Bool) -> Bool = { info, _ in info.shot != nil }
        let zero: (inout JSONWriter) -> Void = { $0.int(0) }
        column("level", always, filler: zero) { $0.int($1.level) }
        column("level_name", always, filler: { $0.null() }) { w, info in
            w.string(levelNames.indices.contains(info.level) ? levelNames[info.level] : "")
        }
        column("score", always, filler: zero) { $0.int($1.score) }
        column("balls_left", always, filler: zero) { $0.int($1.ballsLeft) }
        column("orange_left", always, filler: zero) { $0.int($1.orangeLeft) }
        column("shots", always, filler: zero) { $0.int($1.shots) }
        column("status", always, filler: { $0.null() }) { $0.string($1.status.rawValue) }
        column("won", always, filler: { $0.bool(false) }) { $0.bool($1.status == .won) }
        column("game_seed", { _, reset in reset }, filler: zero) { $0.int($1.gameSeed) }
        column("angle", shot, filler: zero) { $0.number($1.shot!.angle) }
        column("pegs_hit", shot, filler: zero) { $0.int($1.shot!.hits.total) }
        var anyShot = false
        for i in 0..<count { if let (info, _) = item(i), info.shot != nil { anyShot = true; break } }
        if anyShot {
            w.key("hits")
            w.beginObject()
            for k in PegKind.allCases {
                column(k.rawValue, shot, filler: zero) { $0.int($1.shot!.hits[k]) }
            }
            w.endObject()
            w.key("_hits")
            w.beginArray()
            for i in 0..<count { w.bool(item(i).map { $0.0.shot != nil } ?? false) }
            w.endArray()
        }
        column("points", shot, filler: zero) { $0.int($1.shot!.points) }
        column("free_balls", shot, filler: zero) { $0.int($1.shot!.freeBalls) }
        column("caught", shot, filler: zero) { $0.int($1.shot!.caught) }
        column("trajectory", { info, _ in info.shot?.trajectory != nil }, filler: { $0.null() }) { w, info in
            writeTrajectory(&w, info.shot!.trajectory!)
        }
        w.endObject()
    }

    /// Rows of observations as nested JSON arrays (`key`), base64 of little-endian float32
    /// (`key_b64`), or (`f32`) their byte count `key_bytes` in the line and the floats themselves
    /// appended to the frame; with their shape.
    func writeObservations(_ w: inout JSONWriter, _ key: String, _ values: [Float], rows: Int, size: Int) {
        if encoding == "f32" {
            w.field(key + "_bytes", values.count * 4)
            frame.append(values)
        } else if encoding == "b64f32" {
            w.key(key + "_b64")
            // On the environments' own threads: the encoding is the serial part of a step.
            values.withUnsafeBufferPointer { w.base64($0, threads: vec?.threads ?? 1) }
        } else {
            w.key(key)
            w.beginArray()
            for r in 0..<rows {
                w.beginArray()
                for k in (r * size)..<((r + 1) * size) { w.number(values[k]) }
                w.endArray()
            }
            w.endArray()
        }
        w.key(key + "_shape")
        w.beginArray()
        w.int(rows)
        w.int(size)
        w.endArray()
    }

    func writeInfo(_ w: inout JSONWriter, _ info: EnvInfo, reset: Bool) {
        w.beginObject()
        w.field("level", info.level)
        w.field("level_name", levelNames.indices.contains(info.level) ? levelNames[info.level] : "")
        w.field("score", info.score)
        w.field("balls_left", info.ballsLeft)
        w.field("orange_left", info.orangeLeft)
        w.field("shots", info.shots)
        w.field("status", info.status.rawValue)
        w.field("won", info.status == .won)
        if reset { w.key("game_seed"); w.int(info.gameSeed) }
        if let shot = info.shot {
            w.field("angle", shot.angle)
            w.field("pegs_hit", shot.hits.total)
            w.key("hits")
            w.beginObject()
            for k in PegKind.allCases { w.field(k.rawValue, shot.hits[k]) }
            w.endObject()
            w.field("points", shot.points)
            w.field("free_balls", shot.freeBalls)
            w.field("caught", shot.caught)
            if let t = shot.trajectory {
                w.key("trajectory")
                writeTrajectory(&w, t)
            }
        }
        w.endObject()
    }

    /// A shot's ball paths: one list of `[x, y]` points (board units, to 0.01) per path.
    func writeTrajectory(_ w: inout JSONWriter, _ t: Trajectory) {
        w.beginArray()
        for path in t.paths {
            w.beginArray()
            for p in path.points {
                w.beginArray()
                w.number((p.x * 100).rounded() / 100)
                w.number((p.y * 100).rounded() / 100)
                w.endArray()
            }
            w.endArray()
        }
        w.endArray()
    }

    // MARK: render, snapshots

    func render(_ o: [String: Any], _ w: inout JSONWriter) throws {
        let v = try made()
        let i = try Self.int(o["env"], "env", default: 0, 0...Int.max)
        guard i < v.count else { throw Failure("bad_request", "render: env \(i) is outside 0..<\(v.count)") }
        let env = v.envs[i]
        guard let game = env.game else { throw Failure("not_reset", "render: call reset first") }
        let format = try Self.string(o["format"] ?? "svg", "format")
        if let width = o["width"], !(width is NSNull), format != "rgb" {
            throw Failure("bad_request", "render: \"width\" is \(width), but only format rgb takes a width")
        }
        switch format {
        case "svg":
            w.field("svg", renderSVG(game, env.lastShot.map { [$0] } ?? []))
        case "ansi":
            w.field("text", TextRenderer.render(game))
        case "rgb":
            guard let renderRGB else {
                throw Failure("bad_request", "render: format rgb needs a rasteriser, and this server has none")
            }
            var width: Int?
            if let v = o["width"], !(v is NSNull) { width = try Self.int(v, "width", default: 0, Self.rgbWidths) }
            let size: (width: Int, height: Int)
            do {
                size = try renderRGB(game, env.lastShot.map { [$0] } ?? [], width, &pixels)
            } catch {
                throw Failure("bad_request", "render: \(error)")
            }
            guard size.width > 0, size.height > 0, pixels.count == size.width * size.height * 3 else {
                throw Failure("internal", "render: the rasteriser gave \(pixels.count) bytes for \(size.width) x \(size.height) pixels")
            }
            w.field("width", size.width)
            w.field("height", size.height)
            w.key("rgb_b64")
            pixels.withUnsafeBytes { w.base64(bytes: $0) }
        case let other:
            throw Failure("bad_request", "render: format \"\(other)\" is not svg, ansi or rgb")
        }
    }

    func snapshot(_ w: inout JSONWriter) throws {
        let v = try made()
        guard snapshots.count < Self.maxSnapshots else {
            throw Failure("bad_request", "snapshot: \(Self.maxSnapshots) snapshots are kept already; drop some with drop_snapshot")
        }
        let k = nextSnapshot
        nextSnapshot += 1
        snapshots[k] = v
        w.field("snapshot", k)
    }

    func restore(_ o: [String: Any], _ w: inout JSONWriter) throws {
        _ = try made()
        let k = try Self.int(o["snapshot"], "snapshot", default: -1, Int.min...Int.max)
        guard let s = snapshots[k] else { throw Failure("no_snapshot", "restore: no snapshot \(k)") }
        vec = s
        writeObservations(&w, "obs", s.observations, rows: s.count, size: s.observationSize)
    }

    func dropSnapshot(_ o: [String: Any]) throws {
        let k = try Self.int(o["snapshot"], "snapshot", default: -1, Int.min...Int.max)
        guard snapshots.removeValue(forKey: k) != nil else { throw Failure("no_snapshot", "drop_snapshot: no snapshot \(k)") }
    }

    // MARK: Field readers

    /// Whether a JSON value JSONSerialization gave is a boolean (it bridges true to 1 otherwise).
    static func isBool(_ n: NSNumber) -> Bool { String(cString: n.objCType) == "c" }

    static func string(_ v: Any, _ name: String) throws -> String {
        guard let s = v as? String else { throw Failure("bad_request", "\"\(name)\" must be a string") }
        return s
    }

    static func int(_ v: Any?, _ name: String, default d: Int, _ range: ClosedRange<Int>) throws -> Int {
        guard let v, !(v is NSNull) else { return d }
        guard let n = v as? NSNumber, !isBool(n) else { throw Failure("bad_request", "\"\(name)\" must be a whole number") }
        let value: Int
        switch String(cString: n.objCType) {
        case "c", "s", "i", "l", "q":
            value = n.int64Value == Int64(Int.min) ? Int.min : Int(n.int64Value)  // exact, all 64 bits
        case "C", "S", "I", "L", "Q":
            guard n.uint64Value <= UInt64(Int.max) else {
                throw Failure("bad_request", "\"\(name)\" is \(n.uint64Value); it must be in \(range.lowerBound)...\(range.upperBound)")
            }
            value = Int(n.uint64Value)
        default:
            let x = n.doubleValue
            guard x == x.rounded(), let exact = Int(exactly: x) else {
                throw Failure("bad_request", "\"\(name)\" must be a whole number")
            }
            value = exact
        }
        guard range.contains(value) else {
            throw Failure("bad_request", "\"\(name)\" is \(value); it must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    static func bool(_ v: Any?, _ name: String, default d: Bool) throws -> Bool {
        guard let v, !(v is NSNull) else { return d }
        guard let n = v as? NSNumber, isBool(n) else {
            throw Failure("bad_request", "\"\(name)\" must be true or false")
        }
        return n.boolValue
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ v: Any?, _ name: String, default d: T) throws -> T
    where T.RawValue == String {
        guard let v, !(v is NSNull) else { return d }
        let s = try string(v, name)
        guard let c = T(rawValue: s) else {
            throw Failure("bad_request", "\"\(name)\" is \"\(s)\"; expected one of: \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return c
    }

    /// A `mode` object shaped like the level file's.
    static func mode(_ v: Any) throws -> GameMode {
        guard let o = v as? [String: Any], let type = o["type"] as? String else {
            throw Failure("bad_request", "\"mode\" must be an object with a \"type\"")
        }
        switch type {
        case "classic":
            return .classic(balls: try int(o["balls"], "mode.balls", default: 10, 1...99))
        case "beat_the_score":
            let limit = (o["time_limit"] as? NSNumber)?.doubleValue ?? 120
            return .beatTheScore(targetScore: try int(o["target_score"], "mode.target_score", default: 50_000, 1...100_000_000),
                                 timeLimit: limit)
        case "dodge":
            return .dodge(shots: try int(o["shots"], "mode.shots", default: 5, 1...99))
        default:
            throw Failure("bad_request", "mode type \"\(type)\" is not classic, beat_the_score or dodge")
        }
    }
}
