/// The `step` line as clients send it in their hot loop (`{"cmd":"step","id":7,"actions":[...]}`,
/// keys in any order, `id` optional, JSON whitespace anywhere between tokens), read straight from
/// the line's bytes into the typed request. Through `JSONDecoder` (which builds a map of the
/// whole line before the request reads it) a 64-environment step's request cost about 0.5 M
/// instructions, a quarter of the server's work beyond the simulation. Any other shape returns nil and goes
/// through the decoder, so every refusal, odd id and odd number is still read by the one typed
/// path (`Request.decode`).
enum StepLine {
    /// The request, or nil when the line is not plainly such a step (then the decoder reads it).
    static func parse(_ line: String) -> Request? {
        var line = line
        return line.withUTF8 { bytes in
            var p = Parser(b: bytes)
            return p.request()
        }
    }

    /// Longest number text read here; a longer one (no client writes one: 17 significant digits
    /// name any double) goes through the decoder.
    static let longestNumber = 40

    struct Parser {
        let b: UnsafeBufferPointer<UInt8>
        var i = 0

        mutating func request() -> Request? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var cmd = false
            var id: RequestID?
            var actions: [Double]?
            repeat {
                guard let k = key(), take(UInt8(ascii: ":")) else { return nil }
                switch k {
                case .cmd:
                    // Exactly "step": any other command, or an escape, is the decoder's.
                    guard !cmd, take(#""step""#) else { return nil }
                    cmd = true
                case .id:
                    guard id == nil, let n = smallWholeNumber() else { return nil }
                    // What the decoder makes of a whole number below 2^53 (JSONScalar).
                    id = .double(Double(n))
                case .actions:
                    guard actions == nil, let a = numbers() else { return nil }
                    actions = a
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")), cmd, let actions else { return nil }
            skipSpace()
            guard i == b.count else { return nil }
            return Request(id: id, command: .step(StepRequest(actions: actions)))
        }

        enum Key { case cmd, id, actions }

        /// A key the step takes, written without escapes; nil for any other.
        mutating func key() -> Key? {
            if take(#""cmd""#) { return .cmd }
            if take(#""id""#) { return .id }
            if take(#""actions""#) { return .actions }
            return nil
        }

        mutating func skipSpace() {
            while i < b.count {
                switch b[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        /// Skips whitespace, then `c` if it comes next.
        mutating func take(_ c: UInt8) -> Bool {
            skipSpace()
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }

        /// Skips whitespace, then `token` if it comes next.
        mutating func take(_ token: StaticString) -> Bool {
            skipSpace()
            let n = token.utf8CodeUnitCount
            guard b.count - i >= n else { return false }
            let p = token.utf8Start
            for k in 0..<n where b[i + k] != p[k] { return false }
            i += n
            return true
        }

        /// Digits of a whole number from 0 to 10^15 - 1 with no sign, fraction or exponent
        /// (the ids clients count with); nil for anything else.
        mutating func smallWholeNumber() -> Int? {
            skipSpace()
            let start = i
            var n = 0
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") {
                n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
                i += 1
            }
            let count = i - start
            guard count >= 1, count <= 15, b[start] != UInt8(ascii: "0") || count == 1 else { return nil }
            // A fraction or exponent follows: not a plain whole number.
            if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") { return nil }
            return n
        }

        /// `[n, n, ...]`, at least one number; nil for anything else.
        mutating func numbers() -> [Double]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var values: [Double] = []
            repeat {
                guard let d = number() else { return nil }
                values.append(d)
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
            return values
        }

        /// One JSON number (RFC 8259's grammar, checked here, as `Double(String)` accepts more:
        /// hex, "inf", a leading "+"), read exactly. Nil for zero (how the decoder signs a
        /// negative zero stays its own business), a subnormal, or a number beyond a double's
        /// range: the decoder reads, or refuses, those as it always has.
        mutating func number() -> Double? {
            skipSpace()
            let start = i
            if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits(leadingZeroAlone: true) else { return nil }
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                guard digits(leadingZeroAlone: false) else { return nil }
            }
            if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard digits(leadingZeroAlone: false) else { return nil }
            }
            let count = i - start
            guard count <= StepLine.longestNumber else { return nil }
            // Swift's own reading of the checked text: correctly rounded, as `JSONDecoder` reads
            // numbers (StepLineTests compares the two), and locale-independent.
            guard let d = Double(String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)) else { return nil }
            guard d.isNormal else { return nil }
            return d
        }

        /// One or more digits; with `leadingZeroAlone`, a leading 0 must be the only digit (JSON's integer part).
        mutating func digits(leadingZeroAlone: Bool) -> Bool {
            let start = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > start else { return false }
            return !leadingZeroAlone || b[start] != UInt8(ascii: "0") || i - start == 1
        }
    }
}
