import Foundation
import PeggleGame

// The `peggle serve` requests, decoded from each line by `JSONDecoder` straight into typed
// values: a field of the wrong type, out of range or unknown is a `bad_request` naming it, for
// every command. `JSONDecoder` reads numbers exactly (an action written with enough digits to
// name a double is that double), which Foundation's `JSONSerialization` on Linux does not.

/// An error reply: the protocol's code (docs/protocol.md) and a message for people.
struct Failure: Error {
    var code: String
    var message: String
    init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }
    static func badRequest(_ message: String) -> Failure { Failure("bad_request", message) }
}

/// Messages never echo unbounded input: a value quoted in one is cut to `quotedLimit`
/// characters, and a whole message (a level loader's, say) to `messageLimit`.
enum MessageText {
    /// Characters (code points) of a quoted value kept in a message.
    static let quotedLimit = 64
    /// Characters (code points) of a whole error message.
    static let messageLimit = 1000

    /// `"value"`, cut to `quotedLimit` characters with "…" and how many were left out.
    static func quoted(_ s: String) -> String {
        "\"" + cut(s, to: quotedLimit) + "\""
    }

    /// `s`, or its first `limit` characters, "…" and how long it was.
    static func cut(_ s: String, to limit: Int) -> String {
        var count = 0
        var end = s.unicodeScalars.startIndex
        for i in s.unicodeScalars.indices {
            if count == limit { end = i; break }
            count += 1
            end = s.unicodeScalars.index(after: i)
        }
        guard end < s.unicodeScalars.endIndex else { return s }
        let total = s.unicodeScalars.count
        return String(s.unicodeScalars[..<end]) + "\u{2026} (\(total) characters)"
    }
}

/// Any field name.
struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A JSON value as the request readers see it. Numbers are read exactly: as the double they
/// name, and a whole number beyond 2^53 (where doubles skip integers) again as a 64-bit integer.
enum JSONScalar: Decodable {
    case null, bool(Bool), double(Double), int(Int64), uint(UInt64), string(String)
    /// An array, an object, or a number no double can hold.
    case other

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let d = try? c.decode(Double.self) {
            if d == d.rounded() && abs(d) >= 9_007_199_254_740_992 {
                if let i = try? c.decode(Int64.self) { self = .int(i); return }
                if let u = try? c.decode(UInt64.self) { self = .uint(u); return }
            }
            self = .double(d)
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else {
            self = .other
        }
    }

    /// The number, if this is one (integers beyond 2^53 rounded to a double).
    var number: Double? {
        switch self {
        case let .double(d): d
        case let .int(i): Double(i)
        case let .uint(u): Double(u)
        default: nil
        }
    }

    /// A whole number's exact text ("18446744073709551616"), for messages.
    static func describe(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e21 ? String(format: "%.0f", d) : "\(d)"
    }
}

/// The `id` a reply echoes: a string, a number or a boolean.
enum RequestID: Decodable {
    case string(String), bool(Bool), double(Double), int(Int64), uint(UInt64)

    init(from decoder: Decoder) throws {
        switch try JSONScalar(from: decoder) {
        case let .string(s): self = .string(s)
        case let .bool(b): self = .bool(b)
        case let .double(d): self = .double(d)
        case let .int(i): self = .int(i)
        case let .uint(u): self = .uint(u)
        case .null, .other: throw Failure.badRequest("\"id\" must be a string, a number or a boolean")
        }
    }
}

/// The fields of one request object (or of an object inside one, such as `mode`), read by name
/// with the protocol's messages. Unknown names are refused when it is made.
struct Fields {
    private let container: KeyedDecodingContainer<FieldKey>
    /// Names fields in messages: "" at the top level, "mode." inside `mode`.
    let prefix: String

    /// The request's own fields; `known` lists those besides `id` and `cmd`.
    init(_ decoder: Decoder, command: String, known: [String]) throws {
        container = try decoder.container(keyedBy: FieldKey.self)
        prefix = ""
        try refuseUnknown(command: command, known: ["id", "cmd"] + known)
    }

    private init(_ container: KeyedDecodingContainer<FieldKey>, prefix: String) {
        self.container = container
        self.prefix = prefix
    }

    /// Refuses a field not in `known`, naming it and the known ones.
    func refuseUnknown(command: String, known: [String]) throws {
        let names = container.allKeys.map(\.stringValue)
        if let unknown = names.filter({ !known.contains($0) }).sorted().first {
            let fields = known.filter { $0 != "id" && $0 != "cmd" }.map { prefix + $0 }
            throw Failure.badRequest("\(command): unknown field \(MessageText.quoted(prefix + unknown)) "
                + (fields.isEmpty ? "(it takes only \"cmd\" and \"id\")" : "(known: \(fields.joined(separator: ", ")))"))
        }
    }

    /// The object in field `name`, or nil if it is missing or null; `known` (if given) lists its
    /// fields, and any other is refused.
    func object(_ name: String, command: String, known: [String]?) throws -> Fields? {
        guard has(name) else { return nil }
        guard let nested = try? container.nestedContainer(keyedBy: FieldKey.self, forKey: FieldKey(name)) else {
            throw Failure.badRequest("\"\(prefix + name)\" must be an object")
        }
        let fields = Fields(nested, prefix: prefix + name + ".")
        if let known { try fields.refuseUnknown(command: command, known: known) }
        return fields
    }

    /// Whether field `name` is present and not null.
    func has(_ name: String) -> Bool {
        container.contains(FieldKey(name)) && !((try? container.decodeNil(forKey: FieldKey(name))) ?? false)
    }

    func scalar(_ name: String) -> JSONScalar {
        guard container.contains(FieldKey(name)) else { return .null }
        return (try? container.decode(JSONScalar.self, forKey: FieldKey(name))) ?? .other
    }

    /// A whole number in `range`, or `fallback` when missing or null.
    func int(_ name: String, default fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
        try int(name, range) ?? fallback
    }

    /// A whole number in `range`, or nil when missing or null.
    func int(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
        let field = "\"\(prefix + name)\""
        let value: Int
        switch scalar(name) {
        case .null: return nil
        case let .int(i): value = Int(i)
        case let .uint(u):
            guard let v = Int(exactly: u) else { throw Failure.badRequest("\(field) is \(u); it must be in \(range.lowerBound)...\(range.upperBound)") }
            value = v
        case let .double(d):
            guard d == d.rounded() else { throw Failure.badRequest("\(field) must be a whole number") }
            guard let v = Int(exactly: d) else {
                throw Failure.badRequest("\(field) is \(JSONScalar.describe(d)); it must be in \(range.lowerBound)...\(range.upperBound)")
            }
            value = v
        default: throw Failure.badRequest("\(field) must be a whole number")
        }
        guard range.contains(value) else {
            throw Failure.badRequest("\(field) is \(value); it must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A finite number in `range`, or `fallback` when missing or null.
    func double(_ name: String, default fallback: Double, _ range: ClosedRange<Double>) throws -> Double {
        let field = "\"\(prefix + name)\""
        let s = scalar(name)
        if case .null = s { return fallback }
        guard let d = s.number else { throw Failure.badRequest("\(field) must be a number") }
        guard range.contains(d) else {
            throw Failure.badRequest("\(field) is \(LevelCodec.number(d)); it must be in \(LevelCodec.number(range.lowerBound))...\(LevelCodec.number(range.upperBound))")
        }
        return d
    }

    /// true or false, or `fallback` when missing or null.
    func bool(_ name: String, default fallback: Bool) throws -> Bool {
        switch scalar(name) {
        case .null: return fallback
        case let .bool(b): return b
        default: throw Failure.badRequest("\"\(prefix + name)\" must be true or false")
        }
    }

    /// A string, or nil when missing or null.
    func string(_ name: String) throws -> String? {
        switch scalar(name) {
        case .null: return nil
        case let .string(s): return s
        default: throw Failure.badRequest("\"\(prefix + name)\" must be a string")
        }
    }

    /// One of `T`'s raw values, or `fallback` when missing or null.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T) throws -> T where T.RawValue == String {
        guard let s = try string(name) else { return fallback }
        guard let c = T(rawValue: s) else {
            throw Failure.badRequest("\"\(prefix + name)\" is \(MessageText.quoted(s)); expected one of: "
                + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return c
    }

    /// A list of values, or nil when missing or null; `item` reads element i.
    func list<T>(_ name: String, _ item: (JSONScalar, Int) throws -> T) throws -> [T]? {
        guard has(name) else { return nil }
        guard let values = try? container.decode([JSONScalar].self, forKey: FieldKey(name)) else {
            throw Failure.badRequest("\"\(prefix + name)\" must be a list")
        }
        return try values.enumerated().map { try item($1, $0) }
    }

    /// Doubles read straight from a list (the step's fast path), or nil if it is not a list of numbers.
    func doubles(_ name: String) -> [Double]? {
        try? container.decode([Double].self, forKey: FieldKey(name))
    }

    /// A single number in field `name`, if it is one.
    func singleDouble(_ name: String) -> Double? {
        try? container.decode(Double.self, forKey: FieldKey(name))
    }
}

/// One request line: its id and command.
struct Request: Decodable {
    var id: RequestID?
    var command: Command

    enum Command {
        case make(MakeRequest)
        case spaces
        case reset(ResetRequest)
        case step(StepRequest)
        case render(RenderRequest)
        case snapshot
        case restore(Int)
        case dropSnapshot(Int)
        case close
    }

    /// A request whose fields were refused: the failure, and the id to echo with it.
    struct Refused: Error {
        var id: RequestID?
        var failure: Failure
    }

    static let commands = ["make", "spaces", "reset", "step", "render", "snapshot", "restore", "drop_snapshot", "close"]

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: FieldKey.self)
        do {
            id = try c.decodeIfPresent(RequestID.self, forKey: FieldKey("id"))
        } catch let f as Failure {
            throw Refused(id: nil, failure: f)
        }
        do {
            guard c.contains(FieldKey("cmd")) else { throw Failure.badRequest("missing \"cmd\" (a string)") }
            guard case let .string(cmd) = (try? c.decode(JSONScalar.self, forKey: FieldKey("cmd"))) ?? .other else {
                throw Failure.badRequest("\"cmd\" must be a string")
            }
            switch cmd {
            case "make": command = .make(try MakeRequest(decoder))
            case "spaces": _ = try Fields(decoder, command: cmd, known: []); command = .spaces
            case "reset": command = .reset(try ResetRequest(decoder))
            case "step": command = .step(try StepRequest(decoder))
            case "render": command = .render(try RenderRequest(decoder))
            case "snapshot": _ = try Fields(decoder, command: cmd, known: []); command = .snapshot
            case "restore": command = .restore(try Self.snapshotNumber(decoder, cmd))
            case "drop_snapshot": command = .dropSnapshot(try Self.snapshotNumber(decoder, cmd))
            case "close": _ = try Fields(decoder, command: cmd, known: []); command = .close
            default:
                throw Failure("unknown_command", "unknown command \(MessageText.quoted(cmd)) (expected one of: "
                    + Self.commands.joined(separator: ", ") + ")")
            }
        } catch let f as Failure {
            throw Refused(id: id, failure: f)
        }
    }

    static func snapshotNumber(_ decoder: Decoder, _ cmd: String) throws -> Int {
        let f = try Fields(decoder, command: cmd, known: ["snapshot"])
        guard let k = try f.int("snapshot", Int.min...Int.max) else {
            throw Failure.badRequest("\(cmd): give \"snapshot\", the number `snapshot` replied")
        }
        return k
    }

    /// Decodes a request line. Throws `Refused` (a failure and the id to echo) for a line that
    /// is not a JSON object or a request the protocol refuses.
    static func decode(_ line: String) throws(Refused) -> Request {
        do {
            return try JSONDecoder().decode(Request.self, from: Data(line.utf8))
        } catch let r as Refused {
            throw r
        } catch {
            throw Refused(id: nil, failure: Failure("bad_json", "the line is not a JSON object (note: JSON has no NaN or Infinity)"))
        }
    }
}

/// `make`: what to build. Ranges are the protocol's (docs/protocol.md).
struct MakeRequest {
    var paths: [String]
    /// Set when the request asks for levels from seeds (any of num_levels, start_level,
    /// distribution_mode, templates); `paths` is then empty.
    var procedural: ProceduralLevels?
    var order: LevelOrder
    var cycleStart: CycleStart
    var encoder: EncoderKind
    var maxObjects: Int
    /// The `pixels` encoder's width, pixels.
    var pixelWidth: Int
    var reward: RewardKind
    var action: ActionMode
    var maxShots: Int
    var trajectory: Bool
    /// Radians (`EnvConfig.aimNoise`).
    var aimNoise: Double
    var bucketStart: BucketStart
    var count: Int
    var threads: Int
    var seed: UInt64
    var autoreset: AutoresetMode
    var encoding: ObservationEncoding
    var infoLayout: InfoLayout
    var mode: GameMode?

    static let known = ["levels", "level", "level_order", "num_envs", "encoder", "max_objects", "reward", "autoreset",
                        "action", "bins", "max_shots", "threads", "seed", "obs_encoding", "trajectory", "mode", "info_layout",
                        "num_levels", "start_level", "distribution_mode", "templates", "aim_noise", "bucket_start", "cycle_start", "pixel_width"]
    /// The fields that ask for procedural levels.
    static let proceduralFields = ["num_levels", "start_level", "distribution_mode", "templates"]

    init(_ decoder: Decoder) throws {
        let f = try Fields(decoder, command: "make", known: Self.known)
        func path(_ s: JSONScalar, _ name: String) throws -> String {
            guard case let .string(p) = s else { throw Failure.badRequest("\"\(name)\" must be a string (a level file)") }
            guard !p.isEmpty else { throw Failure.badRequest("\"\(name)\" is an empty string; give a level file") }
            return p
        }
        paths = []
        if f.has("level") { paths.append(try path(f.scalar("level"), "level")) }
        if let many = try f.list("levels", { s, i in try path(s, "levels[\(i)]") }) {
            guard !many.isEmpty else { throw Failure.badRequest("make: \"levels\" must be a non-empty list of level files") }
            paths += many
        }
        let asked = Self.proceduralFields.filter { f.has($0) }
        if !asked.isEmpty {
            guard paths.isEmpty else {
                throw Failure.badRequest("make: give level files (\"levels\", \"level\") or procedural levels (\"\(asked[0])\"), not both")
            }
            guard !f.has("level_order") && !f.has("cycle_start") else {
                let field = f.has("level_order") ? "level_order" : "cycle_start"
                throw Failure.badRequest("make: \"\(field)\" applies to level files; procedural levels are drawn from their seeds")
            }
            let num = try f.int("num_levels", default: 0, 0...Int.max)
            let start = try f.int("start_level", default: 0, 0...Int.max)
            guard UInt64(start) + UInt64(num) <= ProceduralLevels.seedLimit else {
                throw Failure.badRequest("make: \"start_level\" + \"num_levels\" is \(UInt64(start) + UInt64(num)); level seeds "
                    + "must stay below 2^63 (\(ProceduralLevels.seedLimit))")
            }
            let templates = try f.list("templates") { s, i -> LevelTemplate in
                guard case let .string(name) = s else { throw Failure.badRequest("\"templates[\(i)]\" must be a string") }
                guard let t = LevelTemplate(rawValue: name) else {
                    throw Failure.badRequest("\"templates[\(i)]\" is \(MessageText.quoted(name)); expected one of: "
                        + LevelTemplate.allCases.map(\.rawValue).joined(separator: ", "))
                }
                return t
            } ?? LevelTemplate.allCases
            guard !templates.isEmpty else { throw Failure.badRequest("make: \"templates\" must be a non-empty list of templates") }
            procedural = ProceduralLevels(numLevels: num, startLevel: start,
                                          distribution: try f.choice("distribution_mode", default: .hard), templates: templates)
        } else {
            guard !paths.isEmpty else {
                throw Failure.badRequest("make: give \"levels\" (a list of level files), \"level\", or procedural levels "
                    + "(\"num_levels\", \"start_level\", \"distribution_mode\")")
            }
        }
        order = try f.choice("level_order", default: .cycle)
        cycleStart = try f.choice("cycle_start", default: .first)
        encoder = try f.choice("encoder", default: .objects)
        maxObjects = try f.int("max_objects", default: 128, 1...10_000)
        if f.has("pixel_width") && encoder != .pixels {
            throw Failure.badRequest("make: \"pixel_width\" applies to the pixels encoder only (\"encoder\" is \"\(encoder.rawValue)\")")
        }
        pixelWidth = try f.int("pixel_width", default: ObservationEncoder.defaultPixelWidth, ObservationEncoder.pixelWidths)
        reward = try f.choice("reward", default: .progress)
        switch try f.string("action") ?? "continuous" {
        case "continuous":
            if f.has("bins") {
                throw Failure.badRequest("make: \"bins\" applies to the discrete action only (\"action\" is \"continuous\")")
            }
            action = .continuous
        case "discrete": action = .discrete(bins: try f.int("bins", default: 31, 2...100_000))
        case let other: throw Failure.badRequest("make: action \(MessageText.quoted(other)) is not continuous or discrete")
        }
        maxShots = try f.int("max_shots", default: 100, 1...1_000_000)
        trajectory = try f.bool("trajectory", default: false)
        aimNoise = try f.double("aim_noise", default: 0, EnvConfig.aimNoiseRange)
        bucketStart = try f.choice("bucket_start", default: .centre)
        count = try f.int("num_envs", default: 1, 1...4096)
        threads = try f.int("threads", default: 1, 1...256)
        seed = UInt64(try f.int("seed", default: 0, 0...Int.max))
        autoreset = try f.choice("autoreset", default: .nextStep)
        encoding = try f.choice("obs_encoding", default: .json)
        infoLayout = try f.choice("info_layout", default: .rows)
        mode = try Self.mode(f)
    }

    /// A `mode` object shaped like the level file's, every field checked as the level format does.
    static func mode(_ f: Fields) throws -> GameMode? {
        guard let m = try f.object("mode", command: "make", known: nil) else { return nil }
        guard let type = try m.string("type") else { throw Failure.badRequest("\"mode\" must be an object with a \"type\"") }
        guard let fields = Self.modeFields[type] else {
            throw Failure.badRequest("mode type \(MessageText.quoted(type)) is not classic, beat_the_score or dodge")
        }
        try m.refuseUnknown(command: "make", known: fields)
        switch type {
        case "classic":
            return .classic(balls: try m.int("balls", default: 10, 1...99))
        case "beat_the_score":
            return .beatTheScore(targetScore: try m.int("target_score", default: 50_000, 1...100_000_000),
                                 timeLimit: try m.double("time_limit", default: 120, 1...3600))
        case "dodge":
            return .dodge(shots: try m.int("shots", default: 5, 1...99))
        default:
            throw Failure.badRequest("mode type \(MessageText.quoted(type)) is not classic, beat_the_score or dodge")
        }
    }

    static let modeFields = ["classic": ["type", "balls"], "beat_the_score": ["type", "target_score", "time_limit"],
                             "dodge": ["type", "shots"]]
}

/// How observations travel (docs/protocol.md).
enum ObservationEncoding: String, CaseIterable {
    /// Nested arrays in the line.
    case json
    /// Base64 of little-endian float32 in the line.
    case b64f32
    /// The same bytes raw, in a binary frame after the line.
    case f32
}

/// How infos are laid out in replies.
enum InfoLayout: String, CaseIterable {
    /// One info object per environment.
    case rows
    /// Gymnasium's vector-info layout: one list per key and a `_key` mask.
    case columns
}

/// `reset`.
struct ResetRequest {
    var seed: UInt64?
    var mask: [Bool]?
    /// A level index, or a name to look up.
    var level: Level?

    enum Level { case index(Int), name(String) }

    init(_ decoder: Decoder) throws {
        let f = try Fields(decoder, command: "reset", known: ["seed", "options", "reset_mask"])
        seed = try f.int("seed", 0...Int.max).map(UInt64.init)
        let options = try f.object("options", command: "reset", known: ["level", "reset_mask"])
        let bools: (JSONScalar, Int) throws -> Bool = { s, _ in
            guard case let .bool(b) = s else { throw Failure.badRequest("reset: \"reset_mask\" must be a list of booleans") }
            return b
        }
        mask = try f.list("reset_mask", bools) ?? options?.list("reset_mask", bools)
        if let options, options.has("level") {
            if case let .string(name) = options.scalar("level") {
                level = .name(name)
            } else {
                level = .index(try options.int("level", 0...Int.max)!)
            }
        }
    }
}

/// `step`: one action per environment (a bare number when there is one environment).
struct StepRequest {
    var actions: [Double]

    init(_ decoder: Decoder) throws {
        let f = try Fields(decoder, command: "step", known: ["actions"])
        guard f.has("actions") else { throw Failure.badRequest("step: missing \"actions\"") }
        if let fast = f.doubles("actions") {
            actions = fast
        } else if let one = f.singleDouble("actions") {
            actions = [one]
        } else if let list = try? f.list("actions", { s, i in s }) {
            actions = try list.enumerated().map { i, s in
                guard let d = s.number else { throw Failure("bad_action", "step: action \(i) is not a number") }
                return d
            }
        } else {
            throw Failure("bad_action", "step: action 0 is not a number")
        }
    }
}

/// `render`.
struct RenderRequest {
    var env: Int
    var format: String
    var width: Int?

    init(_ decoder: Decoder) throws {
        let f = try Fields(decoder, command: "render", known: ["env", "format", "width"])
        env = try f.int("env", default: 0, 0...Int.max)
        format = try f.string("format") ?? "svg"
        guard ["svg", "ansi", "rgb"].contains(format) else {
            throw Failure.badRequest("render: format \(MessageText.quoted(format)) is not svg, ansi or rgb")
        }
        if f.has("width") && format != "rgb" {
            let shown = f.scalar("width").number.map { LevelCodec.number($0) } ?? "given"
            throw Failure.badRequest("render: \"width\" is \(shown), but only format rgb takes a width")
        }
        width = try f.int("width", ServeSession.rgbWidths)
    }
}
