import Foundation
import PeggleUtilities
import Testing

/// The one JSON tokenizer: its tokens are RFC 8259's, and it accepts a document exactly when
/// Foundation's decoder does (its users fall back to that decoder for what they leave), but for
/// two places where that decoder departs from the RFC (`foundationDeparts`).
@Suite struct JSONScannerTests {
    /// Where Swift 6.3's `JSONDecoder` departs from RFC 8259: it takes a trailing comma (`[1,]`,
    /// `{"a":1,}`), which the scanner refuses, and refuses a zero with an unsigned exponent
    /// (`0e2`, which the scanner reads). None is ever written by this package's writers.
    static func foundationDeparts(_ text: String) -> Bool {
        text.contains(/,\s*[\]}]/) || text.contains(/(^|[^0-9.])-?0[eE][0-9]/)
    }

    /// `body` on a scanner over `text`.
    static func scan<T>(_ text: String, _ body: (inout JSONScanner) -> T) -> T {
        var copy = text
        return copy.withUTF8 { b in
            var s = JSONScanner(b)
            return body(&s)
        }
    }

    /// The whole of `text` as one value, checked.
    static func isDocument(_ text: String) -> Bool { scan(text) { $0.skipValue() && $0.atEnd() } }

    @Test("numbers: JSON's grammar, their text as written, and nothing strtod reads beyond it")
    func numbers() {
        for (text, integer, negative) in [("0", true, false), ("-0", true, true), ("12", true, false), ("-3.25", false, true),
                                          ("1e5", false, false), ("1E+05", false, false), ("2.5e-3", false, false),
                                          ("1e400", false, false), ("123456789012345678901234567890", true, false)] {
            let token = Self.scan("  \(text) ") { s in s.number().map { ($0, s.text($0.text)) } }
            #expect(token?.1 == text)
            #expect(token?.0.isInteger == integer, "\(text)")
            #expect(token?.0.isNegative == negative, "\(text)")
        }
        for text in [".5", "01", "-01", "1.", "1.e2", "+1", "inf", "-", "1e", "1e+", "--1", "NaN", "-.5", ""] {
            #expect(Self.scan(text) { $0.number() } == nil, "\(text)")
        }
        // A number ends where its grammar does: what follows is the next token's business.
        #expect(Self.scan("12,3") { s in s.number().map { s.text($0.text) } } == "12")
        #expect(Self.scan("0x1") { s in s.number().map { s.text($0.text) } } == "0")
    }

    @Test("whole numbers read into each integer type, or nil past its range")
    func integers() {
        func read<T: FixedWidthInteger>(_ text: String, _ type: T.Type) -> T? {
            Self.scan(text) { s in s.number().flatMap { s.integer($0, as: T.self) } }
        }
        #expect(read("127", Int8.self) == 127)
        #expect(read("128", Int8.self) == nil)
        #expect(read("-128", Int8.self) == -128)
        #expect(read("-129", Int8.self) == nil)
        #expect(read("18446744073709551615", UInt64.self) == .max)
        #expect(read("18446744073709551616", UInt64.self) == nil)
        #expect(read("-1", UInt64.self) == nil)
        #expect(read("-0", UInt64.self) == 0)
        #expect(read("-9223372036854775808", Int.self) == .min)
        #expect(read("1.0", Int.self) == nil)
        #expect(read("1e2", Int.self) == nil)
    }

    @Test("strings: escapes checked and decoded as Foundation's decoder decodes them")
    func strings() throws {
        let samples = ["plain", "", "quote \" backslash \\ slash /", "tab\tnew\nline\rform\u{C}back\u{8}", "\u{1}\u{1F}\u{7F}",
                       "é ü 中文 😀 \u{10FFFF}", "\u{FFFD}\u{2028}"]
        var texts = try samples.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        texts += [#""\u00e9\u4E2D\ud83d\ude00""#, #""a\/b""#, #""\u0000""#]
        for text in texts {
            let token = try #require(Self.scan(text) { $0.string() }, "\(text)")
            let reference = try JSONDecoder().decode(String.self, from: Data(text.utf8))
            #expect(Self.scan(text) { s in s.unescaped(token) } == reference, "\(text)")
            #expect(token.escaped == text.contains("\\"), "\(text)")
        }
        // Not strings: a raw control character, a bad escape, a short \u, no closing quote.
        for text in ["\"a\u{1}b\"", "\"a\nb\"", #""\x""#, #""\u12""#, #""\u12G4""#, #""abc"#, #""abc\""#, "abc"] {
            #expect(Self.scan(text) { $0.string() } == nil, "\(text)")
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(String.self, from: Data(text.utf8)) }
        }
        // Half a surrogate pair is a well-formed escape with no character: nil, and the decoder refuses it.
        for text in [#""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#] {
            let token = try #require(Self.scan(text) { $0.string() })
            #expect(Self.scan(text) { s in s.unescaped(token) } == nil, "\(text)")
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(String.self, from: Data(text.utf8)) }
        }
    }

    @Test("literals and keys as written")
    func literals() {
        #expect(Self.scan(" true") { $0.literal() } == .true)
        #expect(Self.scan("false") { $0.literal() } == .false)
        #expect(Self.scan("null") { $0.literal() } == .null)
        #expect(Self.scan("nul") { $0.literal() } == nil)
        #expect(Self.scan("True") { $0.literal() } == nil)
        #expect(Self.scan(#" "cmd":"#) { $0.take(#""cmd""#) && $0.take(UInt8(ascii: ":")) })
        #expect(!Self.scan(#""c\u006dd""#) { $0.take(#""cmd""#) })
    }

    @Test("documents: containers matched and well formed, at most 64 deep", arguments: [
        (#"{"a": [1, -2.5e3, "x", true, false, null, {}, []], "b": {"c": {"d": [[]]}}}"#, true),
        ("  [ 1 , 2 ]\n", true), (#""alone""#, true), ("3", true), ("{}", true),
        ("[1,]", false), ("[,1]", false), (#"{"a":1,}"#, false), (#"{"a" 1}"#, false), (#"{a:1}"#, false), ("[1 2]", false),
        ("[}", false), ("{]", false), ("[[1]", false), ("[1]]", false), (#"{"a":1"#, false), ("", false), ("   ", false),
        ("[01]", false), ("[tru]", false), ("[truex]", false), ("[1] x", false), ("[1][2]", false),
        (String(repeating: "[", count: 64) + String(repeating: "]", count: 64), true),
        (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), false),
        (String(repeating: #"{"a":"#, count: 64) + "1" + String(repeating: "}", count: 64), true),
        (String(repeating: #"{"a":"#, count: 64) + "{}" + String(repeating: "}", count: 64), false),
    ])
    func documents(text: String, valid: Bool) throws {
        #expect(Self.isDocument(text) == valid)
        // Foundation's decoder agrees (it reads deeper than 64; no document here but the two deep ones is).
        if !text.hasPrefix(String(repeating: "[", count: 65)) && !text.hasPrefix(String(repeating: #"{"a":"#, count: 64) + "{}")
            && !Self.foundationDeparts(text) {
            #expect(((try? JSONDecoder().decode(AnyJSON.self, from: Data(text.utf8))) != nil) == valid)
        }
    }

    @Test("one mutated byte at a time: the scanner accepts exactly what Foundation's decoder accepts")
    func mutations() {
        #expect(Self.isDocument("[0e2]") && !Self.isDocument("[1,]"))
        #expect((try? JSONDecoder().decode(AnyJSON.self, from: Data("[0e2]".utf8))) == nil)
        #expect((try? JSONDecoder().decode(AnyJSON.self, from: Data("[1,]".utf8))) != nil)
        let base = Array(#"{"ab": [1, -20.5, 3e2, "x\ny", true, null], "c": {"d": false, "e": [{}, []]}, "f": "\u00e9"}"#.utf8)
        let alphabet = Array(#"{}[],:" 0-.e\tfnxa"#.utf8)
        var disagreements: [String] = []
        for i in base.indices {
            for c in alphabet {
                for text in [base[..<i] + [c] + base[(i + 1)...], base[..<i] + [c] + base[i...], base[..<i] + base[(i + 1)...]] {
                    let string = String(decoding: text, as: UTF8.self)
                    let decoder = (try? JSONDecoder().decode(AnyJSON.self, from: Data(text))) != nil
                    if Self.isDocument(string) != decoder && !Self.foundationDeparts(string) { disagreements.append(string) }
                }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }

    /// Every event of a walk, as text.
    struct Events: JSONVisitor {
        var log: [String] = []
        mutating func open(object: Bool) { log.append(object ? "{" : "[") }
        mutating func close() { log.append("end") }
        mutating func key(_ key: JSONScanner.StringToken, in scanner: JSONScanner) { log.append("key \(scanner.unescaped(key) ?? "?")") }
        mutating func element() { log.append("element") }
        mutating func string(_ token: JSONScanner.StringToken, in scanner: JSONScanner) { log.append("string \(scanner.text(token.contents))") }
        mutating func number(_ token: JSONScanner.NumberToken, in scanner: JSONScanner) { log.append("number \(scanner.text(token.text))") }
    }

    @Test("a visitor is told where the scanner is and each scalar it passes")
    func visitor() {
        var events = Events()
        #expect(Self.scan(#"{"a": [1, {"b\u0021": "x"}, []], "c": true}"#) { $0.skipValue(&events) })
        #expect(events.log == ["{", "key a", "[", "element", "number 1", "element", "{", "key b!", "string x", "end",
                               "element", "[", "end", "end", "key c", "end"])
    }
}

/// Any JSON value, for asking Foundation's decoder whether a text is JSON.
enum AnyJSON: Decodable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null } else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) } else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([AnyJSON].self) { self = .array(a) } else { self = .object(try c.decode([String: AnyJSON].self)) }
    }
}
