import PeggleGame

/// Appends JSON text to a string. Replies are built by hand rather than through
/// `JSONSerialization`, because a step's observations are hundreds of thousands of numbers.
struct JSONWriter {
    var text = ""
    private var needsComma = [false]

    init() { text.reserveCapacity(1 << 12) }

    mutating func beginObject() { value(); text += "{"; needsComma.append(false) }
    mutating func endObject() { text += "}"; needsComma.removeLast() }
    mutating func beginArray() { value(); text += "["; needsComma.append(false) }
    mutating func endArray() { text += "]"; needsComma.removeLast() }

    /// Writes `"name":` inside an object (the value follows).
    mutating func key(_ name: String) {
        if needsComma[needsComma.count - 1] { text += "," }
        text += Self.quoted(name)
        text += ":"
        needsComma[needsComma.count - 1] = false
    }

    /// Separator bookkeeping before any value.
    private mutating func value() {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
    }

    mutating func string(_ s: String) { value(); text += Self.quoted(s) }
    mutating func bool(_ b: Bool) { value(); text += b ? "true" : "false" }
    mutating func null() { value(); text += "null" }
    mutating func int<T: BinaryInteger>(_ v: T) { value(); text += String(v) }

    /// A finite number in its shortest exact form; non-finite values (never produced) as null.
    mutating func number(_ v: Double) {
        value()
        if !v.isFinite { text += "null" } else if v == v.rounded(), abs(v) < 1e15 { text += String(Int64(v)) } else { text += "\(v)" }
    }

    mutating func number(_ v: Float) {
        value()
        if !v.isFinite { text += "null" } else if v == v.rounded(), abs(v) < 1e7 { text += String(Int32(v)) } else { text += "\(v)" }
    }

    /// Writes raw, already valid JSON as one value.
    mutating func raw(_ json: String) { value(); text += json }

    mutating func field(_ name: String, _ s: String) { key(name); string(s) }
    mutating func field(_ name: String, _ b: Bool) { key(name); bool(b) }
    mutating func field(_ name: String, _ v: Int) { key(name); int(v) }
    mutating func field(_ name: String, _ v: Double) { key(name); number(v) }

    static func quoted(_ s: String) -> String { LevelCodec.quote(s) }
}
