import Foundation  // floor and log10

/// Locale-free, deterministic decimal text for reports, pictures and CSV: never "-0", exponents
/// or a locale's separators.
public enum DecimalText {
    /// `v` rounded to `decimals` places with trailing zeros dropped ("12.5", "400", "-0.25"), for
    /// coordinates. Never prints "-0", exponents or a locale's separators; non-finite values print "0".
    public static func number(_ v: Double, decimals: Int = 2) -> String {
        fixed(v, decimals: decimals, trim: true)
    }

    /// `v` with `digits` significant digits, at most `maxDecimals` places, trailing zeros dropped
    /// ("0.0035", "0.12", "1.3"): for sigmas, which span three decades.
    public static func significant(_ v: Double, digits: Int, maxDecimals: Int = 6) -> String {
        guard v.isFinite, v != 0 else { return "0" }
        let magnitude = Int(floor(log10(abs(v))))
        return number(v, decimals: min(max(digits - 1 - magnitude, 0), maxDecimals))
    }

    /// `v` with exactly `decimals` places ("0.10", "-1.500"), or trimmed when `trim` is set.
    public static func fixed(_ v: Double, decimals: Int, trim: Bool = false, plusSign: Bool = false) -> String {
        guard v.isFinite else { return "0" }
        var scale: Int64 = 1
        for _ in 0..<max(0, decimals) { scale *= 10 }
        // Board coordinates are small; clamping keeps the integer conversion in range for any input.
        let clamped = min(max(v, -1e12), 1e12)
        let scaled = Int64((clamped * Double(scale)).rounded())
        let negative = scaled < 0
        let magnitude = negative ? -scaled : scaled
        var s = negative ? "-" : (plusSign && magnitude != 0 ? "+" : "")
        s += String(magnitude / scale)
        guard decimals > 0 else { return s }
        var frac = String(magnitude % scale)
        frac = String(repeating: "0", count: decimals - frac.count) + frac
        if trim {
            while frac.last == "0" { frac.removeLast() }
            if frac.isEmpty { return magnitude == 0 ? "0" : s }
        }
        return s + "." + frac
    }

    /// A whole number with thousands separators: "12,345".
    public static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (k, c) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}
