import Foundation
@testable import PeggleServe
import Testing

/// The reply writer appends integers digit by digit and plain strings byte for byte; what it
/// writes must parse back to the same values.
@Suite struct JSONWriterTests {
    func parsed(_ w: JSONWriter) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(w.bytes), options: [.fragmentsAllowed])
    }

    @Test func integersRoundTrip() throws {
        let values: [Int64] = [0, 7, -7, 9, 10, -10, 99, 100, 1_234_567_890, -1_000_000_000_000, .max, .min + 1, .min]
        var w = JSONWriter()
        w.beginArray()
        for v in values { w.int(v) }
        w.int(UInt64.max)
        w.endArray()
        #expect(w.text == "[" + values.map(String.init).joined(separator: ",") + ",18446744073709551615]")
    }

    @Test func numbersRoundTrip() throws {
        let doubles: [Double] = [0, -0.0, 3, -3, 0.15000000000000002, 1e-7, 123456.789, 1e15, 1e20, -2.5e-300]
        var w = JSONWriter()
        w.beginArray()
        for d in doubles { w.number(d) }
        for f in [Float(0.25), -1, 1e7, 16_777_216, 0.1] { w.number(f) }
        w.endArray()
        // Read back with Swift's exact parser (Foundation's JSON reader rounds some doubles).
        let tokens = w.text.dropFirst().dropLast().split(separator: ",")
        #expect(tokens.count == doubles.count + 5)
        for (k, d) in doubles.enumerated() { #expect(Double(tokens[k]) == d, "\(d) was written as \(tokens[k])") }
        #expect(Float(tokens[doubles.count + 4]) == Float(0.1))
        #expect(w.text.hasPrefix("[0,0,3,-3,0.15000000000000002,"))
    }

    @Test func stringsAreEscapedOnlyWhenNeeded() throws {
        let strings = ["plain", "", "quote \" here", "back\\slash", "line\nbreak", "tab\t", "bell\u{07}", "naïve ✓ 🎯"]
        var w = JSONWriter()
        w.beginObject()
        for (k, s) in strings.enumerated() { w.field("k\(k)", s) }
        w.field("needs \"escape\"", 1)
        w.endObject()
        let back = try #require(try parsed(w) as? [String: Any])
        for (k, s) in strings.enumerated() { #expect(back["k\(k)"] as? String == s) }
        #expect(back["needs \"escape\""] as? Int == 1)
        #expect(w.text.hasPrefix(#"{"k0":"plain","k1":"","k2":"quote \"#))
    }

    @Test func nestingPutsCommasBetweenValuesOnly() throws {
        var w = JSONWriter()
        w.beginObject()
        w.array("a", [1, 2, 3]) { $0.int($1) }
        w.key("b")
        w.beginArray()
        w.beginObject()
        w.endObject()
        w.null()
        w.bool(true)
        w.endArray()
        w.endObject()
        #expect(w.text == #"{"a":[1,2,3],"b":[{},null,true]}"#)
    }
}
