import Foundation
import PeggleUtilities

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
            do { _ = try StudioJSON.decoder().decode(T.self, from: replaced(count, last: last)); return false } catch let DecodingError.dataCorrupted(c) {
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

    /// The number tokens of `bytes` with their paths (`op.x`, `angles[3]`), or nil when it is
    /// not valid JSON (beyond numbers' ranges, which the decoder judges), as PeggleUtilities'
    /// `JSONScanner` reads it (the one JSON tokenizer; it reads no deeper than 64 levels, and no
    /// request of the studio nests past 4).
    static func scan(_ bytes: [UInt8]) -> [Token]? {
        bytes.withUnsafeBufferPointer { b in
            var json = JSONScanner(b)
            var numbers = Numbers()
            guard json.skipValue(&numbers), json.atEnd(), !numbers.badKey else { return nil }
            return numbers.tokens
        }
    }

    /// Collects the numbers with their paths as the scanner passes them.
    struct Numbers: JSONVisitor {
        enum Frame { case object(key: String?), array(index: Int) }
        var stack: [Frame] = []
        var tokens: [Token] = []
        /// A key with a half surrogate pair (`\ud800`): not JSON to the decoder either.
        var badKey = false

        mutating func open(object: Bool) { stack.append(object ? .object(key: nil) : .array(index: -1)) }
        mutating func close() { stack.removeLast() }

        mutating func key(_ key: JSONScanner.StringToken, in scanner: JSONScanner) {
            guard let text = scanner.unescaped(key) else { return badKey = true }
            stack[stack.count - 1] = .object(key: text)
        }

        mutating func element() {
            if case let .array(index) = stack.last { stack[stack.count - 1] = .array(index: index + 1) }
        }

        mutating func number(_ token: JSONScanner.NumberToken, in scanner: JSONScanner) {
            tokens.append(Token(range: token.text, text: scanner.text(token.text), path: path()))
        }

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
    }
}
