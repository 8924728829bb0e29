import Foundation

/// Request lines parsed exactly. Foundation's `JSONSerialization` on Linux rounds many decimal
/// numbers to a neighbouring double (about 6 in 10 random doubles in [-1, 1] came back a few
/// units in the last place off), so an action sent as `0.15000000000000002` would aim at a
/// slightly different angle than the same action given to the environment in process.
/// `JSONDecoder` reads numbers exactly, so requests go through it into the same Foundation
/// shapes `JSONSerialization` gives (`[String: Any]`, `[Any]`, `String`, `NSNull`, and
/// `NSNumber` typed as the protocol's readers expect: bool "c", double "d", integers beyond
/// 2^53 as "q" or "Q" so seeds keep all 64 bits); it is also three times faster.
enum RequestJSON {
    /// The line's top-level object, or nil if the line is not a JSON object (or has a number
    /// no double can hold).
    static func object(_ line: String) -> [String: Any]? {
        guard let value = try? JSONDecoder().decode(Value.self, from: Data(line.utf8)),
              case .object = value else { return nil }
        return value.foundation as? [String: Any]
    }

    indirect enum Value: Decodable {
        case null, bool(Bool), double(Double), int(Int64), uint(UInt64), string(String)
        case array([Value]), object([String: Value])

        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let d = try? c.decode(Double.self) {
                // A whole number a double cannot hold exactly is read again as an integer.
                if d == d.rounded() && abs(d) >= 9_007_199_254_740_992 {
                    if let i = try? c.decode(Int64.self) {
                        self = .int(i)
                        return
                    }
                    if let u = try? c.decode(UInt64.self) {
                        self = .uint(u)
                        return
                    }
                }
                self = .double(d)
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let s = try? c.decode(String.self) {
                self = .string(s)
            } else if let a = try? c.decode([Value].self) {
                self = .array(a)
            } else {
                self = .object(try c.decode([String: Value].self))
            }
        }

        var foundation: Any {
            switch self {
            case .null: NSNull()
            case let .bool(b): NSNumber(value: b)
            case let .double(d): NSNumber(value: d)
            case let .int(i): NSNumber(value: i)
            case let .uint(u): NSNumber(value: u)
            case let .string(s): s
            case let .array(a): a.map(\.foundation)
            case let .object(o): o.mapValues(\.foundation)
            }
        }
    }
}
