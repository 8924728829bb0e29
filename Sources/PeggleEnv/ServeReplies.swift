import Foundation
import PeggleGame

// How `peggle serve` writes its replies: one JSON line into the session's reused buffer, and
// with `obs_encoding` `f32` the observations as a binary frame after it (docs/protocol.md).

extension ServeSession {
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
    func errorReply(_ id: RequestID?, _ code: String, _ message: String) -> JSONWriter {
        var w = JSONWriter()
        w.beginObject()
        writeId(&w, id)
        w.field("ok", false)
        w.key("error")
        w.beginObject()
        w.field("code", code)
        w.field("message", MessageText.cut(message, to: MessageText.messageLimit))
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

    /// `key`: the infos of `count` environments, in the session's layout. `item(i)` is
    /// environment i's info and whether it comes from a reset (which adds `game_seed`), or nil
    /// for an environment that has none.
    func writeInfos(_ w: inout JSONWriter, _ key: String, count: Int, _ item: (Int) -> (EnvInfo, Bool)?) {
        w.key(key)
        if infoLayout == .columns {
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
        column("level_name", always, filler: { $0.null() }) { w, info in w.string(levelName(info)) }
        column("level_seed", { info, _ in info.levelSeed != nil }, filler: zero) { $0.int($1.levelSeed!) }
        column("score", always, filler: zero) { $0.int($1.score) }
        column("balls_left", always, filler: zero) { $0.int($1.ballsLeft) }
        column("orange_left", always, filler: zero) { $0.int($1.orangeLeft) }
        column("shots", always, filler: zero) { $0.int($1.shots) }
        column("status", always, filler: { $0.null() }) { $0.string($1.status.rawValue) }
        column("won", always, filler: { $0.bool(false) }) { $0.bool($1.status == .won) }
        column("game_seed", { _, reset in reset }, filler: zero) { $0.int($1.gameSeed) }
        column("angle", shot, filler: zero) { $0.number($1.shot!.angle) }
        column("fired_angle", shot, filler: zero) { $0.number($1.shot!.firedAngle) }
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
        if let seed = info.levelSeed, let p = procedural { return p.name(ofSeed: seed) }
        return levelNames.indices.contains(info.level) ? levelNames[info.level] : ""
    }

    func writeInfo(_ w: inout JSONWriter, _ info: EnvInfo, reset: Bool) {
        w.beginObject()
        w.field("level", info.level)
        w.field("level_name", levelName(info))
        if let seed = info.levelSeed { w.key("level_seed"); w.int(seed) }
        w.field("score", info.score)
        w.field("balls_left", info.ballsLeft)
        w.field("orange_left", info.orangeLeft)
        w.field("shots", info.shots)
        w.field("status", info.status.rawValue)
        w.field("won", info.status == .won)
        if reset { w.key("game_seed"); w.int(info.gameSeed) }
        if let shot = info.shot {
            w.field("angle", shot.angle)
            w.field("fired_angle", shot.firedAngle)
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

}
