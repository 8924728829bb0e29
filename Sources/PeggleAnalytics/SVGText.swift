import Foundation
import PegglePhysics

/// Text and number formatting for SVG output: XML escaping and locale-free, deterministic numbers.
enum SVGText {
    /// `s` made safe for XML text and attribute values: `& < > " '` become entities, tab, newline and
    /// carriage return become character references, and characters XML 1.0 forbids become U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default:
                let v = u.value
                let allowed = (0x20...0xD7FF).contains(v) || (0xE000...0xFFFD).contains(v) || v >= 0x10000
                out.unicodeScalars.append(allowed ? u : "\u{FFFD}")
            }
        }
        return out
    }

    /// `v` rounded to `decimals` places with trailing zeros dropped ("12.5", "400", "-0.25"), for
    /// coordinates. Never prints "-0", exponents or a locale's separators; non-finite values print "0".
    static func number(_ v: Double, decimals: Int = 2) -> String {
        fixed(v, decimals: decimals, trim: true)
    }

    /// `v` with `digits` significant digits, at most `maxDecimals` places, trailing zeros dropped
    /// ("0.0035", "0.12", "1.3"): for sigmas, which span three decades.
    static func significant(_ v: Double, digits: Int, maxDecimals: Int = 6) -> String {
        guard v.isFinite, v != 0 else { return "0" }
        let magnitude = Int(floor(log10(abs(v))))
        return number(v, decimals: min(max(digits - 1 - magnitude, 0), maxDecimals))
    }

    /// `v` with exactly `decimals` places ("0.10", "-1.500"), or trimmed when `trim` is set.
    static func fixed(_ v: Double, decimals: Int, trim: Bool = false, plusSign: Bool = false) -> String {
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
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (k, c) in digits.enumerated() {
            if k > 0 && (digits.count - k) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// "x,y x,y ..." for a `points` attribute.
    static func points(_ pts: [Vec2]) -> String {
        var out = ""
        out.reserveCapacity(pts.count * 14)
        for (k, p) in pts.enumerated() {
            if k > 0 { out += " " }
            out += number(p.x)
            out += ","
            out += number(p.y)
        }
        return out
    }

    /// Splits `s` into lines of at most `width` characters at spaces (long words are cut), at most
    /// `maxLines` lines; a cut-off last line ends in an ellipsis.
    ///
    /// One pass over the characters that stops once a line past `maxLines` begins, so the cost is
    /// linear in what is shown, not in the text: a word of 400,000 characters used to be re-counted
    /// and copied for every line cut from it (quadratic, seconds per render).
    static func wrap(_ s: String, width: Int, maxLines: Int = 4) -> [String] {
        let width = max(4, width), maxLines = max(1, maxLines)
        var lines: [String] = []
        var current = "", currentCount = 0  // the line being filled
        var word = "", wordCount = 0  // the word being read
        func finishLine() {
            lines.append(current)
            current = ""
            currentCount = 0
        }
        // Places a word of 1...width characters after the current line's words.
        func place() {
            if currentCount == 0 {
                current = word
                currentCount = wordCount
            } else if currentCount + 1 + wordCount <= width {
                current += " " + word
                currentCount += 1 + wordCount
            } else {
                finishLine()
                current = word
                currentCount = wordCount
            }
            word = ""
            wordCount = 0
        }
        for c in s {
            if lines.count > maxLines { break }
            if c == " " || c == "\n" || c == "\t" || c == "\r" || c == "\r\n" {
                if wordCount > 0 { place() }
                continue
            }
            word.append(c)
            wordCount += 1
            if wordCount > width {
                // A word longer than a line: its first `width` characters make a line of their own.
                if currentCount > 0 { finishLine() }
                let last = word.removeLast()
                current = word
                finishLine()
                word = String(last)
                wordCount = 1
            }
        }
        if lines.count <= maxLines {
            if wordCount > 0 { place() }
            if currentCount > 0 { finishLine() }
        }
        if lines.count > maxLines {
            lines = Array(lines.prefix(maxLines))
            var last = lines[maxLines - 1]
            if last.count >= width { last = String(last.prefix(width - 1)) }
            lines[maxLines - 1] = last + "\u{2026}"
        }
        return lines
    }
}

/// A colour as 0...255 channels, for mixing palette entries.
struct RGB: Sendable, Equatable {
    var r: Int, g: Int, b: Int

    init(_ hex: UInt32) {
        r = Int((hex >> 16) & 0xFF)
        g = Int((hex >> 8) & 0xFF)
        b = Int(hex & 0xFF)
    }

    init(r: Int, g: Int, b: Int) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `self` moved toward `other` by `t` in 0...1.
    func mixed(with other: RGB, _ t: Double) -> RGB {
        let t = min(max(t.isFinite ? t : 0, 0), 1)
        func m(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return RGB(r: m(r, other.r), g: m(g, other.g), b: m(b, other.b))
    }

    /// "#rrggbb".
    var hex: String {
        let digits = Array("0123456789abcdef")
        var s = "#"
        for c in [r, g, b] {
            let v = min(max(c, 0), 255)
            s.append(digits[v / 16])
            s.append(digits[v % 16])
        }
        return s
    }
}
