import PeggleUtilities

/// The `step` line as clients send it in their hot loop (`{"cmd":"step","id":7,"actions":[...]}`,
/// keys in any order, `id` optional, JSON whitespace anywhere between tokens), read straight from
/// the line's bytes into the typed request. Through `JSONDecoder` (which builds a map of the
/// whole line before the request reads it) a 64-environment step's request cost about 0.5 M
/// instructions, a quarter of the server's work beyond the simulation. Any other shape returns nil and goes
/// through the decoder, so every refusal, odd id and odd number is still read by the one typed
/// path (`Request.decode`).
package enum StepLine {
    /// The request, or nil when the line is not plainly such a step (then the decoder reads it).
    package static func parse(_ line: String) -> Request? {
        var line = line
        return line.withUTF8 { bytes in
            var p = Parser(b: bytes)
            return p.request()
        }
    }

    /// Longest number text read here; a longer one (no client writes one: 17 significant digits
    /// name any double) goes through the decoder.
    static let longestNumber = 40

    /// The line's tokens (PeggleUtilities' `JSONScanner`, the one JSON tokenizer) read as a step.
    struct Parser {
        var json: JSONScanner

        init(b: UnsafeBufferPointer<UInt8>) { json = JSONScanner(b) }

        mutating func request() -> Request? {
            guard json.take(UInt8(ascii: "{")) else { return nil }
            var cmd = false
            var id: RequestID?
            var actions: [Double]?
            repeat {
                guard let k = key(), json.take(UInt8(ascii: ":")) else { return nil }
                switch k {
                case .cmd:
                    // Exactly "step": any other command, or an escape, is the decoder's.
                    guard !cmd, json.take(#""step""#) else { return nil }
                    cmd = true
                case .id:
                    guard id == nil, let n = smallWholeNumber() else { return nil }
                    // What the decoder makes of a whole number below 2^53 (JSONScalar).
                    id = .double(Double(n))
                case .actions:
                    guard actions == nil, let a = numbers() else { return nil }
                    actions = a
                }
            } while json.take(UInt8(ascii: ","))
            guard json.take(UInt8(ascii: "}")), cmd, let actions, json.atEnd() else { return nil }
            return Request(id: id, command: .step(StepRequest(actions: actions)))
        }

        enum Key { case cmd, id, actions }

        /// A key the step takes, written without escapes; nil for any other.
        mutating func key() -> Key? {
            if json.take(#""cmd""#) { return .cmd }
            if json.take(#""id""#) { return .id }
            if json.take(#""actions""#) { return .actions }
            return nil
        }

        /// A whole number from 0 to 10^15 - 1 with no sign, fraction or exponent (the ids
        /// clients count with); nil for anything else.
        mutating func smallWholeNumber() -> Int? {
            guard let t = json.number(), !t.isNegative, t.text.count <= 15 else { return nil }
            return json.integer(t, as: Int.self)
        }

        /// `[n, n, ...]`, at least one number; nil for anything else.
        mutating func numbers() -> [Double]? {
            guard json.take(UInt8(ascii: "[")) else { return nil }
            var values: [Double] = []
            repeat {
                guard let d = number() else { return nil }
                values.append(d)
            } while json.take(UInt8(ascii: ","))
            guard json.take(UInt8(ascii: "]")) else { return nil }
            return values
        }

        /// One JSON number, read exactly. Nil for zero (how the decoder signs a negative zero
        /// stays its own business), a subnormal, or a number beyond a double's range: the decoder
        /// reads, or refuses, those as it always has.
        mutating func number() -> Double? {
            guard let t = json.number(), t.text.count <= StepLine.longestNumber else { return nil }
            // Swift's own reading of the checked text: correctly rounded, as `JSONDecoder` reads
            // numbers (StepLineTests compares the two), and locale-independent.
            guard let d = Double(json.text(t.text)), d.isNormal else { return nil }
            return d
        }
    }
}
