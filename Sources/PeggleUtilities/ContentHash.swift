/// Identity of content for storage keys: FNV-1a, 64 bits, as 16 hex digits. An identity, not a
/// security measure: a collision between two levels of one database is vanishingly unlikely.
public enum ContentHash {
    public static func fnv1a64<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }

    /// 16 lower-case hex digits of the hash of `text`'s UTF-8 bytes.
    public static func hex(_ text: String) -> String {
        let h = fnv1a64(text.utf8)
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
