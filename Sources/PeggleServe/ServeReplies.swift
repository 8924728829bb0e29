import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel

// How `peggle serve` writes its replies: one JSON line into the session's reused buffer, and
// with `obs_encoding` `f32` the observations as a binary frame after it (docs/protocol.md).

/// One key of an info, in the order replies write it. Both layouts (rows and columns) and the
/// `spec` reply's `info` list are written from the one table, `ServeSession.infoKeys`, so they
/// cannot disagree on a key or its type.
package struct InfoKey: Sendable {
    package let name: String
    /// `_name`, the key of its mask in the columns layout.
    let maskName: String
    /// What its values are (`spec` tells clients, which type their arrays by it).
    package let type: InfoType
    /// The key's value in an info (the Bool says whether the info comes from a reset), or nil
    /// when the info has no such key; always of `type` (ServeSpecTests). The info is passed by
    /// address: an `EnvInfo` is a large value with reference-counted parts (its shot's
    /// trajectory), and copying it for every key of every environment cost more than writing
    /// the values (about 1 M instructions a 64-environment step).
    package let value: @Sendable (UnsafePointer<EnvInfo>, Bool, ServeSession) -> InfoValue?
    /// The keys of a nested object (`hits`, of type `.object`); they are present with it.
    package var keys: [InfoKey] = []

    init(_ name: String, _ type: InfoType, keys: [InfoKey] = [],
         _ value: @escaping @Sendable (UnsafePointer<EnvInfo>, Bool, ServeSession) -> InfoValue?) {
        self.name = name
        maskName = "_" + name
        self.type = type
        self.value = value
        self.keys = keys
    }

    /// What an environment without the key holds in the columns layout: `0` for numbers,
    /// `false` for a flag, `null` for text and paths.
    func writeFiller(_ w: inout JSONWriter) {
        switch type {
        case .int, .uint64, .number, .object: w.int(0)
        case .bool: w.bool(false)
        case .string, .trajectory: w.null()
        }
    }
}

/// The type of an info key's values, as `spec` names it (docs/protocol.md, "spec").
package enum InfoType: String, Sendable {
    /// A whole number in Int64's range; `uint64` one in UInt64's (the seeds).
    case int, uint64
    /// A real number (radians).
    case number
    case bool, string
    /// An object of keys of their own (`hits`).
    case object
    /// A shot's ball paths: a list of paths, each a list of `[x, y]` points.
    case trajectory
}

/// One value of an info key, as replies write it.
package enum InfoValue {
    case int(Int), uint(UInt64), number(Double), bool(Bool), string(String)
    /// The key's nested `keys` hold the values.
    case object
    case trajectory(Trajectory)
}

extension ServeSession {
    /// A reward as the double a client reads from a reply's text of it (`JSONWriter.readBack`).
    package static func wireReward(_ reward: Float) -> Double { JSONWriter.readBack(reward) }

    /// The keys of an info, in the order both layouts write them (docs/protocol.md).
    package static let infoKeys: [InfoKey] = [
        InfoKey("level", .int) { p, _, _ in .int(p.pointee.level) },
        InfoKey("level_name", .string) { p, _, s in .string(s.levelName(level: p.pointee.level, generatorSeed: p.pointee.generatorSeed)) },
        InfoKey("level_seed", .uint64) { p, _, _ in p.pointee.levelSeed.map { .uint($0) } },
        InfoKey("score", .int) { p, _, _ in .int(p.pointee.score) },
        InfoKey("balls_left", .int) { p, _, _ in .int(p.pointee.ballsLeft) },
        InfoKey("orange_left", .int) { p, _, _ in .int(p.pointee.orangeLeft) },
        InfoKey("shots", .int) { p, _, _ in .int(p.pointee.shots) },
        InfoKey("status", .string) { p, _, _ in .string(p.pointee.status.rawValue) },
        InfoKey("won", .bool) { p, _, _ in .bool(p.pointee.status == .won) },
        InfoKey("game_seed", .uint64) { p, reset, _ in reset ? .uint(p.pointee.gameSeed) : nil },
        InfoKey("angle", .number) { p, _, _ in (p.pointee.shot?.angle).map { .number($0) } },
        InfoKey("fired_angle", .number) { p, _, _ in (p.pointee.shot?.firedAngle).map { .number($0) } },
        InfoKey("pegs_hit", .int) { p, _, _ in (p.pointee.shot?.hits.total).map { .int($0) } },
        InfoKey("hits", .object, keys: PegKind.allCases.map { kind in
            InfoKey(kind.rawValue, .int) { p, _, _ in (p.pointee.shot?.hits[kind]).map { .int($0) } }
        }) { p, _, _ in p.pointee.shot == nil ? nil : .object },
        InfoKey("points", .int) { p, _, _ in (p.pointee.shot?.points).map { .int($0) } },
        InfoKey("free_balls", .int) { p, _, _ in (p.pointee.shot?.freeBalls).map { .int($0) } },
        InfoKey("caught", .int) { p, _, _ in (p.pointee.shot?.caught).map { .int($0) } },
        InfoKey("trajectory", .trajectory) { p, _, _ in (p.pointee.shot?.trajectory).map { .trajectory($0) } },
    ]

    /// `spec`'s `info`: every key of an info with its type, in the order replies write them; a
    /// nested object's keys under `keys`.
    static func writeInfoTypes(_ w: inout JSONWriter, _ keys: [InfoKey]) {
        w.beginArray()
        for k in keys {
            w.beginObject()
            w.field("name", k.name)
            w.field("type", k.type.rawValue)
            if !k.keys.isEmpty {
                w.key("keys")
                writeInfoTypes(&w, k.keys)
            }
            w.endObject()
        }
        w.endArray()
    }

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
    /// default and doc line, and `"procedural": true` on the fields that ask for procedural levels
    /// (from `MakeRequest.options`, the table the decoder reads), the commands, the error codes,
    /// the render formats and the info keys with their types (`infoKeys`).
    static func writeSpec(_ w: inout JSONWriter) {
        w.field("protocol", protocolVersion)
        w.field("engine", "peggle-gym \(PeggleGym.version)")
        w.array("commands", CommandName.allCases) { $0.string($1.rawValue) }
        w.array("error_codes", ErrorCode.allCases) { $0.string($1.rawValue) }
        w.array("render_formats", RenderFormat.allCases) { $0.string($1.rawValue) }
        w.key("info")
        writeInfoTypes(&w, infoKeys)
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
                    for field in kind.fields {
                        switch field.defaultValue {
                        case let .whole(v): w.field(field.name, v)
                        case let .real(v): w.field(field.name, v)
                        }
                    }
                    w.endObject()
                }
                w.endObject()
            }
            w.key("default")
            o.write(&w, defaults)
            w.field("help", o.help)
            if o.procedural { w.field("procedural", true) }
            w.endObject()
        }
        w.endArray()
    }

    /// The `make` reply's echo of what the request resolved to, from `MakeRequest.options`: the
    /// `echoed` fields, the levels' names (the files' own, not a field's value), and with
    /// procedural levels the `procedural` fields in an object of that name.
    func writeMade(_ w: inout JSONWriter, _ r: MakeRequest) {
        let options = MakeRequest.options
        for o in options where o.echoed && o.echoedFor(r) {
            w.key(o.name)
            o.write(&w, r)
        }
        w.key("levels")
        w.beginArray()
        for n in levelNames { w.string(n) }
        w.endArray()
        if r.config.procedural != nil {
            w.key("procedural")
            w.beginObject()
            for o in options where o.procedural {
                w.key(o.name)
                o.write(&w, r)
            }
            w.endObject()
        }
    }

    /// Where a reply's infos come from: the environments a reset reset (all, or those in the
    /// mask; their infos carry `game_seed`), a step's (an environment without a shot was reset
    /// by the autoreset), or the ended episodes of a same-step autoreset.
    enum InfoSource {
        case reset(mask: [Bool]?), step, final

        var isFinal: Bool {
            if case .final = self { return true }
            return false
        }
    }

    /// `key`: the infos of the environments in `slots`, from `source`, in the session's layout.
    func writeInfos(_ w: inout JSONWriter, _ key: String, _ slots: [EnvSlot], _ source: InfoSource) {
        w.key(key)
        slots.withUnsafeBufferPointer { buf in
            // Each environment's info by address (never copied) and whether it has one: 0 none,
            // 1 a step's, 2 a reset's.
            let base = UnsafeRawPointer(buf.baseAddress!)
            let offset = MemoryLayout<EnvSlot>.offset(of: source.isFinal ? \EnvSlot.finalInfo : \EnvSlot.info)!
            var infos: [UnsafePointer<EnvInfo>] = [], present: [UInt8] = []
            infos.reserveCapacity(buf.count)
            present.reserveCapacity(buf.count)
            for i in buf.indices {
                let p = (base + i * MemoryLayout<EnvSlot>.stride + offset).assumingMemoryBound(to: EnvInfo.self)
                infos.append(p)
                switch source {
                case let .reset(mask): present.append((mask?[i] ?? true) ? 2 : 0)
                case .step: present.append(p.pointee.shot == nil ? 2 : 1)
                case .final: present.append(buf[i].hasFinal ? 1 : 0)
                }
            }
            if infoLayout == .columns {
                // A key's values are read once into `cells` (nil: the environment has no such
                // key), then written, then its mask.
                var cells = [InfoValue?](repeating: nil, count: buf.count)
                w.beginObject()
                for k in Self.infoKeys { writeColumn(&w, k, infos, present, &cells) }
                w.endObject()
            } else {
                w.beginArray()
                for i in buf.indices {
                    if present[i] != 0 { writeInfo(&w, infos[i], reset: present[i] == 2) } else { w.null() }
                }
                w.endArray()
            }
        }
    }

    /// Reads key `k` of every environment's info into `cells`; whether any has it.
    func read(_ k: InfoKey, _ infos: [UnsafePointer<EnvInfo>], _ present: [UInt8], _ cells: inout [InfoValue?]) -> Bool {
        var any = false
        for i in infos.indices {
            cells[i] = present[i] == 0 ? nil : k.value(infos[i], present[i] == 2, self)
            if cells[i] != nil { any = true }
        }
        return any
    }

    /// One key in Gymnasium's vector-info layout: `name` maps to a value per environment and
    /// `_name` to a boolean each saying which environments have it (the others hold the key's
    /// filler); a nested key (`hits`) is an object of such columns with its own mask. A key no
    /// environment has is left out. `cells` is scratch space, one per environment.
    func writeColumn(_ w: inout JSONWriter, _ k: InfoKey, _ infos: [UnsafePointer<EnvInfo>], _ present: [UInt8],
                     _ cells: inout [InfoValue?]) {
        guard read(k, infos, present, &cells) else { return }
        w.key(k.name)
        if k.keys.isEmpty {
            w.beginArray()
            for i in cells.indices {
                if let v = cells[i] { write(&w, v) } else { k.writeFiller(&w) }
            }
            w.endArray()
        } else {
            w.beginObject()
            for sub in k.keys { writeColumn(&w, sub, infos, present, &cells) }
            w.endObject()
            _ = read(k, infos, present, &cells)  // the sub-keys' columns reused the scratch
        }
        w.key(k.maskName)
        w.beginArray()
        for i in cells.indices { w.bool(cells[i] != nil) }
        w.endArray()
    }

    /// One environment's info as an object (the rows layout).
    func writeInfo(_ w: inout JSONWriter, _ info: UnsafePointer<EnvInfo>, reset: Bool) {
        w.beginObject()
        for k in Self.infoKeys {
            guard let v = k.value(info, reset, self) else { continue }
            w.key(k.name)
            if case .object = v {
                w.beginObject()
                for sub in k.keys {
                    guard let s = sub.value(info, reset, self) else { continue }
                    w.key(sub.name)
                    write(&w, s)
                }
                w.endObject()
            } else {
                write(&w, v)
            }
        }
        w.endObject()
    }

    /// One info value.
    func write(_ w: inout JSONWriter, _ v: InfoValue) {
        switch v {
        case let .int(i): w.int(i)
        case let .uint(u): w.int(u)
        case let .number(d): w.number(d)
        case let .bool(b): w.bool(b)
        case let .string(s): w.string(s)
        case .object: w.beginObject(); w.endObject()  // never reached: a nested key's keys are written instead
        case let .trajectory(t): writeTrajectory(&w, t)
        }
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
    package func levelName(level: Int, generatorSeed: UInt64?) -> String {
        if let seed = generatorSeed, let p = procedural { return p.name(generatorSeed: seed) }
        return levelNames.indices.contains(level) ? levelNames[level] : ""
    }

    /// The latest step's trajectories (or, `final`, the ended episodes'), one entry per
    /// environment in a JSON list: null, or the paths as an info's `trajectory` holds them.
    package func trajectoriesJSON(final: Bool) -> [UInt8] {
        var w = JSONWriter()
        w.beginArray()
        if let v = vec {
            v.slots.withUnsafeBufferPointer { slots in
                for i in slots.indices {
                    let has = final ? slots[i].hasFinal : true
                    let shot = has ? (final ? slots[i].finalInfo.shot : slots[i].info.shot) : nil
                    if let t = shot?.trajectory { writeTrajectory(&w, t) } else { w.null() }
                }
            }
        }
        w.endArray()
        return w.bytes
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
