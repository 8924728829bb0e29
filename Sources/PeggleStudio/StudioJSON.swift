import Foundation
import Synchronization

/// The studio's one wire casing: every key of its requests and replies is snake_case, as the
/// level format and the serve protocol write theirs. The types keep Swift's names and the key
/// strategies here convert them (`purpleRoams` travels as `purple_roams`), so no type spells its
/// keys a second time. A dictionary's keys are data (mode fields by their level-format names),
/// left as they are by both strategies.
enum StudioJSON {
    /// A Swift name in snake_case: each capital letter becomes `_` and its lower case
    /// (`sigma50Text` is `sigma50_text`). A snake_case name is its own.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for c in name.unicodeScalars {
            if ("A"..."Z").contains(c) {
                out += "_"
                out.unicodeScalars.append(Unicode.Scalar(c.value + 32)!)
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// The Swift name whose snake_case is `key`; nil when `key` is no name's snake_case (an
    /// `_` not before a small letter, or a capital letter).
    static func swiftName(_ key: String) -> String? {
        var out = ""
        var capital = false
        for c in key.unicodeScalars {
            if c == "_" && !capital {
                capital = true
                continue
            }
            out.unicodeScalars.append(capital && ("a"..."z").contains(c) ? Unicode.Scalar(c.value - 32)! : c)
            capital = false
        }
        return snakeCase(out) == key ? out : nil
    }

    /// A coding path as messages name a field: `op.purple_roams`, `angles[2]`.
    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\(snakeCase($0.stringValue))" }.joined().drop { $0 == "." }.description
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The encoder of every reply.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .custom { path in Key(snakeCase(path[path.count - 1].stringValue)) }
        return encoder
    }

    /// What a request's decoder refused: the first key holding a capital letter, as a message.
    final class Refusal: Sendable {
        let message = Mutex<String?>(nil)
    }

    /// The decoder of a request: it reads each snake_case key as the Swift name it converts. A
    /// key with a capital letter (`purpleRoams`, the casing of the studio before issue 50)
    /// matches no field and is noted in `refusal`, for the studio to refuse the request naming
    /// it; any other key no field has is ignored, as `JSONDecoder` ignores unknown keys.
    static func decoder(_ refusal: Refusal = Refusal()) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let key = path[path.count - 1].stringValue
            if let name = swiftName(key) { return Key(name) }
            if key.unicodeScalars.contains(where: { ("A"..."Z").contains($0) }) {
                let parent = Self.path(Array(path.dropLast()))
                let message = "\(parent.isEmpty ? "" : parent + ".")\(key): "
                    + "the studio's keys are snake_case (\(snakeCase(key).drop { $0 == "_" }))"
                refusal.message.withLock { if $0 == nil { $0 = message } }
            }
            // No Swift name holds a space: the key is read as no field's.
            return Key(" " + key)
        }
        return decoder
    }
}
