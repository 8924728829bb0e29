import Foundation
import PegglePhysics

/// Why a level file could not be read. `path` locates the value ("pegs[3].radius").
public struct LevelFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Reads and writes the level JSON format (docs/levels.md). Reading is strict: unknown fields,
/// unknown names and wrong types are errors that say where they are. Writing is canonical: the
/// same level always gives the same bytes, one object per line.
public enum LevelCodec {
    /// Decodes a level. Semantic checks (ranges, overlaps) are `Level.validate`'s job.
    public static func decode(_ data: Data) throws(LevelFormatError) -> Level {
        // Bare NaN and Infinity are not JSON; quote them so the value reaches validation, which
        // names the field, instead of failing as "not JSON" with no place.
        let scan = prescan(data)
        if let comma = scan.trailingComma {
            throw LevelFormatError(path: "", message: "not valid JSON: a trailing comma at \(position(comma, in: data))")
        }
        let quoted = scan.quoted
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        let keys = KeyCount()
        decoder.userInfo[.keyCount] = keys
        let decoded: Result<Level, any Error>
        do { decoded = .success(try decoder.decode(LevelFile.self, from: quoted).level) } catch { decoded = .failure(error) }
        // JSONSerialization says where text stops being JSON; its pass (a seventh of reading a
        // file) is needed only when the decoder may have let such text by: when it refused the
        // file, or did not read every value. It reads only what it asks for, and of a key given
        // twice one value (`"x": 1, "x": 01` passes): every key it counted against the text's
        // members says it read them all. The pass then comes first, as it always did.
        if case let .success(level) = decoded, keys.count == scan.members { return level }
        do {
            _ = try JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])
        } catch {
            throw LevelFormatError(path: "", message: "not valid JSON: "
                + syntaxMessage(error, in: data, quotedTokens: scan.quotedTokens))
        }
        switch decoded {
        case let .success(level): return level
        case let .failure(e as DecodingError): throw describe(e)
        case let .failure(e as LevelFormatError): throw e
        case let .failure(e): throw LevelFormatError(path: "", message: "\(e)")
        }
    }

    /// The canonical JSON text of `level`, ending in a newline.
    public static func encode(_ level: Level) -> String {
        var out = "{\n"
        var fields: [String] = []
        fields.append("  \"format\": \(level.format)")
        fields.append("  \"name\": \(quote(level.name))")
        if let a = level.author { fields.append("  \"author\": \(quote(a))") }
        if let d = level.description { fields.append("  \"description\": \(quote(d))") }
        if level.readOnly { fields.append("  \"read_only\": true") }
        fields.append("  \"mode\": {\"type\": \(quote(level.mode.kind.rawValue))"
            + level.mode.writtenFieldValues.map { ", \(quote($0.field.name)): \($0.value.text)" }.joined() + "}")
        fields.append("  \"power\": \(quote(level.power.rawValue))")
        if !level.purpleRoams { fields.append("  \"purple_roams\": false") }
        fields.append("  \"pegs\": " + list(level.pegs.map(encodePeg)))
        fields.append("  \"blocks\": " + list(level.blocks.map(encodeBlock)))
        out += fields.joined(separator: ",\n")
        out += "\n}\n"
        return out
    }

    static func encodePeg(_ p: Peg) -> String {
        var s = "{\"id\": \(p.id), \"kind\": \(quote(p.kind.rawValue)), \"x\": \(number(p.center.x)), \"y\": \(number(p.center.y))"
        switch p.shape {
        case let .circle(r):
            s += ", \"radius\": \(number(r))"
        case let .brick(w, h, rot):
            s += ", \"shape\": \"brick\", \"width\": \(number(w)), \"height\": \(number(h)), \"rotation\": \(number(rot))"
        }
        return s + "}"
    }

    static func encodeBlock(_ b: Block) -> String {
        "{\"id\": \(b.id), \"shape\": \(quote(b.shape.rawValue)), \"x\": \(number(b.center.x)), \"y\": \(number(b.center.y)), "
            + "\"width\": \(number(b.width)), \"height\": \(number(b.height)), \"rotation\": \(number(b.rotation)), "
            + "\"springiness\": \(number(b.springiness))}"
    }

    static func list(_ items: [String]) -> String {
        items.isEmpty ? "[]" : "[\n    " + items.joined(separator: ",\n    ") + "\n  ]"
    }

    /// Shortest text that reads back as the same double; integers without a fraction.
    public static func number(_ v: Double) -> String {
        if !v.isFinite { return v.isNaN ? "\"NaN\"" : (v > 0 ? "\"Infinity\"" : "\"-Infinity\"") }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }

    /// Characters (code points) of a file's text that an error message quotes; the rest is cut.
    public static let quotedLimit = 64

    /// `s` for an error message: its first `quotedLimit` characters, then "…" and its length.
    public static func cut(_ s: String) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        for u in s.unicodeScalars {
            if count == quotedLimit { return String(kept) + "\u{2026} (\(s.unicodeScalars.count) characters)" }
            kept.append(u)
            count += 1
        }
        return s
    }

    /// A JSON string literal.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// One pass over the text outside strings: bare NaN, Infinity and -Infinity tokens wrapped
    /// in quotes (with their offsets in the original), the first trailing comma (a comma before
    /// `]` or `}`, which Foundation accepts but JSON does not), and the objects' members (colons;
    /// -1 for text with a NUL byte, UTF-16 or UTF-32, which this pass does not follow). The pass
    /// reads the bytes in place and copies the text only when it has a token to quote (a file
    /// written by the tools has none): it was a fifth of the studio's index build when it built
    /// arrays a byte.
    static func prescan(_ data: Data) -> (quoted: Data, quotedTokens: [Int], trailingComma: Int?, members: Int) {
        let tokens: [StaticString] = ["-Infinity", "Infinity", "NaN"]
        var tokensAt: [Int] = []
        var lengths: [Int] = []
        var comma: Int?
        var members = 0
        var nul = false
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            /// The length of the token at `i`, if one starts there.
            func token(at i: Int) -> Int? {
                for t in tokens where i + t.utf8CodeUnitCount <= bytes.count {
                    let n = t.utf8CodeUnitCount
                    if memcmp(bytes.baseAddress! + i, t.utf8Start, n) == 0 { return n }
                }
                return nil
            }
            var lastComma: Int?
            var i = 0
            var inString = false
            while i < bytes.count {
                let c = bytes[i]
                if c == 0 { nul = true }
                if inString {
                    if c == UInt8(ascii: "\\"), i + 1 < bytes.count { nul = nul || bytes[i + 1] == 0; i += 2; continue }
                    if c == UInt8(ascii: "\"") { inString = false }
                    i += 1
                    continue
                }
                switch c {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    break
                case UInt8(ascii: ","):
                    lastComma = i
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if let l = lastComma, comma == nil { comma = l }
                    lastComma = nil
                default:
                    lastComma = nil
                }
                if c == UInt8(ascii: ":") { members += 1 }
                if c == UInt8(ascii: "\"") { inString = true; i += 1; continue }
                // Every token starts with one of these bytes.
                if c == UInt8(ascii: "-") || c == UInt8(ascii: "I") || c == UInt8(ascii: "N"), let n = token(at: i) {
                    tokensAt.append(i)
                    lengths.append(n)
                    i += n
                    continue
                }
                i += 1
            }
        }
        if nul { members = -1 }
        guard !tokensAt.isEmpty else { return (data, [], comma, members) }
        var out = Data(capacity: data.count + 2 * tokensAt.count)
        var from = data.startIndex
        for (start, n) in zip(tokensAt, lengths) {
            let at = data.startIndex + start
            out.append(data[from..<at])
            out.append(UInt8(ascii: "\""))
            out.append(data[at..<at + n])
            out.append(UInt8(ascii: "\""))
            from = at + n
        }
        out.append(data[from...])
        return (out, tokensAt, comma, members)
    }

    /// "line L, column C" of a byte offset.
    static func position(_ offset: Int, in data: Data) -> String {
        var line = 1, column = 1
        for (k, b) in data.enumerated() {
            if k >= offset { break }
            if b == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return "line \(line), column \(column)"
    }

    /// JSONSerialization's message with its character offset (in the quoted text) turned into a
    /// line and column of the original text.
    static func syntaxMessage(_ error: Error, in data: Data, quotedTokens: [Int]) -> String {
        let text = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        guard let range = text.range(of: #"character (\d+)"#, options: .regularExpression),
              let offset = Int(text[range].dropFirst("character ".count))
        else { return text }
        // Each quoted token before the offset added two quote marks.
        var original = offset
        for (k, start) in quotedTokens.enumerated() where start + 2 * k < offset { original -= 2 }
        return text.replacingOccurrences(of: "around character \(offset)", with: "at " + position(original, in: data))
    }

    static func pathString(_ path: [CodingKey]) -> String {
        var s = ""
        for k in path {
            // A field name comes from the file, so it is cut like any quoted text.
            if let i = k.intValue { s += "[\(i)]" } else { s += (s.isEmpty ? "" : ".") + LevelCodec.cut(k.stringValue) }
        }
        return s
    }

    static func describe(_ e: DecodingError) -> LevelFormatError {
        switch e {
        case let .keyNotFound(key, ctx):
            let path = pathString(ctx.codingPath + [key])
            return LevelFormatError(path: path, message: "required field is missing")
        case let .typeMismatch(type, ctx):
            return LevelFormatError(path: pathString(ctx.codingPath), message: "expected \(typeName(type))")
        case let .valueNotFound(type, ctx):
            return LevelFormatError(path: pathString(ctx.codingPath), message: "expected \(typeName(type)), found null")
        case let .dataCorrupted(ctx):
            return LevelFormatError(path: pathString(ctx.codingPath), message: ctx.debugDescription)
        @unknown default:
            return LevelFormatError(path: "", message: "\(e)")
        }
    }

    static func typeName(_ t: Any.Type) -> String {
        switch t {
        case is Double.Type: "a number"
        case is Int.Type: "a whole number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "a value of another type (\(t))"
        }
    }
}

// MARK: Decoding

/// Coding key for any field name, so unknown fields can be listed.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

/// The keys of the objects a decode read (through its decoder's `userInfo`): what
/// `LevelCodec.decode` compares with the members of the text.
final class KeyCount: @unchecked Sendable {
    var count = 0
}

extension CodingUserInfoKey {
    static let keyCount = CodingUserInfoKey(rawValue: "PeggleLevel.KeyCount")!
}

extension KeyedDecodingContainer where K == AnyKey {
    /// Refuses a field not in `allowed`, and counts the object's keys in `decoder`'s `KeyCount`.
    func rejectUnknown(allowed: Set<String>, of decoder: Decoder) throws {
        let keys = allKeys
        for key in keys where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "unknown field (expected one of: \(allowed.sorted().joined(separator: ", ")))")
        }
        (decoder.userInfo[.keyCount] as? KeyCount)?.count += keys.count
    }

    func value<T: Decodable>(_ name: String) throws -> T { try decode(T.self, forKey: AnyKey(name)) }

    /// A whole number, read as a number first so a fraction is reported at its field (Foundation
    /// reports `2.5` in an integer field as corrupt data with no place).
    func whole(_ name: String) throws -> Int {
        let v: Double
        do {
            v = try decode(Double.self, forKey: AnyKey(name))
        } catch let DecodingError.typeMismatch(_, context) {
            throw DecodingError.typeMismatch(Int.self, context)
        }
        guard v.isFinite, v == v.rounded(), abs(v) <= 9_007_199_254_740_992 else {
            throw DecodingError.dataCorruptedError(
                forKey: AnyKey(name), in: self, debugDescription: "expected a whole number, found \(LevelCodec.number(v))")
        }
        return Int(v)
    }

    func optionalWhole(_ name: String) throws -> Int? {
        try contains(AnyKey(name)) && !decodeNil(forKey: AnyKey(name)) ? whole(name) : nil
    }
    func optional<T: Decodable>(_ name: String) throws -> T? { try decodeIfPresent(T.self, forKey: AnyKey(name)) }

    /// A string field that must be one of `T`'s raw values.
    func choice<T: RawRepresentable & CaseIterable>(_ name: String, default fallback: T? = nil) throws -> T
    where T.RawValue == String {
        guard let raw = try decodeIfPresent(String.self, forKey: AnyKey(name)) else {
            if let fallback { return fallback }
            throw DecodingError.keyNotFound(AnyKey(name), .init(codingPath: codingPath, debugDescription: ""))
        }
        guard let v = T(rawValue: raw) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: AnyKey(name), in: self, debugDescription: "unknown value \(LevelCodec.quote(LevelCodec.cut(raw))) (expected one of: \(names))")
        }
        return v
    }
}

/// The file's top-level object.
struct LevelFile: Decodable {
    var level: Level

    // The field sets are built once, not once an object (a thousand times in a large level).
    static let fields: Set<String> = ["format", "name", "author", "description", "read_only", "mode", "power",
                                      "purple_roams", "pegs", "blocks"]

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        try c.rejectUnknown(allowed: Self.fields, of: decoder)
        let format = try c.whole("format")
        guard format == Level.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: AnyKey("format"), in: c,
                debugDescription: "format \(format) is not supported (this build reads format \(Level.formatVersion))")
        }
        let mode = try c.decode(ModeObject.self, forKey: AnyKey("mode")).mode
        var level = Level(name: try c.value("name"), mode: mode, power: try c.choice("power", default: Power.none))
        level.author = try c.optional("author")
        level.description = try c.optional("description")
        level.readOnly = try c.optional("read_only") ?? false
        level.purpleRoams = try c.optional("purple_roams") ?? true
        let pegs = try c.decode([PegField].self, forKey: AnyKey("pegs"))
        let blocks = try c.decodeIfPresent([BlockField].self, forKey: AnyKey("blocks")) ?? []
        // Objects without an id get the next free ones, in file order (pegs, then blocks).
        var next = ((pegs.compactMap(\.id) + blocks.compactMap(\.id)).max() ?? 0) + 1
        func assign(_ id: Int?) -> Int {
            if let id { return id }
            defer { next += 1 }
            return next
        }
        level.pegs = pegs.map { Peg(id: assign($0.id), kind: $0.kind, center: $0.center, shape: $0.shape) }
        level.blocks = blocks.map {
            Block(id: assign($0.id), shape: $0.shape, center: $0.center, width: $0.width, height: $0.height,
                  rotation: $0.rotation, springiness: $0.springiness)
        }
        self.level = level
    }
}

/// The file's mode object, read field by field through `ModeField.all`.
struct ModeObject: Decodable {
    var mode: GameMode

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        let kind: GameModeKind = try c.choice("type")
        try c.rejectUnknown(allowed: Set(["type"] + kind.fields.map(\.name)), of: decoder)
        // A missing field takes its default, except one a level file must give (`requiredInFile`).
        var values: [String: ModeFieldValue] = [:]
        for field in kind.fields {
            let value: ModeFieldValue? = switch field.domain {
            case .whole: try field.requiredInFile ? .whole(c.whole(field.name)) : c.optionalWhole(field.name).map(ModeFieldValue.whole)
            case .real: try field.requiredInFile ? .real(c.value(field.name)) : c.optional(field.name).map(ModeFieldValue.real)
            }
            values[field.name] = value
        }
        mode = ModeField.mode(kind, values)
    }
}

struct PegField: Decodable {
    var id: Int?
    var kind: PegKind
    var center: Vec2
    var shape: PegShape

    enum Outline: String, CaseIterable { case circle, brick }

    static let circleFields: Set<String> = ["id", "kind", "x", "y", "shape", "radius"]
    static let brickFields: Set<String> = ["id", "kind", "x", "y", "shape", "width", "height", "rotation"]

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        id = try c.optionalWhole("id")
        kind = try c.choice("kind")
        center = Vec2(try c.value("x"), try c.value("y"))
        let outline: Outline = try c.choice("shape", default: .circle)
        switch outline {
        case .circle:
            try c.rejectUnknown(allowed: Self.circleFields, of: decoder)
            shape = .circle(radius: try c.optional("radius") ?? 12)
        case .brick:
            try c.rejectUnknown(allowed: Self.brickFields, of: decoder)
            shape = .brick(width: try c.value("width"), height: try c.value("height"),
                           rotation: try c.optional("rotation") ?? 0)
        }
    }
}

struct BlockField: Decodable {
    var id: Int?
    var shape: BlockShape
    var center: Vec2
    var width: Double, height: Double, rotation: Double, springiness: Double

    static let fields: Set<String> = ["id", "shape", "x", "y", "width", "height", "rotation", "springiness"]

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        try c.rejectUnknown(allowed: Self.fields, of: decoder)
        id = try c.optionalWhole("id")
        shape = try c.choice("shape")
        center = Vec2(try c.value("x"), try c.value("y"))
        width = try c.value("width")
        height = try c.value("height")
        rotation = try c.optional("rotation") ?? 0
        springiness = try c.optional("springiness") ?? 0
    }
}
