import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel

// How a request line's fields are read: `JSONDecoder` decodes each request into a typed value
// (ServeRequests.swift, MakeRequest.swift) through `Fields`, which names the field in every
// refusal and refuses fields a command does not know. `JSONDecoder` reads numbers exactly (an
// action written with enough digits to name a double is that double), which Foundation's
// `JSONSerialization` on Linux does not. (A plain `step` line skips all this: StepLine.swift.)

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

    /// "a, b or c": the names of a closed choice, for a refusal.
    static func oneOf(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
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
    /// A number beyond a double's range (±1.8e308, such as 1e400): valid JSON, but no Swift
    /// number holds it (and the decoder does not give its text).
    case beyondDouble
    /// An array or an object.
    case other

    /// How a refusal names a `beyondDouble` value.
    static let beyondDoubleText = "a number beyond ±1.8e308"

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
        } else if (try? decoder.container(keyedBy: FieldKey.self)) == nil, (try? decoder.unkeyedContainer()) == nil {
            // Not null, a boolean, a string, an object or a list: a number no double holds.
            self = .beyondDouble
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
package enum RequestID: Decodable {
    case string(String), bool(Bool), double(Double), int(Int64), uint(UInt64)

    package init(from decoder: Decoder) throws {
        switch try JSONScalar(from: decoder) {
        case let .string(s): self = .string(s)
        case let .bool(b): self = .bool(b)
        case let .double(d): self = .double(d)
        case let .int(i): self = .int(i)
        case let .uint(u): self = .uint(u)
        case .null, .other, .beyondDouble: throw EnvError.badRequest("\"id\" must be a string, a number or a boolean")
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
            throw EnvError.badRequest("\(command): unknown field \(MessageText.quoted(prefix + unknown)) "
                + (fields.isEmpty ? "(it takes only \"cmd\" and \"id\")" : "(known: \(fields.joined(separator: ", ")))"))
        }
    }

    /// The object in field `name`, or nil if it is missing or null; `known` (if given) lists its
    /// fields, and any other is refused.
    func object(_ name: String, command: String, known: [String]?) throws -> Fields? {
        guard has(name) else { return nil }
        guard let nested = try? container.nestedContainer(keyedBy: FieldKey.self, forKey: FieldKey(name)) else {
            throw EnvError.badRequest("\"\(prefix + name)\" must be an object")
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

    /// A whole number in `range`, or nil when missing or null.
    func int(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
        let field = "\"\(prefix + name)\""
        let value: Int
        switch scalar(name) {
        case .null: return nil
        case let .int(i): value = Int(i)
        case let .uint(u):
            guard let v = Int(exactly: u) else { throw EnvError.badRequest("\(field) is \(u); it must be in \(range.lowerBound)...\(range.upperBound)") }
            value = v
        case let .double(d):
            guard d == d.rounded() else { throw EnvError.badRequest("\(field) must be a whole number") }
            guard let v = Int(exactly: d) else {
                throw EnvError.badRequest("\(field) is \(JSONScalar.describe(d)); it must be in \(range.lowerBound)...\(range.upperBound)")
            }
            value = v
        case .beyondDouble:
            throw EnvError.badRequest("\(field) is \(JSONScalar.beyondDoubleText); it must be in \(range.lowerBound)...\(range.upperBound)")
        default: throw EnvError.badRequest("\(field) must be a whole number")
        }
        guard range.contains(value) else {
            throw EnvError.badRequest("\(field) is \(value); it must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A finite number in `range`, or nil when missing or null.
    func double(_ name: String, _ range: ClosedRange<Double>) throws -> Double? {
        let field = "\"\(prefix + name)\""
        let s = scalar(name)
        if case .null = s { return nil }
        guard let d = s.number else {
            if case .beyondDouble = s {
                throw EnvError.badRequest("\(field) is \(JSONScalar.beyondDoubleText); it must be in "
                    + "\(LevelCodec.number(range.lowerBound))...\(LevelCodec.number(range.upperBound))")
            }
            throw EnvError.badRequest("\(field) must be a number")
        }
        guard range.contains(d) else {
            throw EnvError.badRequest("\(field) is \(LevelCodec.number(d)); it must be in \(LevelCodec.number(range.lowerBound))...\(LevelCodec.number(range.upperBound))")
        }
        return d
    }

    /// true or false, or nil when missing or null.
    func bool(_ name: String) throws -> Bool? {
        switch scalar(name) {
        case .null: return nil
        case let .bool(b): return b
        default: throw EnvError.badRequest("\"\(prefix + name)\" must be true or false")
        }
    }

    /// A string, or nil when missing or null.
    func string(_ name: String) throws -> String? {
        switch scalar(name) {
        case .null: return nil
        case let .string(s): return s
        default: throw EnvError.badRequest("\"\(prefix + name)\" must be a string")
        }
    }

    /// One of `T`'s raw values, or nil when missing or null.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, _: T.Type = T.self) throws -> T? where T.RawValue == String {
        guard let s = try string(name) else { return nil }
        guard let c = T(rawValue: s) else {
            throw EnvError.badRequest("\"\(prefix + name)\" is \(MessageText.quoted(s)); expected one of: "
                + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return c
    }

    /// A list of values, or nil when missing or null; `item` reads element i.
    func list<T>(_ name: String, _ item: (JSONScalar, Int) throws -> T) throws -> [T]? {
        guard has(name) else { return nil }
        guard let values = try? container.decode([JSONScalar].self, forKey: FieldKey(name)) else {
            throw EnvError.badRequest("\"\(prefix + name)\" must be a list")
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
