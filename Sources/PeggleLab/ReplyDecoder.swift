import Foundation
import PeggleUtilities
#if canImport(Glibc)
import Glibc
#endif

/// Decodes a reply line into a caller's `Decodable` type reading only the fields the type asks for:
/// an object's keys are found once, and the values no field asks for are skipped (checked token by
/// token by PeggleUtilities' `JSONScanner`, not decoded). `JSONDecoder` parses the whole line
/// first; a 64-environment step's reply (15 KB, with thousands of info values) cost the bench's
/// client 1.2 M instructions that way, beside the server's 0.4 M. What it does not read plainly (a
/// string with escapes, a number that is not a plain JSON integer for an integer type, any
/// floating-point number, a type `JSONDecoder` reads its own way (`Data`, `Date`, `URL`,
/// `Decimal`), a type mismatch, a missing key, a line that is not JSON to the scanner) throws
/// `Unread`, and `ServeClient` then decodes the line with `JSONDecoder`, whose values and errors
/// stay the reference (ReplyDecoderTests compares the two).
package enum ReplyDecoder {
    /// What this decoder leaves to `JSONDecoder`.
    struct Unread: Error {}

    package static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>) throws -> T {
        var scan = JSONScanner(bytes)
        scan.skipSpace()
        let start = scan.position
        guard scan.skipValue(), scan.atEnd() else { throw Unread() }
        return try T(from: Reader(b: bytes, at: start, codingPath: []))
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

    /// Scalars as the protocol's replies write them, each the value at `at` (PeggleUtilities'
    /// `JSONScanner`, the one JSON tokenizer, reads the tokens).
    static func isNull(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> Bool {
        var s = JSONScanner(b, at: at)
        return s.literal() == .null
    }

    static func bool(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) throws -> Bool {
        var s = JSONScanner(b, at: at)
        switch s.literal() {
        case .true?: return true
        case .false?: return false
        default: throw Unread()
        }
    }

    /// A string without escapes.
    static func string(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) throws -> String {
        var s = JSONScanner(b, at: at)
        guard let t = s.string(), !t.escaped else { throw Unread() }
        return s.text(t.contents)
    }

    /// A plain JSON integer (no fraction or exponent) that fits `T`.
    static func integer<T: FixedWidthInteger>(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) throws -> T {
        var s = JSONScanner(b, at: at)
        guard let t = s.number(), let v = s.integer(t, as: T.self) else { throw Unread() }
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
            var s = JSONScanner(b, at: at)
            guard s.take(UInt8(ascii: "{")) else { throw Unread() }
            var entries: [(key: Range<Int>, value: Int)] = []
            if !s.take(UInt8(ascii: "}")) {
                repeat {
                    guard let k = s.string(), !k.escaped, s.take(UInt8(ascii: ":")) else { throw Unread() }
                    s.skipSpace()
                    entries.append((k.contents, s.position))
                    guard s.skipValue() else { throw Unread() }
                } while s.take(UInt8(ascii: ","))
                guard s.take(UInt8(ascii: "}")) else { throw Unread() }
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
            var s = JSONScanner(b, at: at)
            guard s.take(UInt8(ascii: "[")) else { throw Unread() }
            var elements: [Int] = []
            if !s.take(UInt8(ascii: "]")) {
                repeat {
                    s.skipSpace()
                    elements.append(s.position)
                    guard s.skipValue() else { throw Unread() }
                } while s.take(UInt8(ascii: ","))
                guard s.take(UInt8(ascii: "]")) else { throw Unread() }
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
