import Foundation
import PeggleUtilities
import PeggleServe
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

    /// Numbers that are not small whole ones are written as the standard library's
    /// `description` writes them, byte for byte (replies written before kept that text).
    @Test func numbersAreWrittenAsDescriptionWritesThem() throws {
        var g = SeededGenerator(seed: 5)
        var doubles: [Double] = [0.1, -0.5, 1e15, -1e15, 1e16, 1e-5, 1e-4, 123456789.125, 5e-324, .leastNormalMagnitude,
                                 .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 2.5e-300]
        for _ in 0..<3000 {
            doubles.append(Double.random(in: -1...1, using: &g) * pow(10, Double(Int.random(in: -320...300, using: &g))))
            doubles.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &g)))
        }
        var floats: [Float] = [0.1, -0.5, 1e7, 16_777_217, 3.4e38, 1e-45, 1.1754944e-38]
        for _ in 0..<3000 {
            floats.append(Float.random(in: -1...1, using: &g) * Float(pow(10, Double(Int.random(in: -40...38, using: &g)))))
            floats.append(Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &g)))
        }
        for d in doubles where d.isFinite && !(d == d.rounded() && abs(d) < 1e15) {
            var w = JSONWriter()
            w.number(d)
            #expect(w.text == d.description, "bits \(d.bitPattern)")
        }
        for f in floats where f.isFinite && !(f == f.rounded() && abs(f) < 1e7) {
            var w = JSONWriter()
            w.number(f)
            #expect(w.text == f.description, "bits \(f.bitPattern)")
        }
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
