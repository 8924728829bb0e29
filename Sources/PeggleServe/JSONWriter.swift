import PeggleGame
import PeggleLevel

/// Appends JSON text to a byte buffer. Replies are built by hand rather than through
/// `JSONSerialization`, because a step's observations are hundreds of thousands of numbers; the
/// buffer is reused from reply to reply, so a reply allocates nothing once it has grown.
package struct JSONWriter {
    package var bytes: [UInt8]
    /// Whether the next value (or key) in the innermost open object or array needs a comma
    /// first; the enclosing levels' flags wait in `outer` (kept apart so the per-value test is a
    /// plain stored Bool, not an array element: replies write thousands of values).
    private var needsComma = false
    private var outer: [Bool] = []

    package init() { bytes = [] }

    /// A writer that takes over `buffer` (moved out, so it stays uniquely referenced and keeps
    /// its capacity); give it back with `swap` when done.
    init(takingOver buffer: inout [UInt8]) {
        bytes = []
        swap(&bytes, &buffer)
        bytes.removeAll(keepingCapacity: true)
    }

    /// The text written, as a string.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package mutating func beginObject() { value(); bytes.append(UInt8(ascii: "{")); open() }
    package mutating func endObject() { bytes.append(UInt8(ascii: "}")); close() }
    package mutating func beginArray() { value(); bytes.append(UInt8(ascii: "[")); open() }
    package mutating func endArray() { bytes.append(UInt8(ascii: "]")); close() }

    private mutating func open() { outer.append(needsComma); needsComma = false }
    private mutating func close() { needsComma = outer.removeLast() }

    /// Writes `"name":` inside an object (the value follows).
    package mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        quoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Separator bookkeeping before any value.
    private mutating func value() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    private mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// `s` as a JSON string. Keys and most values need no escape, so they are copied byte for
    /// byte; anything else goes through the level codec's escaping.
    private mutating func quoted(_ s: String) {
        var plain = true
        for u in s.utf8 where u < 0x20 || u == UInt8(ascii: "\"") || u == UInt8(ascii: "\\") {
            plain = false
            break
        }
        if plain {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: s.utf8)
            bytes.append(UInt8(ascii: "\""))
        } else {
            append(LevelCodec.quote(s))
        }
    }

    mutating func string(_ s: String) { value(); quoted(s) }
    package mutating func bool(_ b: Bool) { value(); if b { literal("true") } else { literal("false") } }
    package mutating func null() { value(); literal("null") }

    /// Constant text, copied as bytes (a columns reply writes thousands of `true`s and `false`s).
    private mutating func literal(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }
    package mutating func int<T: BinaryInteger>(_ v: T) {
        value()
        // Digits straight into the buffer: replies write thousands of small integers.
        if let small = Int64(exactly: v) {
            digits(small)
        } else {
            append(String(v))
        }
    }

    private mutating func digits(_ v: Int64) {
        if v < 0 {
            bytes.append(UInt8(ascii: "-"))
            if v == .min { append("9223372036854775808"); return }
        }
        var m = v.magnitude
        if m < 10 { bytes.append(UInt8(ascii: "0") + UInt8(m)); return }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { t in
            var i = t.count
            while m > 0 {
                i -= 1
                t[i] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
            }
            bytes.append(contentsOf: t[i...])
        }
    }

    /// A finite number in its shortest exact form; non-finite values (never produced) as null.
    package mutating func number(_ v: Double) {
        value()
        if !v.isFinite { append("null") } else if v == v.rounded(), abs(v) < 1e15 { digits(Int64(v)) } else { described(v) }
    }

    package mutating func number(_ v: Float) {
        value()
        if !v.isFinite { append("null") } else if v == v.rounded(), abs(v) < 1e7 { digits(Int64(v)) } else { described(v) }
    }

    /// The double a JSON reader gets from the text `number(v)` writes for a finite float: the
    /// whole number, or the double nearest the float's shortest decimal text (0.16666667 reads
    /// as 0.16666667, not as the float's exact value 0.1666666716337204). The native library
    /// hands rewards over as these, so both backends give a Python caller one double.
    static func readBack(_ v: Float) -> Double {
        if v == v.rounded(), abs(v) < 1e7 { return Double(Int64(v)) }
        return Double(v.description) ?? Double(v)
    }

    /// `v.description`'s text, written by the standard library straight into the buffer: the
    /// `description` String (heap-allocated past 15 characters, as most angles are) cost more than
    /// the digits themselves, 128 times a 64-environment step (JSONWriterTests compares the two).
    private mutating func described<T: TextOutputStreamable>(_ v: T) {
        var sink = ByteSink()
        swap(&sink.bytes, &bytes)
        v.write(to: &sink)
        swap(&sink.bytes, &bytes)
    }

    /// Takes text the standard library writes; numbers come as ASCII bytes (`_writeASCII`, the
    /// stream's hook for them), anything else as a String.
    private struct ByteSink: TextOutputStream {
        var bytes: [UInt8] = []
        mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }
        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
    }

    package mutating func field(_ name: String, _ s: String) { key(name); string(s) }
    package mutating func field(_ name: String, _ b: Bool) { key(name); bool(b) }
    package mutating func field(_ name: String, _ v: Int) { key(name); int(v) }
    package mutating func field(_ name: String, _ v: Double) { key(name); number(v) }

    /// `"name": [ ... ]`, one value per element written by `each`.
    package mutating func array<S: Sequence>(_ name: String, _ items: S, _ each: (inout JSONWriter, S.Element) -> Void) {
        key(name)
        beginArray()
        for item in items { each(&self, item) }
        endArray()
    }

    /// `floats`' bytes (little-endian float32, as every platform Swift runs on Linux stores
    /// them) as a base64 string value, encoded straight into the buffer (see `Base64`).
    mutating func base64(_ floats: UnsafeBufferPointer<Float>, threads: Int = 1) {
        base64(bytes: UnsafeRawBufferPointer(floats), threads: threads)
    }

    /// `raw` as a base64 string value, encoded straight into the buffer, on up to `threads`
    /// threads when it is large.
    mutating func base64(bytes raw: UnsafeRawBufferPointer, threads: Int = 1) {
        value()
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: Base64.encodedCount(raw.count)))
        bytes.withUnsafeMutableBufferPointer { out in
            Base64.encode(raw, into: UnsafeMutableBufferPointer(rebasing: out[start...]), threads: threads)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
