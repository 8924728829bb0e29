import Foundation
import PeggleDrawing
import PeggleGame
import PeggleLevel
import PegglePhysics
import Testing

/// Text wrapping costs what it shows, not what it is given: a level's description of 400,000
/// characters took 5.5 s to render and an author of 300,000 emoji 44 s, because every line cut
/// from a long word re-counted and copied the rest of it.
@Suite("long text")
struct LongTextTests {
    @Test func wrappingStopsAfterTheLastLineShown() {
        let word = String(repeating: "x", count: 1_000_000)
        let start = Date()
        let lines = SVGText.wrap(word, width: 46, maxLines: 6)
        #expect(Date().timeIntervalSince(start) < 1, "wrapping took \(Date().timeIntervalSince(start)) s")
        #expect(lines == Array(repeating: String(repeating: "x", count: 46), count: 5) + [String(repeating: "x", count: 45) + "\u{2026}"])
    }

    @Test func wrappingMatchesTheWordRules() {
        #expect(SVGText.wrap("ab abcdefghij c", width: 4, maxLines: 9) == ["ab", "abcd", "efgh", "ij c"])
        #expect(SVGText.wrap("  one\ttwo\r\nthree  ", width: 20) == ["one two three"])
        #expect(SVGText.wrap("🎯🎯🎯🎯🎯🎯", width: 4) == ["🎯🎯🎯🎯", "🎯🎯"])
        #expect(SVGText.wrap("a b c d e f", width: 4, maxLines: 2) == ["a b", "c d\u{2026}"])
        #expect(SVGText.wrap("", width: 10).isEmpty)
    }

    /// The renderer takes any `Level` value (validation, which now limits these fields, is the
    /// caller's), so it must stay fast on text far past the limits.
    @Test func renderingALevelWithHugeTextIsFast() {
        var pegs: [Peg] = []
        for k in 0..<5 { pegs.append(Peg(id: k + 1, kind: k == 2 ? .orange : .blue, center: Vec2(200 + 100 * Double(k), 300))) }
        var level = Level(name: "Long", pegs: pegs)
        level.description = String(repeating: "d", count: 400_000)
        level.author = String(repeating: "🎯", count: 300_000)
        let start = Date()
        let svg = SVGRenderer().render(level: level)
        let seconds = Date().timeIntervalSince(start)
        #expect(seconds < 2, "rendering took \(seconds) s")
        #expect(svg.count < 40_000)
        #expect(svg.contains(">" + String(repeating: "🎯", count: 43) + "\u{2026}</text>"))
    }
}
