import PeggleGame
import PeggleUtilities

/// Standard base64 (RFC 4648, `+/`, `=` padding) for the protocol's `b64f32` observations and
/// `rgb` frames. Foundation's encoder builds a new `String` per call; a step's observations are
/// hundreds of kilobytes a reply, so these work between caller-owned buffers instead, three input
/// bytes at a time through a 4,096-entry table of character pairs (one load per 12 bits), and
/// split large inputs across threads (every split falls on a multiple of 3 bytes, so the parts
/// encode independently and concatenate to the same text).
public enum Base64 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The two characters of every 12-bit value, first character in the low byte (so a
    /// little-endian store writes them in order).
    static let pairs: [UInt16] = (0..<4096).map { v in
        UInt16(alphabet[v >> 6]) | UInt16(alphabet[v & 63]) << 8
    }

    /// The 6-bit value of every byte, 255 for bytes outside the alphabet.
    static let values: [UInt8] = {
        var t = [UInt8](repeating: 255, count: 256)
        for (k, c) in alphabet.enumerated() { t[Int(c)] = UInt8(k) }
        return t
    }()

    /// The 12-bit value of every pair of characters (first character in the low byte, as a
    /// little-endian 16-bit load reads them), 0xFFFF where either is outside the alphabet.
    static let pairValues: [UInt16] = {
        var t = [UInt16](repeating: 0xFFFF, count: 65536)
        for (i, a) in alphabet.enumerated() {
            for (j, b) in alphabet.enumerated() { t[Int(a) | Int(b) << 8] = UInt16(i << 6 | j) }
        }
        return t
    }()

    /// Characters for `count` bytes, padding included.
    public static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

    /// Inputs below this many bytes are encoded on the calling thread (a dispatch costs more).
    static let parallelThreshold = 96 * 1024

    /// Encodes `src` into `dst`, which holds exactly `encodedCount(src.count)` bytes.
    public static func encode(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableBufferPointer<UInt8>, threads: Int = 1) {
        precondition(dst.count == encodedCount(src.count), "base64: output of \(dst.count) bytes for \(src.count) input bytes")
        let parts = src.count >= parallelThreshold ? max(1, threads) : 1
        guard parts > 1 else { return encodeSerial(src, into: dst) }
        // Each part but the last is a whole number of 3-byte groups.
        let groups = src.count / 3
        let per = (groups + parts - 1) / parts
        // The parts write disjoint ranges of `dst` and only read `src`.
        nonisolated(unsafe) let src = src, dst = dst
        Parallel.forEach(parts, threads: parts, chunksPerThread: 1) { p in
            let lo = min(p * per, groups) * 3
            let hi = p == parts - 1 ? src.count : min((p + 1) * per, groups) * 3
            guard lo < hi else { return }
            encodeSerial(UnsafeRawBufferPointer(rebasing: src[lo..<hi]),
                         into: UnsafeMutableBufferPointer(rebasing: dst[(lo / 3 * 4)..<(lo / 3 * 4 + encodedCount(hi - lo))]))
        }
    }

    static func encodeSerial(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableBufferPointer<UInt8>) {
        let n = src.count
        guard n > 0, let s = src.baseAddress?.assumingMemoryBound(to: UInt8.self), let d = dst.baseAddress else { return }
        pairs.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            let out = UnsafeMutableRawPointer(d)
            var i = 0, o = 0
            while i + 3 <= n {
                let v = Int(s[i]) << 16 | Int(s[i + 1]) << 8 | Int(s[i + 2])
                out.storeBytes(of: (UInt32(t[v >> 12]) | UInt32(t[v & 0xfff]) << 16).littleEndian, toByteOffset: o, as: UInt32.self)
                i += 3
                o += 4
            }
            let rest = n - i
            if rest > 0 {
                let v = Int(s[i]) << 16 | (rest == 2 ? Int(s[i + 1]) << 8 : 0)
                d[o] = alphabet[v >> 18]
                d[o + 1] = alphabet[v >> 12 & 63]
                d[o + 2] = rest == 2 ? alphabet[v >> 6 & 63] : UInt8(ascii: "=")
                d[o + 3] = UInt8(ascii: "=")
            }
        }
    }

    /// The number of bytes `text` (padded base64) decodes to, or nil if its length or padding is wrong.
    public static func decodedCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard text.count % 4 == 0 else { return nil }
        guard text.count > 0 else { return 0 }
        var padding = 0
        if text[text.count - 1] == UInt8(ascii: "=") {
            padding = text[text.count - 2] == UInt8(ascii: "=") ? 2 : 1
        }
        return text.count / 4 * 3 - padding
    }

    /// Decodes `text` into `dst`, which holds exactly `decodedCount(text)` bytes; false if a
    /// character is outside the alphabet or padding appears before the end.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>, into dst: UnsafeMutableRawBufferPointer) -> Bool {
        guard let count = decodedCount(text), count == dst.count else { return false }
        guard count > 0, let s = text.baseAddress, let d = dst.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        // Every quad but the last is four alphabet characters making three bytes: two pair
        // lookups each, an invalid pair reading 0xFFFF (above 12 bits).
        let whole = text.count / 4 - 1
        let bad = pairValues.withUnsafeBufferPointer { table -> UInt32 in
            let p = table.baseAddress!, raw = UnsafeRawPointer(s)
            var bad: UInt32 = 0
            for q in 0..<whole {
                let hi = UInt32(p[Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * q, as: UInt16.self)))])
                let lo = UInt32(p[Int(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * q + 2, as: UInt16.self)))])
                bad |= hi | lo
                let v = hi << 12 | lo
                d[3 * q] = UInt8(truncatingIfNeeded: v >> 16)
                d[3 * q + 1] = UInt8(truncatingIfNeeded: v >> 8)
                d[3 * q + 2] = UInt8(truncatingIfNeeded: v)
            }
            return bad
        }
        if bad > 0xFFF { return false }
        // The last quad, with its padding (already checked by `decodedCount`).
        let i = 4 * whole, o = 3 * whole, last = count - o
        let a = values[Int(s[i])], b = values[Int(s[i + 1])]
        let c = last >= 2 ? values[Int(s[i + 2])] : 0, e = last == 3 ? values[Int(s[i + 3])] : 0
        if (a | b | c | e) > 63 { return false }
        let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(e)
        d[o] = UInt8(truncatingIfNeeded: v >> 16)
        if last >= 2 { d[o + 1] = UInt8(truncatingIfNeeded: v >> 8) }
        if last == 3 { d[o + 2] = UInt8(truncatingIfNeeded: v) }
        return true
    }
}
