/// The one reader of JSON text's tokens (RFC 8259), over its UTF-8 bytes in place: no copy and no
/// allocation while it scans, nothing decoded that the caller does not ask for. Strings come back as
/// the range of their contents with whether they hold escapes (`unescaped` decodes them), numbers as
/// the range of their text (checked against JSON's grammar, which `Double(String)` is looser than: it
/// takes hex, "inf", a leading "+"), literals by name; `skipValue` passes over a whole value, checked,
/// and tells a `JSONVisitor` where each scalar is. Every method skips JSON whitespace first.
///
/// Its users work beside Foundation's decoder, whose values and errors stay the reference:
/// `peggle serve`'s step line (PeggleServe's `StepLine`) and the lab's reply decoder (PeggleLab's
/// `ReplyDecoder`) read the shapes they know without it and leave it the rest; the studio finds
/// which number of a request it refused (PeggleStudio's `StudioNumbers`). So a method that finds no
/// such token returns nil (or false) and the caller gives up; where it then leaves `position` is
/// unspecified.
public struct JSONScanner {
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    public var position: Int

    /// Containers nest at most this deep in `skipValue` (its stack is a 64-bit word); a deeper
    /// value is refused as if it were not JSON, and so left to Foundation's decoder by every user.
    public static let maxDepth = 64

    @inlinable
    public init(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    // MARK: Bytes

    @inlinable
    public mutating func skipSpace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte after whitespace, not taken; nil at the end.
    @inlinable
    public mutating func peek() -> UInt8? {
        skipSpace()
        return position < bytes.count ? bytes[position] : nil
    }

    /// Whether only whitespace is left.
    @inlinable
    public mutating func atEnd() -> Bool {
        skipSpace()
        return position == bytes.count
    }

    /// Takes `byte` if it comes next.
    @inlinable
    public mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Takes `text` if its bytes come next, as written (a key with its quotes, `#""cmd""#`: one
    /// written with escapes does not match).
    @inlinable
    public mutating func take(_ text: StaticString) -> Bool {
        skipSpace()
        let n = text.utf8CodeUnitCount
        guard bytes.count - position >= n else { return false }
        let p = text.utf8Start
        for k in 0..<n where bytes[position + k] != p[k] { return false }
        position += n
        return true
    }

    // MARK: Tokens

    /// A string token: the range of the bytes between its quotes.
    public struct StringToken: Equatable, Sendable {
        public var contents: Range<Int>
        /// Whether it holds a backslash escape (its text is then `unescaped`'s to read).
        public var escaped: Bool

        @inlinable
        public init(contents: Range<Int>, escaped: Bool) {
            self.contents = contents
            self.escaped = escaped
        }
    }

    /// A number token: the range of its text.
    public struct NumberToken: Equatable, Sendable {
        public var text: Range<Int>
        /// No fraction and no exponent.
        public var isInteger: Bool
        public var isNegative: Bool

        @inlinable
        public init(text: Range<Int>, isInteger: Bool, isNegative: Bool) {
            self.text = text
            self.isInteger = isInteger
            self.isNegative = isNegative
        }
    }

    public enum Literal: Equatable, Sendable { case `true`, `false`, null }

    /// A string whose escapes are well formed (a backslash and one of `"\/bfnrt`, or `u` and
    /// four hex digits) and with no raw control character; nil for anything else.
    @inlinable
    public mutating func string() -> StringToken? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = position
        var escaped = false
        while position < bytes.count {
            let c = bytes[position]
            if c == UInt8(ascii: "\"") {
                position += 1
                return StringToken(contents: start..<(position - 1), escaped: escaped)
            }
            if c == UInt8(ascii: "\\") {
                escaped = true
                guard position + 1 < bytes.count else { return nil }
                switch bytes[position + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 2
                case UInt8(ascii: "u"):
                    guard bytes.count - position >= 6 else { return nil }
                    for k in 2..<6 where Self.hexValue(bytes[position + k]) == nil { return nil }
                    position += 6
                default:
                    return nil
                }
                continue
            }
            guard c >= 0x20 else { return nil }
            position += 1
        }
        return nil
    }

    /// One JSON number: `-`? then `0` or a digit 1-9 and digits, then `.` and digits?, then `e`
    /// or `E`, a sign? and digits?. Nil for anything else (`.5`, `01`, `1.`, `+1`, `0x1`, `inf`).
    /// Its range is not judged: that is the reader's.
    @inlinable
    public mutating func number() -> NumberToken? {
        skipSpace()
        let start = position
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let first = position
        guard digits() else { return nil }
        // A leading 0 is the only digit of the integer part.
        if bytes[first] == UInt8(ascii: "0"), position - first > 1 { return nil }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() else { return nil }
            isInteger = false
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() else { return nil }
            isInteger = false
        }
        return NumberToken(text: start..<position, isInteger: isInteger, isNegative: negative)
    }

    /// One or more digits.
    @inlinable
    mutating func digits() -> Bool {
        let start = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        return position > start
    }

    /// `true`, `false` or `null`.
    @inlinable
    public mutating func literal() -> Literal? {
        if take("true") { return .true }
        if take("false") { return .false }
        if take("null") { return .null }
        return nil
    }

    // MARK: Reading tokens

    /// The bytes of `range` as text.
    @inlinable
    public func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// The value of an integer token if it fits `T`; nil for a fraction, an exponent, or a value
    /// out of `T`'s range (`-0` is 0).
    @inlinable
    public func integer<T: FixedWidthInteger>(_ token: NumberToken, as type: T.Type = T.self) -> T? {
        guard token.isInteger else { return nil }
        var v: T = 0
        for i in (token.text.lowerBound + (token.isNegative ? 1 : 0))..<token.text.upperBound {
            let d = T(bytes[i] &- UInt8(ascii: "0"))
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (n, o2) = token.isNegative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            guard !o1, !o2 else { return nil }
            v = n
        }
        return v
    }

    /// A string token's text with its escapes decoded; nil when a `\u` escape is half of a
    /// surrogate pair without the other half (which Foundation's decoder refuses too).
    public func unescaped(_ token: StringToken) -> String? {
        guard token.escaped else { return text(token.contents) }
        var out = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        func flush() {
            out.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
            utf8.removeAll(keepingCapacity: true)
        }
        func hex4(_ at: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 << 4 | UInt32(Self.hexValue(bytes[at + $1]) ?? 0) }
        }
        var i = token.contents.lowerBound
        let end = token.contents.upperBound
        while i < end {
            let c = bytes[i]
            guard c == UInt8(ascii: "\\") else {
                utf8.append(c)
                i += 1
                continue
            }
            flush()
            let e = bytes[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append("\u{8}")
            case UInt8(ascii: "f"): out.append("\u{C}")
            case UInt8(ascii: "n"): out.append("\n")
            case UInt8(ascii: "r"): out.append("\r")
            case UInt8(ascii: "t"): out.append("\t")
            case UInt8(ascii: "u"):
                var v = hex4(i)
                i += 4
                if (0xD800..<0xDC00).contains(v) {
                    guard end - i >= 6, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { return nil }
                    let low = hex4(i + 2)
                    guard (0xDC00..<0xE000).contains(low) else { return nil }
                    v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                guard let scalar = Unicode.Scalar(v) else { return nil }
                out.append(scalar)
            default: out.append(Unicode.Scalar(e))  // " \ /
            }
        }
        flush()
        return String(out)
    }

    @inlinable
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: Values

    /// Passes over one whole value (after whitespace), checked: containers matched and well
    /// formed, every token one of the above.
    @inlinable
    public mutating func skipValue() -> Bool {
        var none = NoVisitor()
        return skipValue(&none)
    }

    /// `skipValue`, telling `visitor` where it is (containers opening and closing, each member's
    /// key and each element before its value) and each scalar it passes.
    @inlinable
    public mutating func skipValue<V: JSONVisitor>(_ visitor: inout V) -> Bool {
        // One bit per open container, 1 for an object; `depth` of them.
        var objects: UInt64 = 0
        var depth = 0
        while true {
            // A value.
            guard let c = peek() else { return false }
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < Self.maxDepth else { return false }
                position += 1
                let isObject = c == UInt8(ascii: "{")
                visitor.open(object: isObject)
                if take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    visitor.close()
                    break
                }
                objects = objects << 1 | (isObject ? 1 : 0)
                depth += 1
                guard member(isObject, &visitor) else { return false }
                continue
            case UInt8(ascii: "\""):
                guard let s = string() else { return false }
                visitor.string(s, in: self)
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                guard literal() != nil else { return false }
            default:
                guard let n = number() else { return false }
                visitor.number(n, in: self)
            }
            // After a value: the next member or element, or the ends of containers.
            while true {
                if depth == 0 { return true }
                let isObject = objects & 1 == 1
                if take(UInt8(ascii: ",")) {
                    guard member(isObject, &visitor) else { return false }
                    break
                }
                guard take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                objects >>= 1
                depth -= 1
                visitor.close()
            }
        }
    }

    /// The start of the next member of an object (its key and colon) or element of an array.
    @inlinable
    mutating func member<V: JSONVisitor>(_ inObject: Bool, _ visitor: inout V) -> Bool {
        guard inObject else {
            visitor.element()
            return true
        }
        guard let key = string(), take(UInt8(ascii: ":")) else { return false }
        visitor.key(key, in: self)
        return true
    }
}

/// What `JSONScanner.skipValue(_:)` tells as it passes a value: containers opening and closing
/// (an empty one too), each member's key and each element before its value, and the scalars.
/// Each has a default that does nothing, so a visitor writes what it needs.
public protocol JSONVisitor {
    mutating func open(object: Bool)
    mutating func close()
    mutating func key(_ key: JSONScanner.StringToken, in scanner: JSONScanner)
    /// The next element of the innermost array begins.
    mutating func element()
    mutating func string(_ token: JSONScanner.StringToken, in scanner: JSONScanner)
    mutating func number(_ token: JSONScanner.NumberToken, in scanner: JSONScanner)
}

extension JSONVisitor {
    @inlinable public mutating func open(object: Bool) {}
    @inlinable public mutating func close() {}
    @inlinable public mutating func key(_ key: JSONScanner.StringToken, in scanner: JSONScanner) {}
    @inlinable public mutating func element() {}
    @inlinable public mutating func string(_ token: JSONScanner.StringToken, in scanner: JSONScanner) {}
    @inlinable public mutating func number(_ token: JSONScanner.NumberToken, in scanner: JSONScanner) {}
}

/// The visitor of a plain skip.
public struct NoVisitor: JSONVisitor {
    @inlinable public init() {}
}
