import Foundation
import PegglePhysics
import PeggleUtilities

/// Text and number formatting for SVG output: XML escaping and locale-free, deterministic numbers.
package enum SVGText {
    /// `s` made safe for XML text and attribute values: `& < > " '` become entities, tab, newline and
    /// carriage return become character references, and characters XML 1.0 forbids become U+FFFD.
    package static func escape(_ s: String) -> String {
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

    /// "x,y x,y ..." for a `points` attribute.
    package static func points(_ pts: [Vec2]) -> String {
        var out = ""
        out.reserveCapacity(pts.count * 14)
        for (k, p) in pts.enumerated() {
            if k > 0 { out += " " }
            out += DecimalText.number(p.x)
            out += ","
            out += DecimalText.number(p.y)
        }
        return out
    }

    /// Splits `s` into lines of at most `width` characters at spaces (long words are cut), at most
    /// `maxLines` lines; a cut-off last line ends in an ellipsis.
    ///
    /// One pass over the characters that stops once a line past `maxLines` begins, so the cost is
    /// linear in what is shown, not in the text: a word of 400,000 characters used to be re-counted
    /// and copied for every line cut from it (quadratic, seconds per render).
    package static func wrap(_ s: String, width: Int, maxLines: Int = 4) -> [String] {
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
package struct RGB: Sendable, Equatable {
    package var r: Int, g: Int, b: Int

    package init(_ hex: UInt32) {
        r = Int((hex >> 16) & 0xFF)
        g = Int((hex >> 8) & 0xFF)
        b = Int(hex & 0xFF)
    }

    package init(r: Int, g: Int, b: Int) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `self` moved toward `other` by `t` in 0...1.
    package func mixed(with other: RGB, _ t: Double) -> RGB {
        let t = min(max(t.isFinite ? t : 0, 0), 1)
        func m(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return RGB(r: m(r, other.r), g: m(g, other.g), b: m(b, other.b))
    }

    /// "#rrggbb".
    package var hex: String {
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
