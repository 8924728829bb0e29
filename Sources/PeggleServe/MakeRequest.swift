import Foundation
import PeggleEnv
import PeggleGame
import PeggleGenerator
import PeggleLevel

/// `make`: what to build. It starts from the defaults (`EnvConfig`'s for the environment,
/// `VectorConfig`'s for the vector, this type's for the session's wire settings) and each field
/// present replaces one. `MakeRequest.options` declares every field once: its name, what it
/// takes, where it goes, its doc line, whether it asks for procedural levels and whether the
/// reply echoes it; the decoder, the `spec` reply and the `make` reply all read it, so a new
/// environment option is one `EnvConfig` field and one line there.
public struct MakeRequest: Sendable {
    /// Level files to read, `level` first, then `levels`.
    public var paths: [String] = []
    /// The environments' settings; `procedural` is set when any procedural-level field is given.
    public var config = EnvConfig(levels: [])
    /// How many environments, their seeds, autoreset and threads.
    public var vector = VectorConfig()
    /// How observations travel.
    public var encoding = ObservationEncoding.json
    /// How infos are laid out.
    public var infoLayout = InfoLayout.rows
    /// Replaces every level's mode, when given.
    public var mode: GameMode?

    public init() {}

    /// The procedural levels being asked for (made, with their defaults, by the first such field).
    var procedural: ProceduralLevels {
        get { config.procedural ?? ProceduralLevels() }
        set { config.procedural = newValue }
    }

    /// The fields that ask for procedural levels (the table's `procedural` rows), in its order.
    static let proceduralFields = options.filter(\.procedural).map(\.name)

    /// Every field of `make`, in the order a refusal lists them (and the spec reports them).
    static var options: [MakeOption] {
        [
            .levelFiles("levels", "a non-empty list of level files; each episode plays one"),
            .levelFile("level", "one level file (with levels: it comes first)"),
            .choice("level_order", \.config.order, "cycle (in turn) or random (seeded); level files only",
                    onlyIf: filesOnly("level_order")),
            .int("num_envs", \.vector.count, 1...4096, "environments", echoed: true),
            .choice("encoder", \.config.encoder, "the observation: objects, grid, pixels or aim (docs/environment.md)"),
            .int("max_objects", \.config.maxObjects, 1...10_000, "object slots of the objects encoder"),
            .choice("reward", \.config.reward, "progress, score or win"),
            .choice("autoreset", \.vector.autoreset, "next_step, same_step or disabled (Gymnasium 1.x semantics)", echoed: true),
            .action,
            .int("bins", \.config.bins, 2...100_000,
                 "aim bins of the discrete action and rows of the aim encoder (the same bins when both are used)",
                 onlyIf: { _, r in
                     r.config.action == .discrete || r.config.encoder == .aim ? nil
                         : "make: \"bins\" applies to the discrete action only (\"action\" is \"\(r.config.action.rawValue)\")"
                 }),
            .int("max_shots", \.config.maxShots, 1...1_000_000, "shots after which an episode is truncated"),
            .int("threads", \.vector.threads, 1...256, "threads stepping the environments (results do not depend on it)"),
            .seed,
            .choice("obs_encoding", \.encoding, "json, b64f32 or f32 (a binary frame after the line)", echoed: true),
            .flag("trajectory", \.config.recordTrajectory, "record each shot's ball paths into its info"),
            .mode,
            .choice("info_layout", \.infoLayout, "rows (one info per environment) or columns (Gymnasium's vector layout)", echoed: true),
            .int("num_levels", \.procedural.numLevels, 0...Int.max, "procedural levels: how many level seeds, 0 for unlimited",
                 procedural: true),
            .int("start_level", \.procedural.startLevel, 0...Int.max, "procedural levels: the first level seed", procedural: true),
            .choice("distribution_mode", \.procedural.distribution,
                    "procedural levels: easy or hard (the generator), or tier-easy, tier-medium, tier-hard or tier-very-hard (by the estimate)",
                    procedural: true),
            .templates,
            .number("aim_noise", \.config.aimNoise, EnvConfig.aimNoiseRange,
                    "radians: the standard deviation of the Gaussian added to every shot's aim", echoed: true),
            .choice("bucket_start", \.config.bucketStart, "centre, or random (a seeded phase of its cycle)", echoed: true),
            .choice("cycle_start", \.config.cycleStart, "where a seeded reset starts the cycle: first, or seed (level seed mod levels)",
                    onlyIf: filesOnly("cycle_start")),
            .int("pixel_width", \.config.pixelWidth, ObservationEncoder.pixelWidths, "the pixels encoder's picture width, pixels",
                 onlyIf: { _, r in
                     r.config.encoder == .pixels ? nil
                         : "make: \"pixel_width\" applies to the pixels encoder only (\"encoder\" is \"\(r.config.encoder.rawValue)\")"
                 }),
            .physics,
        ]
    }

    /// Refuses a level-file field beside procedural levels.
    static func filesOnly(_ name: String) -> MakeOption.Condition {
        { f, _ in
            proceduralFields.contains(where: f.has)
                ? "make: \"\(name)\" applies to level files; procedural levels are drawn from their seeds" : nil
        }
    }

    /// Refuses a procedural-level field beside level files.
    static func notWithFiles(_ name: String) -> MakeOption.Condition {
        { _, r in
            r.paths.isEmpty ? nil : "make: give level files (\"levels\", \"level\") or procedural levels (\"\(name)\"), not both"
        }
    }
}

extension MakeRequest: Decodable {
    public init(from decoder: Decoder) throws {
        self.init()
        let options = Self.options
        let f = try Fields(decoder, command: "make", known: options.map(\.name))
        for option in options where f.has(option.name) {
            if let refusal = option.onlyIf?(f, self) { throw EnvError.badRequest(refusal) }
            try option.read(f, &self)
        }
        if let p = config.procedural {
            guard UInt64(p.startLevel) + UInt64(p.numLevels) <= ProceduralLevels.seedLimit else {
                throw EnvError.badRequest("make: \"start_level\" + \"num_levels\" is \(UInt64(p.startLevel) + UInt64(p.numLevels)); "
                    + "level seeds must stay below 2^63 (\(ProceduralLevels.seedLimit))")
            }
            config.procedural?.mode = mode
        } else if paths.isEmpty {
            throw EnvError.badRequest("make: give \"levels\" (a list of level files), \"level\", or procedural levels "
                + "(\"num_levels\", \"start_level\", \"distribution_mode\")")
        }
    }
}

/// One field of `make`: its name, what it takes (for the `spec` reply), its doc line, when it
/// applies, how it is read into the request, how its value is written (its default in `spec`, the
/// value taken in the `make` reply), and where that reply echoes it.
struct MakeOption {
    /// What a field takes.
    enum Kind {
        case int(ClosedRange<Int>)
        case number(ClosedRange<Double>)
        case bool
        case choice([String])
        /// A level file.
        case path
        /// A non-empty list of level files.
        case paths
        /// A non-empty list of these names.
        case choices([String])
        /// A mode object as in the level format.
        case mode
    }

    /// Why the field does not apply to this request (given the fields read before it), or nil.
    typealias Condition = (Fields, MakeRequest) -> String?

    let name: String
    let kind: Kind
    let help: String
    let onlyIf: Condition?
    /// Reads the field, which is present and not null, into the request.
    let read: (Fields, inout MakeRequest) throws -> Void
    /// Writes the field's value in a request as JSON: a new request's is its default.
    let write: (inout JSONWriter, MakeRequest) -> Void
    /// Whether the `make` reply echoes the value taken, at its top level.
    var echoed = false
    /// Whether this request's value is echoed (with `echoed`): `physics` only when not the
    /// default, so version 1's replies stay the bytes they were.
    var echoedFor: (MakeRequest) -> Bool = { _ in true }
    /// A procedural-level field: it asks for generated levels (refused beside level files),
    /// `spec` marks it (`"procedural": true`) and the `make` reply echoes it in `procedural`.
    var procedural = false

    init(name: String, kind: Kind, help: String, onlyIf: Condition?, read: @escaping (Fields, inout MakeRequest) throws -> Void,
         write: @escaping (inout JSONWriter, MakeRequest) -> Void, echoed: Bool = false, procedural: Bool = false) {
        self.name = name
        self.kind = kind
        self.help = help
        // A procedural field's one condition: no level files beside it.
        self.onlyIf = procedural ? MakeRequest.notWithFiles(name) : onlyIf
        self.read = read
        self.write = write
        self.echoed = echoed
        self.procedural = procedural
    }

    static func int(_ name: String, _ path: WritableKeyPath<MakeRequest, Int>, _ range: ClosedRange<Int>, _ help: String,
                    onlyIf: Condition? = nil, echoed: Bool = false, procedural: Bool = false) -> MakeOption {
        MakeOption(name: name, kind: .int(range), help: help, onlyIf: onlyIf,
                   read: { f, r in if let v = try f.int(name, range) { r[keyPath: path] = v } },
                   write: { w, r in w.int(r[keyPath: path]) }, echoed: echoed, procedural: procedural)
    }

    static func number(_ name: String, _ path: WritableKeyPath<MakeRequest, Double>, _ range: ClosedRange<Double>,
                       _ help: String, echoed: Bool = false) -> MakeOption {
        MakeOption(name: name, kind: .number(range), help: help, onlyIf: nil,
                   read: { f, r in if let v = try f.double(name, range) { r[keyPath: path] = v } },
                   write: { w, r in w.number(r[keyPath: path]) }, echoed: echoed)
    }

    static func flag(_ name: String, _ path: WritableKeyPath<MakeRequest, Bool>, _ help: String) -> MakeOption {
        MakeOption(name: name, kind: .bool, help: help, onlyIf: nil,
                   read: { f, r in if let v = try f.bool(name) { r[keyPath: path] = v } },
                   write: { w, r in w.bool(r[keyPath: path]) })
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ path: WritableKeyPath<MakeRequest, T>,
                                                           _ help: String, onlyIf: Condition? = nil, echoed: Bool = false,
                                                           procedural: Bool = false) -> MakeOption
        where T.RawValue == String {
        MakeOption(name: name, kind: .choice(T.allCases.map(\.rawValue)), help: help, onlyIf: onlyIf,
                   read: { f, r in if let v = try f.choice(name, T.self) { r[keyPath: path] = v } },
                   write: { w, r in w.string(r[keyPath: path].rawValue) }, echoed: echoed, procedural: procedural)
    }

    /// `seed`: the vector's first seed (a `UInt64` below 2^63, so NumPy's int64 holds it).
    static var seed: MakeOption {
        MakeOption(name: "seed", kind: .int(0...Int.max),
                   help: "environment i's generator starts from seed + i until a seeded reset", onlyIf: nil,
                   read: { f, r in if let v = try f.int("seed", 0...Int.max) { r.vector.seed = UInt64(v) } },
                   write: { w, r in w.int(r.vector.seed) })
    }

    /// `physics`: which physics plays the games (`PhysicsVersion`, a rule: `config.rules`), 1 or 2;
    /// echoed only when not the default.
    static var physics: MakeOption {
        let versions = PhysicsVersion.allCases.map(\.rawValue)
        let range = versions.min()!...versions.max()!
        var o = MakeOption(name: "physics", kind: .int(range),
                           help: "the physics: 1 (fixed steps, the default) or 2 (times of impact; docs/environment.md)",
                           onlyIf: nil,
                           read: { f, r in
                               if let v = try f.int("physics", range), let p = PhysicsVersion(rawValue: v) { r.config.rules.physicsVersion = p }
                           },
                           write: { w, r in w.int(r.config.rules.physicsVersion.rawValue) }, echoed: true)
        o.echoedFor = { $0.config.rules.physicsVersion != .standard }
        return o
    }

    /// `action`, refused in its own words (older than the generic choice message).
    static var action: MakeOption {
        let names = ActionKind.allCases.map(\.rawValue)
        return MakeOption(name: "action", kind: .choice(names),
                          help: "continuous (a float in [-1, 1]) or discrete (an aim bin)", onlyIf: nil,
                          read: { f, r in
                              guard let s = try f.string("action") else { return }
                              guard let a = ActionKind(rawValue: s) else {
                                  throw EnvError.badRequest("make: action \(MessageText.quoted(s)) is not \(MessageText.oneOf(names))")
                              }
                              r.config.action = a
                          },
                          write: { w, r in w.string(r.config.action.rawValue) })
    }

    /// A level file's path: a non-empty string.
    static func path(_ s: JSONScalar, _ name: String) throws -> String {
        guard case let .string(p) = s else { throw EnvError.badRequest("\"\(name)\" must be a string (a level file)") }
        guard !p.isEmpty else { throw EnvError.badRequest("\"\(name)\" is an empty string; give a level file") }
        return p
    }

    static func levelFile(_ name: String, _ help: String) -> MakeOption {
        MakeOption(name: name, kind: .path, help: help, onlyIf: nil,
                   read: { f, r in r.paths.insert(try path(f.scalar(name), name), at: 0) },
                   write: { w, _ in w.null() })
    }

    static func levelFiles(_ name: String, _ help: String) -> MakeOption {
        MakeOption(name: name, kind: .paths, help: help, onlyIf: nil,
                   read: { f, r in
                       let many = try f.list(name) { s, i in try path(s, "\(name)[\(i)]") } ?? []
                       guard !many.isEmpty else { throw EnvError.badRequest("make: \"\(name)\" must be a non-empty list of level files") }
                       r.paths += many
                   },
                   write: { w, _ in w.null() })
    }

    static var templates: MakeOption {
        let names = LevelTemplate.allCases.map(\.rawValue)
        return MakeOption(name: "templates", kind: .choices(names),
                          help: "procedural levels: the layouts levels are drawn from", onlyIf: nil,
                          read: { f, r in
                              let list = try f.list("templates") { s, i -> LevelTemplate in
                                  guard case let .string(name) = s else { throw EnvError.badRequest("\"templates[\(i)]\" must be a string") }
                                  guard let t = LevelTemplate(rawValue: name) else {
                                      throw EnvError.badRequest("\"templates[\(i)]\" is \(MessageText.quoted(name)); expected one of: "
                                          + names.joined(separator: ", "))
                                  }
                                  return t
                              } ?? []
                              guard !list.isEmpty else { throw EnvError.badRequest("make: \"templates\" must be a non-empty list of templates") }
                              r.procedural.templates = list
                          },
                          write: { w, r in
                              w.beginArray()
                              for t in r.procedural.templates { w.string(t.rawValue) }
                              w.endArray()
                          },
                          procedural: true)
    }

    /// `mode`: an object shaped like the level file's, every field checked as the level format
    /// does; missing fields take the mode's defaults.
    static var mode: MakeOption {
        MakeOption(name: "mode", kind: .mode, help: "a mode object as in level files, replacing every level's mode", onlyIf: nil,
                   read: { f, r in
                       guard let m = try f.object("mode", command: "make", known: nil) else { return }
                       guard let type = try m.string("type") else { throw EnvError.badRequest("\"mode\" must be an object with a \"type\"") }
                       guard let kind = GameModeKind(rawValue: type) else {
                           throw EnvError.badRequest("mode type \(MessageText.quoted(type)) is not "
                               + MessageText.oneOf(GameModeKind.allCases.map(\.rawValue)))
                       }
                       try m.refuseUnknown(command: "make", known: ["type"] + kind.fields.map(\.name))
                       var values: [String: ModeFieldValue] = [:]
                       for field in kind.fields {
                           values[field.name] = switch field.domain {
                           case let .whole(range): try m.int(field.name, range).map(ModeFieldValue.whole)
                           case let .real(range): try m.double(field.name, range).map(ModeFieldValue.real)
                           }
                       }
                       r.mode = ModeField.mode(kind, values)
                   },
                   write: { w, _ in w.null() })
    }
}

/// How observations travel (docs/protocol.md).
public enum ObservationEncoding: String, Sendable, CaseIterable {
    /// Nested arrays in the line.
    case json
    /// Base64 of little-endian float32 in the line.
    case b64f32
    /// The same bytes raw, in a binary frame after the line.
    case f32
}

/// How infos are laid out in replies.
public enum InfoLayout: String, Sendable, CaseIterable {
    /// One info object per environment.
    case rows
    /// Gymnasium's vector-info layout: one list per key and a `_key` mask.
    case columns
}
