import Foundation
import PeggleUtilities
import PeggleServe
import Testing

/// The step line read without the decoder (`StepLine`) must give the request the decoder gives,
/// number for number and bit for bit, and leave every other line to the decoder.
@Suite struct StepLineTests {
    /// The request `JSONDecoder` reads from `line`, the typed path every other line takes.
    static func decoded(_ line: String) throws -> Request {
        try JSONDecoder().decode(Request.self, from: Data(line.utf8))
    }

    static func actions(_ r: Request) -> [Double]? {
        if case let .step(s) = r.command { return s.actions }
        return nil
    }

    static func idText(_ id: RequestID?) -> String {
        switch id {
        case nil: "none"
        case let .string(s)?: "string \(s)"
        case let .bool(b)?: "bool \(b)"
        case let .double(d)?: "double \(d.bitPattern)"
        case let .int(i)?: "int \(i)"
        case let .uint(u)?: "uint \(u)"
        }
    }

    /// Both readers agree on `line`, which the fast one must read.
    static func agree(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fast = try #require(StepLine.parse(line), "not read: \(line.prefix(200))", sourceLocation: sourceLocation)
        let slow = try decoded(line)
        let a = try #require(actions(fast), sourceLocation: sourceLocation)
        let b = try #require(actions(slow), sourceLocation: sourceLocation)
        #expect(a.map(\.bitPattern) == b.map(\.bitPattern), "\(line.prefix(200))", sourceLocation: sourceLocation)
        #expect(idText(fast.id) == idText(slow.id), "\(line.prefix(200))", sourceLocation: sourceLocation)
    }

    @Test("numbers in every form a client writes read as the decoder reads them")
    func numbersAgree() throws {
        var g = SeededGenerator(seed: 37)
        var texts: [String] = []
        for _ in 0..<4000 {
            // Shortest forms (as Swift and Python's repr write them), at every magnitude.
            let d = Double.random(in: -1...1, using: &g) * pow(10, Double(Int.random(in: -30...30, using: &g)))
            if d != 0 { texts.append("\(d)") }
            // Fixed digit counts, round-trip length and past it (halfway cases are rounded by the digits after).
            let e = Double.random(in: -1...1, using: &g)
            if e != 0 {
                texts.append(String(format: "%.17g", e))
                texts.append(String(format: "%.25f", e))
                texts.append(String(format: "%.3E", e))
                texts.append(String(format: "%.12e", e))
            }
        }
        // Between two doubles exactly (2^53 + 1: ties go to even), just below one, the largest
        // and smallest normal ones.
        texts += ["9007199254740993", "0.99999999999999994448884876874217297882", "1.7976931348623157e308",
                  "2.2250738585072014e-308", "-2.2250738585072014E-308", "1", "-1", "12", "0.5", "5e-1", "1E0", "1e+0"]
        for chunk in stride(from: 0, to: texts.count, by: 64) {
            let list = texts[chunk..<min(texts.count, chunk + 64)].joined(separator: ",")
            try Self.agree(#"{"cmd":"step","actions":[\#(list)]}"#)
        }
    }

    @Test("ids, key orders and whitespace as clients send them read as the decoder reads them")
    func shapesAgree() throws {
        for line in [
            #"{"cmd":"step","actions":[0.25,-0.5]}"#,
            #"{"cmd":"step","id":7,"actions":[0.25,-0.5]}"#,
            #"{"cmd":"step","id":0,"actions":[0.25]}"#,
            #"{"cmd":"step","id":999999999999999,"actions":[0.25]}"#,
            #"{"actions":[0.25,-0.5],"id":12,"cmd":"step"}"#,
            "  {\t\"cmd\" : \"step\" ,\r\n \"id\": 3, \"actions\" : [ 0.25 , -0.5 ] }  ",
        ] {
            try Self.agree(line)
        }
    }

    @Test("every other line is left to the decoder", arguments: [
        #"{"cmd":"reset","seed":1}"#,
        #"{"cmd":"step"}"#,
        #"{"cmd":"step","actions":[]}"#,
        #"{"cmd":"step","actions":0.5}"#,
        #"{"cmd":"step","actions":[0.5,"a"]}"#,
        #"{"cmd":"step","actions":[0.5,null]}"#,
        #"{"cmd":"step","actions":[0.5,[1]]}"#,
        // Zeros, subnormals, underflow and overflow: the decoder's to read (and to refuse).
        #"{"cmd":"step","actions":[0.5,0]}"#,
        #"{"cmd":"step","actions":[0.5,-0.0]}"#,
        #"{"cmd":"step","actions":[0.5,5e-324]}"#,
        #"{"cmd":"step","actions":[0.5,1e-400]}"#,
        #"{"cmd":"step","actions":[0.5,1e400]}"#,
        // Not JSON numbers, though strtod would read them.
        #"{"cmd":"step","actions":[0.5,.5]}"#,
        #"{"cmd":"step","actions":[0.5,01]}"#,
        #"{"cmd":"step","actions":[0.5,+1]}"#,
        #"{"cmd":"step","actions":[0.5,1.]}"#,
        #"{"cmd":"step","actions":[0.5,0x1]}"#,
        #"{"cmd":"step","actions":[0.5,inf]}"#,
        // Longer than any client writes (these two lie exactly between two doubles).
        #"{"cmd":"step","actions":[0.5,0.33333333333333333333333333333333333333333]}"#,
        #"{"cmd":"step","actions":[0.5,1.00000000000000011102230246251565404236316680908203125]}"#,
        #"{"cmd":"step","actions":[0.5,1.0000000000000002220446049250313080847263336181640625]}"#,
        // Ids other than a small whole number.
        #"{"cmd":"step","id":-1,"actions":[0.5]}"#,
        #"{"cmd":"step","id":1.5,"actions":[0.5]}"#,
        #"{"cmd":"step","id":1e3,"actions":[0.5]}"#,
        #"{"cmd":"step","id":01,"actions":[0.5]}"#,
        #"{"cmd":"step","id":1234567890123456,"actions":[0.5]}"#,
        #"{"cmd":"step","id":"a","actions":[0.5]}"#,
        #"{"cmd":"step","id":null,"actions":[0.5]}"#,
        // Other fields, repeated fields, escapes, trailing text, broken lines.
        #"{"cmd":"step","actions":[0.5],"extra":1}"#,
        #"{"cmd":"step","actions":[0.5],"actions":[0.5]}"#,
        #"{"cmd":"step","cmd":"step","actions":[0.5]}"#,
        #"{"cmd":"st\u0065p","actions":[0.5]}"#,
        #"{"cmd":"step","actions":[0.5]} x"#,
        #"{"cmd":"step","actions":[0.5],}"#,
        #"{"cmd":"step","actions":[0.5]"#,
        #"[{"cmd":"step","actions":[0.5]}]"#,
    ])
    func others(line: String) {
        #expect(StepLine.parse(line) == nil)
    }
}
