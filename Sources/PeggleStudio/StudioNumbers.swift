import Foundation

/// Names the field of a number a request type cannot hold. Foundation's `JSONDecoder` on Linux
/// answers a seed of -1, 2^64, 1.5 or 1e400 (valid JSON, out of the field's range) with "The given
/// data was not valid JSON" and no coding path; this finds which number it was, by the decoder
/// itself: the body's numbers (outside strings) are replaced by 0, a number every numeric field
/// takes, until the body decodes past them.
enum StudioNumbers {
    /// A request's whole-number fields with a narrower range than their type's, by path ("budget"):
    /// a number past the type's range is refused with the field's own range, which the handler
    /// checks with the same declaration.
    protocol Ranges {
        static var wholeRanges: [String: ClosedRange<Int>] { get }
    }

    /// A number token of the body: where it is and its text.
    struct Token {
        var range: Range<Int>
        var text: String
        var path: String
    }

    /// The refusal for `data`, which `T` refused with no coding path: "seed: -1 is not a whole
    /// number in 0...18446744073709551615". Nil when the body is not valid JSON, or when no
    /// number is to blame.
    static func refusal<T: Decodable>(_ type: T.Type, _ data: Data) -> String? {
        let bytes = [UInt8](data)
        guard let tokens = scan(bytes), !tokens.isEmpty else { return nil }
        func replaced(_ count: Int, last: String = "0") -> Data {
            var out = bytes
            for (k, t) in tokens.prefix(count).enumerated().reversed() {
                out.replaceSubrange(t.range, with: Array((k == count - 1 ? last : "0").utf8))
            }
            return Data(out)
        }
        /// Whether the decoder still fails without a path once the first `count` numbers are 0.
        func blind(_ count: Int, last: String = "0") -> Bool {
            do { _ = try JSONDecoder().decode(T.self, from: replaced(count, last: last)); return false } catch let DecodingError.dataCorrupted(c) {
                return c.codingPath.isEmpty
            } catch {
                return false
            }
        }
        guard !blind(tokens.count) else { return nil }
        // blind(k) holds while some number after the first k is to blame: the first k where it
        // no longer holds ends at the last such number.
        var low = 0, high = tokens.count  // blind(low), !blind(high)
        while high - low > 1 {
            let mid = (low + high) / 2
            if blind(mid) { low = mid } else { high = mid }
        }
        let token = tokens[high - 1]
        // What the field takes, asked of the decoder: a fraction, a negative whole number.
        let what: String
        if !blind(high, last: "0.5") {
            what = underflows(token.text) ? "is too close to 0 for a double (under about 2.2e-308 apart from 0; write 0)"
                : "is not a finite number (a double: at most about 1.8e308)"
        } else if let range = (T.self as? Ranges.Type)?.wholeRanges[token.path] {
            what = "is not a whole number in \(range.lowerBound)...\(range.upperBound)"
        } else if !blind(high, last: "-1") {
            what = "is not a whole number in \(Int64.min)...\(Int64.max)"
        } else {
            what = "is not a whole number in 0...\(UInt64.max)"
        }
        let shown = token.text.count > 40 ? String(token.text.prefix(40)) + "\u{2026}" : token.text
        return "\(token.path.isEmpty ? "the body" : token.path): \(shown) \(what)"
    }

    /// Whether the number `text` is not 0 but nearer 0 than a normal double: the decoder refuses
    /// it as it refuses an overflow, for another reason.
    static func underflows(_ text: String) -> Bool {
        let mantissa = text.prefix { $0 != "e" && $0 != "E" }
        guard mantissa.contains(where: { ("1"..."9").contains($0) }), let v = Double(text) else { return false }
        return abs(v) < Double.leastNormalMagnitude
    }

    /// Deeper bodies are not looked into (the scan recurses; no request of the studio nests past 4).
    static let maxDepth = 64

    /// The number tokens of `bytes` with their paths (`op.x`, `angles[3]`), or nil when it is
    /// not valid JSON (beyond numbers' ranges, which the decoder judges).
    static func scan(_ bytes: [UInt8]) -> [Token]? {
        enum Frame { case object(key: String?), array(index: Int) }
        var stack: [Frame] = []
        var tokens: [Token] = []
        var i = 0
        func path() -> String {
            var out = ""
            for f in stack {
                switch f {
                case let .object(key): if let key { out += out.isEmpty ? key : ".\(key)" }
                case let .array(index): out += "[\(index)]"
                }
            }
            return out
        }
        func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        /// A string from `i` (at its quote); its text, or nil.
        func string() -> String? {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let start = i + 1
            i += 1
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\") { i += 1 }
                i += 1
            }
            guard i < bytes.count else { return nil }
            defer { i += 1 }
            let raw = Data(bytes[(start - 1)...i])
            return (try? JSONDecoder().decode(String.self, from: raw)) ?? String(decoding: bytes[start..<i], as: UTF8.self)
        }
        func value() -> Bool {
            skipSpace()
            guard i < bytes.count else { return false }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                guard stack.count < maxDepth else { return false }
                stack.append(.object(key: nil))
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; stack.removeLast(); return true }
                while true {
                    skipSpace()
                    guard let key = string() else { return false }
                    stack[stack.count - 1] = .object(key: key)
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return false }
                    i += 1
                    guard value() else { return false }
                    skipSpace()
                    guard i < bytes.count else { return false }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                    guard bytes[i] == UInt8(ascii: "}") else { return false }
                    i += 1
                    stack.removeLast()
                    return true
                }
            case UInt8(ascii: "["):
                i += 1
                guard stack.count < maxDepth else { return false }
                stack.append(.array(index: 0))
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; stack.removeLast(); return true }
                var index = 0
                while true {
                    stack[stack.count - 1] = .array(index: index)
                    guard value() else { return false }
                    skipSpace()
                    guard i < bytes.count else { return false }
                    if bytes[i] == UInt8(ascii: ",") { i += 1; index += 1; continue }
                    guard bytes[i] == UInt8(ascii: "]") else { return false }
                    i += 1
                    stack.removeLast()
                    return true
                }
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                let allowed = Set("+-0123456789.eE".utf8)
                while i < bytes.count, allowed.contains(bytes[i]) { i += 1 }
                let text = String(decoding: bytes[start..<i], as: UTF8.self)
                // JSON's number grammar; the range is the decoder's to judge.
                guard text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/) != nil else { return false }
                tokens.append(Token(range: start..<i, text: text, path: path()))
                return true
            default:
                for word in ["true", "false", "null"] where bytes[i...].starts(with: word.utf8) {
                    i += word.utf8.count
                    return true
                }
                return false
            }
        }
        guard value() else { return nil }
        skipSpace()
        return i == bytes.count ? tokens : nil
    }
}
