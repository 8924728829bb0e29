import Foundation
import PeggleServe
import Testing

/// The protocol's base64 must be standard base64: Python's `base64.b64decode` and Foundation read
/// it. Foundation's encoder and decoder are the reference here.
@Suite struct Base64Tests {
    /// Bytes from a fixed generator (every value 0...255 occurs in the longer inputs).
    static func bytes(_ n: Int, seed: UInt64) -> [UInt8] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<n).map { _ in
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return UInt8(truncatingIfNeeded: x >> 24)
        }
    }

    static func encoded(_ input: [UInt8], threads: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Base64.encodedCount(input.count))
        input.withUnsafeBytes { src in out.withUnsafeMutableBufferPointer { Base64.encode(src, into: $0, threads: threads) } }
        return out
    }

    static func decoded(_ text: [UInt8]) -> [UInt8]? {
        text.withUnsafeBufferPointer { src -> [UInt8]? in
            guard let n = Base64.decodedCount(src) else { return nil }
            var out = [UInt8](repeating: 0, count: n)
            return out.withUnsafeMutableBytes { Base64.decode(src, into: $0) } ? out : nil
        }
    }

    @Test("every length 0...300 encodes as Foundation does and decodes back")
    func shortInputsMatchFoundation() {
        for n in 0...300 {
            let input = Self.bytes(n, seed: UInt64(n + 1))
            let text = Self.encoded(input, threads: 1)
            #expect(String(decoding: text, as: UTF8.self) == Data(input).base64EncodedString(), "length \(n)")
            #expect(Self.decoded(text) == input, "length \(n)")
        }
    }

    @Test("large inputs split across threads give the same text as one thread", arguments: [2, 3, 16])
    func threadsGiveTheSameText(threads: Int) {
        // Above the parallel threshold, with lengths that leave 0, 1 and 2 bytes over a group.
        for n in [300_000, 300_001, 300_002, 561_152] {
            let input = Self.bytes(n, seed: UInt64(n))
            let text = Self.encoded(input, threads: threads)
            #expect(text == Self.encoded(input, threads: 1), "length \(n), \(threads) threads")
            #expect(text == Array(Data(input).base64EncodedString().utf8), "length \(n)")
            #expect(Self.decoded(text) == input, "length \(n)")
        }
    }

    @Test("malformed text is refused: bad length, characters outside the alphabet, padding inside")
    func malformedTextIsRefused() {
        let good = Array("QUJDRA==".utf8)  // "ABCD"
        #expect(Self.decoded(good) == Array("ABCD".utf8))
        for bad in ["QUJDRA=", "QUJ", "QU*DRA==", "QUJDR A=", "QU=DRA==", "QUJD=A==", "QUJDRA=A", "é"] {
            #expect(Self.decoded(Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(Self.decoded([]) == [])
    }
}
