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
/// settings and its form go through. Adding a field is a row here (and the `GameMode` case and
/// the game rules that use it).
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
        .whole("balls", of: .classic, 1...99, default: 10, label: "Balls", help: "balls to start with",
               get: { if case let .classic(balls) = $0 { balls } else { nil } },
               set: { m, v in if case .classic = m { m = .classic(balls: v) } }),
        .whole("target_score", of: .beatTheScore, 1...100_000_000, default: 50_000, required: true,
               label: "Target score", help: "points to reach",
               get: { if case let .beatTheScore(target, _) = $0 { target } else { nil } },
               set: { m, v in if case let .beatTheScore(_, limit) = m { m = .beatTheScore(targetScore: v, timeLimit: limit) } }),
        .real("time_limit", of: .beatTheScore, 1...3600, default: 120, unit: "seconds",
              label: "Time limit (s)", help: "game seconds allowed",
              get: { if case let .beatTheScore(_, limit) = $0 { limit } else { nil } },
              set: { m, v in if case let .beatTheScore(target, _) = m { m = .beatTheScore(targetScore: target, timeLimit: v) } }),
        .whole("shots", of: .dodge, 1...99, default: 5, label: "Shots", help: "clean shots needed",
               get: { if case let .dodge(shots) = $0 { shots } else { nil } },
               set: { m, v in if case .dodge = m { m = .dodge(shots: v) } }),
    ]

    static func whole(_ name: String, of kind: GameModeKind, _ range: ClosedRange<Int>, default value: Int,
                      required: Bool = false, omittedAtDefault: Bool = false, label: String, help: String,
                      get: @escaping @Sendable (GameMode) -> Int?, set: @escaping @Sendable (inout GameMode, Int) -> Void) -> ModeField {
        ModeField(name: name, kind: kind, domain: .whole(range), defaultValue: .whole(value), requiredInFile: required,
                  label: label, help: help, unit: nil, omittedAtDefault: omittedAtDefault, get: { get($0).map(ModeFieldValue.whole) },
                  put: { m, v in if case let .whole(w) = v { set(&m, w) } })
    }

    static func real(_ name: String, of kind: GameModeKind, _ range: ClosedRange<Double>, default value: Double,
                     unit: String?, omittedAtDefault: Bool = false, label: String, help: String,
                     get: @escaping @Sendable (GameMode) -> Double?, set: @escaping @Sendable (inout GameMode, Double) -> Void) -> ModeField {
        ModeField(name: name, kind: kind, domain: .real(range), defaultValue: .real(value), requiredInFile: false,
                  label: label, help: help, unit: unit, omittedAtDefault: omittedAtDefault, get: { get($0).map(ModeFieldValue.real) },
                  put: { m, v in if case let .real(r) = v { set(&m, r) } })
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
        case let .classic(balls): "\(name), \(balls) balls"
        case let .beatTheScore(target, limit): "\(kind.label): \(target) in \(LevelCodec.number(limit)) s"
        case let .dodge(shots): "\(name): \(shots) clean shots"
        }
    }
}
