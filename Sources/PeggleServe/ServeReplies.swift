import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel

// How `peggle serve` writes its replies: one JSON line into the session's reused buffer, and
// with `obs_encoding` `f32` the observations as a binary frame after it (docs/protocol.md).

/// One key of an info, in the order replies write it. Both layouts (rows and columns) are
/// written from the one table, `ServeSession.infoKeys`, so they cannot disagree on a key.
struct InfoKey: Sendable {
    let name: String
    /// Whether an info has this key; the Bool says whether the info comes from a reset.
    let has: @Sendable (EnvInfo, Bool) -> Bool
    /// What an environment without the key holds in the columns layout.
    let filler: @Sendable (inout JSONWriter) -> Void
    /// Writes the value (unused when the key nests `keys`).
    let write: @Sendable (inout JSONWriter, EnvInfo, ServeSession) -> Void
    /// The keys of a nested object (`hits`); they share this key's presence.
    var keys: [InfoKey] = []

    static let zero: @Sendable (inout JSONWriter) -> Void = { $0.int(0) }
    static let null: @Sendable (inout JSONWriter) -> Void = { $0.null() }
    static let always: @Sendable (EnvInfo, Bool) -> Bool = { _, _ in true }
    static let shot: @Sendable (EnvInfo, Bool) -> Bool = { info, _ in info.shot != nil }

    static func int(_ name: String, _ has: @escaping @Sendable (EnvInfo, Bool) -> Bool = always,
                    _ value: @escaping @Sendable (EnvInfo) -> Int) -> InfoKey {
        InfoKey(name: name, has: has, filler: zero) { w, info, _ in w.int(value(info)) }
    }
}

extension ServeSession {
    /// The keys of an info, in the order both layouts write them (docs/protocol.md).
    static let infoKeys: [InfoKey] = [
        .int("level") { $0.level },
        InfoKey(name: "level_name", has: InfoKey.always, filler: InfoKey.null) { w, info, s in w.string(s.levelName(info)) },
        InfoKey(name: "level_seed", has: { info, _ in info.levelSeed != nil }, filler: InfoKey.zero) { w, info, _ in w.int(info.levelSeed!) },
        .int("score") { $0.score },
        .int("balls_left") { $0.ballsLeft },
        .int("orange_left") { $0.orangeLeft },
        .int("shots") { $0.shots },
        InfoKey(name: "status", has: InfoKey.always, filler: InfoKey.null) { w, info, _ in w.string(info.status.rawValue) },
        InfoKey(name: "won", has: InfoKey.always, filler: { $0.bool(false) }) { w, info, _ in w.bool(info.status == .won) },
        InfoKey(name: "game_seed", has: { _, reset in reset }, filler: InfoKey.zero) { w, info, _ in w.int(info.gameSeed) },
        InfoKey(name: "angle", has: InfoKey.shot, filler: InfoKey.zero) { w, info, _ in w.number(info.shot!.angle) },
        InfoKey(name: "fired_angle", has: InfoKey.shot, filler: InfoKey.zero) { w, info, _ in w.number(info.shot!.firedAngle) },
        .int("pegs_hit", InfoKey.shot) { $0.shot!.hits.total },
        InfoKey(name: "hits", has: InfoKey.shot, filler: InfoKey.zero, write: { _, _, _ in },
                keys: PegKind.allCases.map { kind in .int(kind.rawValue, InfoKey.shot) { $0.shot!.hits[kind] } }),
        .int("points", InfoKey.shot) { $0.shot!.points },
        .int("free_balls", InfoKey.shot) { $0.shot!.freeBalls },
        .int("caught", InfoKey.shot) { $0.shot!.caught },
        InfoKey(name: "trajectory", has: { info, _ in info.shot?.trajectory != nil }, filler: InfoKey.null) { w, info, s in
            s.writeTrajectory(&w, info.shot!.trajectory!)
        },
    ]

    /// `"id": ...`, echoing the request's id as it came.
    func writeId(_ w: inout JSONWriter, _ id: RequestID?) {
        guard let id else { return }
        w.key("id")
        switch id {
        case let .string(s): w.string(s)
        case let .bool(b): w.bool(b)
        case let .double(d): w.number(d)
        case let .int(i): w.int(i)
        case let .uint(u): w.int(u)
        }
    }

    /// An error reply (a plain line: no frame follows it). The message is cut to
    /// `MessageText.messageLimit` characters, so no input echoes back unbounded.
    func errorReply(_ id: RequestID?, _ error: EnvError) -> JSONWriter {
        var w = JSONWriter()
        w.beginObject()
        writeId(&w, id)
        w.field("ok", false)
        w.key("error")
        w.beginObject()
        w.field("code", error.code.rawValue)
        w.field("message", MessageText.cut(error.message, to: MessageText.messageLimit))
        w.endObject()
        w.endObject()
        return w
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
        case let .image(shape):
            w.field("type", "box")
            w.field("dtype", "uint8")
            w.key("shape")
            w.beginArray()
            for d in shape { w.int(d) }
            w.endArray()
            w.field("low", 0)
            w.field("high", 255)
        case let .discrete(n):
            w.field("type", "discrete")
            w.field("dtype", "int64")
            w.field("n", n)
        }
        w.endObject()
    }

    /// `spec`: what this server accepts. Every `make` field with its type, range or choices,
    /// default and doc line (from `MakeRequest.options`, the table the decoder reads), the
    /// commands, the error codes and the render formats.
    static func writeSpec(_ w: inout JSONWriter) {
        w.field("protocol", protocolVersion)
        w.field("engine", "peggle-gym \(PeggleGym.version)")
        w.array("commands", CommandName.allCases) { $0.string($1.rawValue) }
        w.array("error_codes", ErrorCode.allCases) { $0.string($1.rawValue) }
        w.array("render_formats", RenderFormat.allCases) { $0.string($1.rawValue) }
        let defaults = MakeRequest()
        w.key("make")
        w.beginArray()
        for o in MakeRequest.options {
            w.beginObject()
            w.field("name", o.name)
            switch o.kind {
            case let .int(range):
                w.field("type", "int")
                w.field("min", range.lowerBound)
                w.field("max", range.upperBound)
            case let .number(range):
                w.field("type", "number")
                w.field("min", range.lowerBound)
                w.field("max", range.upperBound)
            case .bool:
                w.field("type", "bool")
            case let .choice(names):
                w.field("type", "choice")
                w.array("choices", names) { $0.string($1) }
            case .path:
                w.field("type", "path")
            case .paths:
                w.field("type", "paths")
            case let .choices(names):
                w.field("type", "choices")
                w.array("choices", names) { $0.string($1) }
            case .mode:
                w.field("type", "mode")
                w.key("modes")
                w.beginObject()
                for kind in GameModeKind.allCases {
                    w.key(kind.rawValue)
                    w.beginObject()
                    switch kind.defaultMode {
                    case let .classic(balls): w.field("balls", balls)
                    case let .beatTheScore(target, limit): w.field("target_score", target); w.field("time_limit", limit)
                    case let .dodge(shots): w.field("shots", shots)
                    }
                    w.endObject()
                }
                w.endObject()
            }
            w.key("default")
            o.writeDefault(&w, defaults)
            w.field("help", o.help)
            w.endObject()
        }
        w.endArray()
    }

    /// `key`: the infos of `count` environments, in the session's layout. `item(i)` is
    /// environment i's info and whether it comes from a reset (which adds `game_seed`), or nil
    /// for an environment that has none.
    func writeInfos(_ w: inout JSONWriter, _ key: String, count: Int, _ item: (Int) -> (EnvInfo, Bool)?) {
        w.key(key)
        if infoLayout == .columns {
            // Each environment's info is fetched once (`present`: 0 none, 1 a step's, 2 a
            // reset's), and each key's presence computed once per environment, not again for its
            // value and its mask. An environment without an info holds a copy of another's,
            // never read; when none has one, every key is left out.
            var infos: [EnvInfo] = [], present: [UInt8] = [], has: [Bool] = []
            infos.reserveCapacity(count)
            present.reserveCapacity(count)
            has.reserveCapacity(count)
            var missing = 0
            for i in 0..<count {
                if let (info, reset) = item(i) {
                    if infos.isEmpty { infos.append(contentsOf: repeatElement(info, count: missing)) }
                    infos.append(info)
                    present.append(reset ? 2 : 1)
                } else {
                    if infos.isEmpty { missing += 1 } else { infos.append(infos[0]) }
                    present.append(0)
                }
            }
            w.beginObject()
            for k in Self.infoKeys { writeColumn(&w, k, infos, present, &has) }
            w.endObject()
            return
        }
        w.beginArray()
        for i in 0..<count {
            if let (info, reset) = item(i) { writeInfo(&w, info, reset: reset) } else { w.null() }
        }
        w.endArray()
    }

    /// One key in Gymnasium's vector-info layout: `name` maps to a value per environment and
    /// `_name` to a boolean each saying which environments have it (the others hold the key's
    /// filler); a nested key (`hits`) is an object of such columns with its own mask. A key no
    /// environment has is left out. `has` is scratch space for the mask.
    func writeColumn(_ w: inout JSONWriter, _ k: InfoKey, _ infos: [EnvInfo], _ present: [UInt8], _ has: inout [Bool]) {
        func mask() -> Bool {
            let keyHas = k.has
            has.removeAll(keepingCapacity: true)
            var any = false
            for i in infos.indices {
                let h = present[i] != 0 && keyHas(infos[i], present[i] == 2)
                has.append(h)
                any = any || h
            }
            return any
        }
        guard mask() else { return }
        w.key(k.name)
        if k.keys.isEmpty {
            let write = k.write, filler = k.filler
            w.beginArray()
            for i in infos.indices {
                if has[i] { write(&w, infos[i], self) } else { filler(&w) }
            }
            w.endArray()
        } else {
            w.beginObject()
            for sub in k.keys { writeColumn(&w, sub, infos, present, &has) }
            w.endObject()
            _ = mask()  // the sub-keys' columns reused the scratch
        }
        w.key("_" + k.name)
        w.beginArray()
        for h in has { w.bool(h) }
        w.endArray()
    }

    /// One environment's info as an object (the rows layout).
    func writeInfo(_ w: inout JSONWriter, _ info: EnvInfo, reset: Bool) {
        w.beginObject()
        for k in Self.infoKeys where k.has(info, reset) {
            w.key(k.name)
            if k.keys.isEmpty {
                k.write(&w, info, self)
            } else {
                w.beginObject()
                for sub in k.keys {
                    w.key(sub.name)
                    sub.write(&w, info, self)
                }
                w.endObject()
            }
        }
        w.endObject()
    }

    /// Rows of observations as nested JSON arrays (`key`), base64 of little-endian float32
    /// (`key_b64`), or (`f32`) their byte count `key_bytes` in the line and the floats themselves
    /// appended to the frame; with their shape.
    func writeObservations(_ w: inout JSONWriter, _ key: String, _ values: [Float], rows: Int, size: Int) {
        if encoding == .f32 {
            w.field(key + "_bytes", values.count * 4)
            frame.append(values)
        } else if encoding == .b64f32 {
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

    /// The name of the level an info is about: a file level's, or the generated level's.
    func levelName(_ info: EnvInfo) -> String {
        if let seed = info.generatorSeed, let p = procedural { return p.name(generatorSeed: seed) }
        return levelNames.indices.contains(info.level) ? levelNames[info.level] : ""
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
}
