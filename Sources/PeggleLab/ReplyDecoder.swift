import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Decodes a reply line into a caller's `Decodable` type reading only the fields the type asks
/// for: an object's keys are found once, and the values no field asks for are skipped (their
/// brackets and strings matched, not parsed). `JSONDecoder` parses the whole line first; a
/// 64-environment step's reply (15 KB, with thousands of info values) cost the bench's client
/// 1.2 M instructions that way, beside the server's 0.4 M. What it does not read plainly (a
/// string with escapes, a number that is not a plain JSON integer for an integer type, any
/// floating-point number, a type `JSONDecoder` reads its own way (`Data`, `Date`, `URL`,
/// `Decimal`), a type mismatch, a missing key) throws `Unread`, and `ServeClient` then
/// decodes the line with `JSONDecoder`, whose values and errors stay the reference
/// (ReplyDecoderTests compares the two).
enum ReplyDecoder {
    /// What this decoder leaves to `JSONDecoder`.
    struct Unread: Error {}

    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>) throws -> T {
        var scan = Scanner(b: bytes, i: 0)
        let start = try scan.valueStart()
        var end = scan
        try end.skipValue()
        end.skipSpace()
        guard end.i == bytes.count else { throw Unread() }
        return try T(from: Reader(b: bytes, at: start, codingPath: []))
    }

    /// Positions in the line, and how values are skipped.
    struct Scanner {
        let b: UnsafeBufferPointer<UInt8>
        var i: Int

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        }

        /// The offset of the next value, after whitespace.
        mutating func valueStart() throws -> Int {
            skipSpace()
            guard i < b.count else { throw Unread() }
            return i
        }

        mutating func expect(_ c: UInt8) throws {
            skipSpace()
            guard i < b.count, b[i] == c else { throw Unread() }
            i += 1
        }

        /// Whether `c` comes next (after whitespace); taken if so.
        mutating func take(_ c: UInt8) -> Bool {
            skipSpace()
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }

        /// Past a string whose opening quote is at `i`; the range of its contents.
        mutating func skipString() throws -> Range<Int> {
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw Unread() }
            i += 1
            let start = i
            while i < b.count {
                switch b[i] {
                case UInt8(ascii: "\""): i += 1; return start..<(i - 1)
                case UInt8(ascii: "\\"): i += 2
                default: i += 1
                }
            }
            throw Unread()
        }

        /// Past the value at `i` (after whitespace): strings and brackets matched, scalars to
        /// the next delimiter.
        mutating func skipValue() throws {
            skipSpace()
            guard i < b.count else { throw Unread() }
            switch b[i] {
            case UInt8(ascii: "\""):
                _ = try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while i < b.count {
                    switch b[i] {
                    case UInt8(ascii: "\""): _ = try skipString(); continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { i += 1; return }
                    default: break
                    }
                    i += 1
                }
                throw Unread()
            default:
                let start = i
                while i < b.count {
                    switch b[i] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: break
                    default: i += 1; continue
                    }
                    break
                }
                guard i > start else { throw Unread() }
            }
        }
    }

    /// The decoder at one value.
    struct Reader: Decoder {
        let b: UnsafeBufferPointer<UInt8>
        let at: Int
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(try Keyed<Key>(b: b, at: at, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try Unkeyed(b: b, at: at, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            Single(b: b, at: at, codingPath: codingPath)
        }
    }

    /// Scalars as the protocol's replies write them.
    static func isNull(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> Bool {
        b.count - at >= 4 && b[at] == UInt8(ascii: "n") && b[at + 1] == UInt8(ascii: "u") && b[at + 2] == UInt8(ascii: "l")
            && b[at + 3] == UInt8(ascii: "l")
    }

    static func bool(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) throws -> Bool {
        if b.count - at >= 4, b[at] == UInt8(ascii: "t"), b[at + 1] == UInt8(ascii: "r"), b[at + 2] == UInt8(ascii: "u"),
           b[at + 3] == UInt8(ascii: "e") { return true }
        if b.count - at >= 5, b[at] == UInt8(ascii: "f"), b[at + 1] == UInt8(ascii: "a"), b[at + 2] == UInt8(ascii: "l"),
           b[at + 3] == UInt8(ascii: "s"), b[at + 4] == UInt8(ascii: "e") { return false }
        throw Unread()
    }

    /// A string without escapes.
    static func string(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) throws -> String {
        var s = Scanner(b: b, i: at)
        let r = try s.skipString()
        for k in r where b[k] == UInt8(ascii: "\\") { throw Unread() }
        return String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self)
    }

    /// A plain JSON integer (no fraction or exponent) that fits `T`.
    static func integer<T: FixedWidthInteger>(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) throws -> T {
        var i = at
        let negative = i < b.count && b[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let start = i
        var v: T = 0
        while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") {
            let d = T(b[i] - UInt8(ascii: "0"))
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (n, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            guard !o1, !o2 else { throw Unread() }
            v = n
            i += 1
        }
        guard i > start, b[start] != UInt8(ascii: "0") || i - start == 1 else { throw Unread() }
        if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") { throw Unread() }
        return v
    }

    /// Decodes `T` at `at`: the scalars here, anything else through its own `init(from:)`.
    static func value<T: Decodable>(_ type: T.Type, _ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ path: [any CodingKey]) throws -> T {
        if T.self == Bool.self { return try bool(b, at) as! T }
        if T.self == String.self { return try string(b, at) as! T }
        if T.self == Int.self { return try integer(b, at) as Int as! T }
        if T.self == Data.self || T.self == Date.self || T.self == URL.self || T.self == Decimal.self { throw Unread() }
        return try T(from: Reader(b: b, at: at, codingPath: path))
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let b: UnsafeBufferPointer<UInt8>
        let codingPath: [any CodingKey]
        /// Each key's contents (no escapes) and its value's offset, in the line's order.
        let entries: [(key: Range<Int>, value: Int)]

        init(b: UnsafeBufferPointer<UInt8>, at: Int, codingPath: [any CodingKey]) throws {
            self.b = b
            self.codingPath = codingPath
            var s = Scanner(b: b, i: at)
            try s.expect(UInt8(ascii: "{"))
            var entries: [(key: Range<Int>, value: Int)] = []
            if !s.take(UInt8(ascii: "}")) {
                repeat {
                    s.skipSpace()
                    let k = try s.skipString()
                    for c in k where b[c] == UInt8(ascii: "\\") { throw Unread() }
                    try s.expect(UInt8(ascii: ":"))
                    entries.append((k, try s.valueStart()))
                    try s.skipValue()
                } while s.take(UInt8(ascii: ","))
                try s.expect(UInt8(ascii: "}"))
            }
            self.entries = entries
        }

        var allKeys: [Key] {
            entries.compactMap { Key(stringValue: String(decoding: UnsafeBufferPointer(rebasing: b[$0.key]), as: UTF8.self)) }
        }

        /// The offset of `key`'s value; nil when the object has no such key.
        func find(_ key: Key) -> Int? {
            var name = key.stringValue
            return name.withUTF8 { n in
                for e in entries where e.key.count == n.count {
                    if memcmp(b.baseAddress! + e.key.lowerBound, n.baseAddress!, n.count) == 0 { return e.value }
                }
                return nil
            }
        }

        func at(_ key: Key) throws -> Int {
            guard let v = find(key) else { throw Unread() }
            return v
        }

        func contains(_ key: Key) -> Bool { find(key) != nil }
        func decodeNil(forKey key: Key) throws -> Bool { ReplyDecoder.isNull(b, try at(key)) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try ReplyDecoder.bool(b, at(key)) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try ReplyDecoder.string(b, at(key)) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { throw Unread() }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw Unread() }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try ReplyDecoder.integer(b, at(key)) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try ReplyDecoder.integer(b, at(key)) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try ReplyDecoder.value(T.self, b, at(key), codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(try Keyed<NestedKey>(b: b, at: at(key), codingPath: codingPath + [key]))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try Unkeyed(b: b, at: at(key), codingPath: codingPath + [key])
        }

        func superDecoder() throws -> any Decoder { throw Unread() }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Unread() }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let b: UnsafeBufferPointer<UInt8>
        let codingPath: [any CodingKey]
        /// Each element's offset.
        let elements: [Int]
        var currentIndex = 0
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(b: UnsafeBufferPointer<UInt8>, at: Int, codingPath: [any CodingKey]) throws {
            self.b = b
            self.codingPath = codingPath
            var s = Scanner(b: b, i: at)
            try s.expect(UInt8(ascii: "["))
            var elements: [Int] = []
            if !s.take(UInt8(ascii: "]")) {
                repeat {
                    elements.append(try s.valueStart())
                    try s.skipValue()
                } while s.take(UInt8(ascii: ","))
                try s.expect(UInt8(ascii: "]"))
            }
            self.elements = elements
        }

        /// The next element's offset, taken.
        mutating func next() throws -> Int {
            guard currentIndex < elements.count else { throw Unread() }
            currentIndex += 1
            return elements[currentIndex - 1]
        }

        mutating func decodeNil() throws -> Bool {
            guard currentIndex < elements.count else { throw Unread() }
            if ReplyDecoder.isNull(b, elements[currentIndex]) { currentIndex += 1; return true }
            return false
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try ReplyDecoder.bool(b, next()) }
        mutating func decode(_ type: String.Type) throws -> String { try ReplyDecoder.string(b, next()) }
        mutating func decode(_ type: Double.Type) throws -> Double { throw Unread() }
        mutating func decode(_ type: Float.Type) throws -> Float { throw Unread() }
        mutating func decode(_ type: Int.Type) throws -> Int { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try ReplyDecoder.integer(b, next()) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try ReplyDecoder.integer(b, next()) }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let at = try next()
            return try ReplyDecoder.value(T.self, b, at, codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            KeyedDecodingContainer(try Keyed<NestedKey>(b: b, at: next(), codingPath: codingPath))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try Unkeyed(b: b, at: next(), codingPath: codingPath)
        }

        mutating func superDecoder() throws -> any Decoder { throw Unread() }
    }

    struct Single: SingleValueDecodingContainer {
        let b: UnsafeBufferPointer<UInt8>
        let at: Int
        let codingPath: [any CodingKey]

        func decodeNil() -> Bool { ReplyDecoder.isNull(b, at) }
        func decode(_ type: Bool.Type) throws -> Bool { try ReplyDecoder.bool(b, at) }
        func decode(_ type: String.Type) throws -> String { try ReplyDecoder.string(b, at) }
        func decode(_ type: Double.Type) throws -> Double { throw Unread() }
        func decode(_ type: Float.Type) throws -> Float { throw Unread() }
        func decode(_ type: Int.Type) throws -> Int { try ReplyDecoder.integer(b, at) }
        func decode(_ type: Int8.Type) throws -> Int8 { try ReplyDecoder.integer(b, at) }
        func decode(_ type: Int16.Type) throws -> Int16 { try ReplyDecoder.integer(b, at) }
        func decode(_ type: Int32.Type) throws -> Int32 { try ReplyDecoder.integer(b, at) }
        func decode(_ type: Int64.Type) throws -> Int64 { try ReplyDecoder.integer(b, at) }
        func decode(_ type: UInt.Type) throws -> UInt { try ReplyDecoder.integer(b, at) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try ReplyDecoder.integer(b, at) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try ReplyDecoder.integer(b, at) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try ReplyDecoder.integer(b, at) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try ReplyDecoder.integer(b, at) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try ReplyDecoder.value(T.self, b, at, codingPath) }
    }
}
