/// How a level is won and lost: the mode's kind and that kind's fields, one struct per kind, so
/// a reader binds the struct and reads a field by name (`case let .dodge(d)`, then `d.shots`)
/// and a new field with a default breaks no reader. The fields' names, ranges and defaults are
/// the table `ModeField.all` below; a new field is its row and its stored property here.
public enum GameMode: Sendable, Equatable, Hashable {
    case classic(Classic)
    case beatTheScore(BeatTheScore)
    case dodge(Dodge)

    /// Clear every orange peg with `balls` balls (free balls add more).
    public struct Classic: ModeFields {
        public static let kind = GameModeKind.classic
        public var balls: Int
        public init(balls: Int) { self.balls = balls }
        public var mode: GameMode { .classic(self) }
    }

    /// Reach `targetScore` within `timeLimit` seconds of game time; balls are unlimited.
    public struct BeatTheScore: ModeFields {
        public static let kind = GameModeKind.beatTheScore
        public var targetScore: Int
        public var timeLimit: Double
        public init(targetScore: Int, timeLimit: Double) {
            self.targetScore = targetScore
            self.timeLimit = timeLimit
        }
        public var mode: GameMode { .beatTheScore(self) }
    }

    /// Shoot `shots` balls without touching a peg; a ball caught by the bucket forgives one touch.
    public struct Dodge: ModeFields {
        public static let kind = GameModeKind.dodge
        public var shots: Int
        public init(shots: Int) { self.shots = shots }
        public var mode: GameMode { .dodge(self) }
    }

    // Construction as the call sites read it.
    public static func classic(balls: Int) -> GameMode { .classic(Classic(balls: balls)) }
    public static func beatTheScore(targetScore: Int, timeLimit: Double) -> GameMode {
        .beatTheScore(BeatTheScore(targetScore: targetScore, timeLimit: timeLimit))
    }
    public static func dodge(shots: Int) -> GameMode { .dodge(Dodge(shots: shots)) }

    /// The level file's spelling of the mode (its kind's raw value).
    public var name: String { kind.rawValue }

    /// The mode's fields struct.
    public var payload: any ModeFields {
        switch self {
        case let .classic(f): f
        case let .beatTheScore(f): f
        case let .dodge(f): f
        }
    }
}

/// The fields of one mode kind: a `GameMode` case's payload.
public protocol ModeFields: Sendable, Hashable {
    static var kind: GameModeKind { get }
    /// The mode with these fields.
    var mode: GameMode { get }
}

extension ModeFields {
    /// `mode`'s fields when it is of this kind.
    public init?(_ mode: GameMode) {
        guard let fields = mode.payload as? Self else { return nil }
        self = fields
    }
}

/// The kinds of game mode, without their numbers. Raw values are the level file's `mode.type`
/// (docs/levels.md); every reader of a mode (the level format, `peggle level new`, the studio,
/// the serve protocol) parses the kind here and its fields through `ModeField.all`.
public enum GameModeKind: String, CaseIterable, Sendable, Codable {
    case classic, beatTheScore = "beat_the_score", dodge

    /// This kind's mode with every field at its default (classic 10 balls; beat the score 50,000
    /// points in 120 s; dodge 5 shots).
    public var defaultMode: GameMode {
        var mode = blank
        for field in fields { field.set(&mode, field.defaultValue) }
        return mode
    }

    /// A mode of this kind whose fields the table then sets (the numbers here are never seen).
    var blank: GameMode {
        switch self {
        case .classic: .classic(balls: 0)
        case .beatTheScore: .beatTheScore(targetScore: 0, timeLimit: 0)
        case .dodge: .dodge(shots: 0)
        }
    }

    /// This kind's fields besides "type", in the level format's order.
    public var fields: [ModeField] { ModeField.all.filter { $0.kind == self } }

    /// The field of this kind named `name` (the level format's spelling), if it has one.
    public func field(_ name: String) -> ModeField? { fields.first { $0.name == name } }

    /// For people: "beat the score".
    public var label: String { rawValue.replacingOccurrences(of: "_", with: " ") }

    /// How a level of this kind is won, naming its fields (the level schema's description).
    public var help: String {
        switch self {
        case .classic: "Clear every orange peg with `balls` balls; free balls add more."
        case .beatTheScore: "Reach `target_score` within `time_limit` seconds of game time; balls are unlimited."
        case .dodge: "Shoot `shots` balls without touching a peg; a ball caught by the bucket forgives one touch."
        }
    }
}

/// A mode field's value: a whole number (balls) or a real one (seconds).
public enum ModeFieldValue: Sendable, Hashable {
    case whole(Int), real(Double)

    /// As a number (a whole field's values are at most 10^8, exact in a Double).
    public var number: Double {
        switch self {
        case let .whole(v): Double(v)
        case let .real(v): v
        }
    }

    /// Its shortest exact text, as the level format writes it ("10", "30.5"; a NaN "\"NaN\"").
    public var text: String { LevelCodec.number(number) }
}

/// One field of a game mode: the one declaration that the level format (read, write, validate),
/// `peggle level new` and `level info`, the serve protocol's `make` and `spec`, and the studio's
/// settings and its form go through. Adding a field is a row here and its property in the kind's
/// struct (`GameMode.Dodge`), and the game rules that use it.
public struct ModeField: Sendable {
    /// Whole or real, with the range the level format allows.
    public enum Domain: Sendable, Hashable {
        case whole(ClosedRange<Int>), real(ClosedRange<Double>)
    }

    /// The level format's spelling, as in files and protocols ("target_score").
    public let name: String
    /// The mode kind it belongs to.
    public let kind: GameModeKind
    public let domain: Domain
    /// What a mode object without this field takes (a level file must give some: `requiredInFile`).
    public let defaultValue: ModeFieldValue
    /// Whether a level file must give it (a beat-the-score level states what its player must
    /// reach); elsewhere a missing field takes its default.
    public let requiredInFile: Bool
    /// For people: the studio's form label ("Time limit").
    public let label: String
    /// What it means, for help texts and the studio ("game seconds allowed").
    public let help: String
    /// The unit its range is given in by validation messages ("seconds"), if any.
    public let unit: String?
    /// Whether a level file leaves it out when it is at its default. False for the first fields
    /// (every file states them); a field added later sets it, so the files written before it keep
    /// their bytes.
    public let omittedAtDefault: Bool
    let get: @Sendable (GameMode) -> ModeFieldValue?
    let put: @Sendable (inout GameMode, ModeFieldValue) -> Void

    /// Every field of every kind, in the level format's order.
    public static let all: [ModeField] = [
        .whole("balls", \GameMode.Classic.balls, 1...99, default: 10, label: "Balls", help: "balls to start with"),
        .whole("target_score", \GameMode.BeatTheScore.targetScore, 1...100_000_000, default: 50_000, required: true,
               label: "Target score", help: "points to reach"),
        .real("time_limit", \GameMode.BeatTheScore.timeLimit, 1...3600, default: 120, unit: "seconds",
              label: "Time limit (s)", help: "game seconds allowed"),
        .whole("shots", \GameMode.Dodge.shots, 1...99, default: 5, label: "Shots", help: "clean shots needed"),
    ]

    /// A field of the kind whose struct holds `path`: read and set by name, the other fields kept.
    static func accessors<F: ModeFields, V: Sendable>(_ path: WritableKeyPath<F, V> & Sendable, _ wrap: @escaping @Sendable (V) -> ModeFieldValue,
                                                      _ unwrap: @escaping @Sendable (ModeFieldValue) -> V?)
        -> (get: @Sendable (GameMode) -> ModeFieldValue?, put: @Sendable (inout GameMode, ModeFieldValue) -> Void) {
        ({ F($0).map { wrap($0[keyPath: path]) } },
         { m, v in if var fields = F(m), let v = unwrap(v) { fields[keyPath: path] = v; m = fields.mode } })
    }

    static func whole<F: ModeFields>(_ name: String, _ path: WritableKeyPath<F, Int> & Sendable, _ range: ClosedRange<Int>,
                                     default value: Int, required: Bool = false, omittedAtDefault: Bool = false,
                                     label: String, help: String) -> ModeField {
        let (get, put) = accessors(path, ModeFieldValue.whole) { if case let .whole(w) = $0 { w } else { nil } }
        return ModeField(name: name, kind: F.kind, domain: .whole(range), defaultValue: .whole(value), requiredInFile: required,
                         label: label, help: help, unit: nil, omittedAtDefault: omittedAtDefault, get: get, put: put)
    }

    static func real<F: ModeFields>(_ name: String, _ path: WritableKeyPath<F, Double> & Sendable, _ range: ClosedRange<Double>,
                                    default value: Double, unit: String?, omittedAtDefault: Bool = false,
                                    label: String, help: String) -> ModeField {
        let (get, put) = accessors(path, ModeFieldValue.real) { if case let .real(r) = $0 { r } else { nil } }
        return ModeField(name: name, kind: F.kind, domain: .real(range), defaultValue: .real(value), requiredInFile: false,
                         label: label, help: help, unit: unit, omittedAtDefault: omittedAtDefault, get: get, put: put)
    }

    // MARK: Reading and writing a mode

    /// This field's value in `mode`, or nil when `mode` is of another kind.
    public func value(in mode: GameMode) -> ModeFieldValue? { get(mode) }

    /// Sets this field of `mode` to `value`; nothing changes when `mode` is of another kind or
    /// `value` of the other domain (whole for a real field).
    public func set(_ mode: inout GameMode, _ value: ModeFieldValue) { put(&mode, value) }

    /// `kind`'s mode with `values` (by field name) and the rest from `base` when it is of that
    /// kind, else the kind's defaults. Names that are not `kind`'s fields are ignored: callers
    /// refuse them first, with their own message.
    public static func mode(_ kind: GameModeKind, _ values: [String: ModeFieldValue], base: GameMode? = nil) -> GameMode {
        var mode = base.flatMap { $0.kind == kind ? $0 : nil } ?? kind.defaultMode
        for field in kind.fields { if let v = values[field.name] { field.set(&mode, v) } }
        return mode
    }

    // MARK: Ranges and numbers

    public var isWhole: Bool { if case .whole = domain { true } else { false } }

    /// The range's ends as numbers.
    public var bounds: (min: Double, max: Double) {
        switch domain {
        case let .whole(r): (Double(r.lowerBound), Double(r.upperBound))
        case let .real(r): (r.lowerBound, r.upperBound)
        }
    }

    /// "1...99", "1...3600" (the ends in the level format's spelling).
    public var rangeText: String { LevelCodec.number(bounds.min) + "..." + LevelCodec.number(bounds.max) }

    /// Whether `value` is of this field's domain and in its range (a NaN never is).
    public func contains(_ value: ModeFieldValue) -> Bool {
        switch (domain, value) {
        case let (.whole(r), .whole(v)): r.contains(v)
        case let (.real(r), .real(v)): r.contains(v)
        default: false
        }
    }

    /// `number` as a value of this field: nil when the field is whole and `number` is not a whole
    /// number an `Int` holds exactly. The range is not checked (`contains`).
    public func value(_ number: Double) -> ModeFieldValue? {
        switch domain {
        case .real: return .real(number)
        case .whole:
            guard number == number.rounded(), abs(number) <= 9_007_199_254_740_992 else { return nil }
            return .whole(Int(number))
        }
    }

    /// `text` (a command-line value, "7" or "30.5") as a value of this field, or nil when it is not
    /// a number of the field's domain. The range is not checked (`contains`).
    public func value(parsing text: String) -> ModeFieldValue? {
        switch domain {
        case .whole: Int(text).map(ModeFieldValue.whole)
        case .real: Double(text).flatMap { $0.isFinite ? .real($0) : nil }
        }
    }

    /// "whole number" or "number", for messages.
    public var domainName: String { isWhole ? "whole number" : "number" }

    /// The validation message of a value outside the range: "100 is outside 1...99",
    /// "3600.5 is outside 1...3600 seconds"; nil when `value` is in it.
    public func rangeIssue(_ value: ModeFieldValue) -> String? {
        contains(value) ? nil : "\(value.text) is outside \(rangeText)" + (unit.map { " " + $0 } ?? "")
    }
}

extension GameMode {
    /// The mode's kind (its fields dropped).
    public var kind: GameModeKind {
        switch self {
        case .classic: .classic
        case .beatTheScore: .beatTheScore
        case .dodge: .dodge
        }
    }

    /// The mode's fields with their values, in the level format's order.
    public var fieldValues: [(field: ModeField, value: ModeFieldValue)] {
        kind.fields.compactMap { f in f.value(in: self).map { (f, $0) } }
    }

    /// The fields a level file states: all but those `omittedAtDefault` at their default.
    public var writtenFieldValues: [(field: ModeField, value: ModeFieldValue)] {
        fieldValues.filter { !($0.field.omittedAtDefault && $0.value == $0.field.defaultValue) }
    }

    /// For people: "classic, 10 balls", "beat the score: 50000 in 120 s", "dodge: 5 clean shots".
    public var summary: String {
        switch self {
        case let .classic(c): "\(name), \(c.balls) balls"
        case let .beatTheScore(b): "\(kind.label): \(b.targetScore) in \(LevelCodec.number(b.timeLimit)) s"
        case let .dodge(d): "\(name): \(d.shots) clean shots"
        }
    }
}
