/// FNV-1a 64-bit over bytes fed in pieces: what the tests pin long runs with (trajectories,
/// observations, features). One copy for every test target.
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    public mutating func add(byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
    }
    /// Eight bytes, little-endian.
    public mutating func add(_ v: UInt64) {
        for k in 0..<8 { add(byte: UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
    }
    public mutating func add(_ v: Int) { add(UInt64(bitPattern: Int64(v))) }
    public mutating func add(_ v: Double) { add(v.bitPattern) }
    /// A float's bit pattern, widened to eight bytes.
    public mutating func add(_ v: Float) { add(UInt64(v.bitPattern)) }
    public mutating func add(_ v: Bool) { add(v ? 1 : 0) }
    public mutating func add(_ floats: [Float]) { for f in floats { add(f) } }
}
