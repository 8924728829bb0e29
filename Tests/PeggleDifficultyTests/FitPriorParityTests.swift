import Foundation
import PeggleDifficulty
import PeggleTestSupport
import Testing

/// scripts/fit-prior fits the population prior over a copy of the skill model's grid, written in
/// Python; a grid that drifted from `SkillModel` would fit weights for shapes the rater does not
/// have, in the wrong order. This reads the script's constants and holds them to the Swift ones.
@Suite struct FitPriorParityTests {
    static func script() throws -> String { try String(decoding: Repository.data("scripts/fit-prior"), as: UTF8.self) }

    /// The groups of the first match of `pattern` in `text`.
    static func groups(_ pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        let match = try #require(regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
                                 "scripts/fit-prior has no line matching \(pattern)")
        return (1..<match.numberOfRanges).map { String(text[Range(match.range(at: $0), in: text)!]) }
    }

    /// (value, weight) pairs of a Python list of tuples named `name`.
    static func pairs(_ name: String, in text: String) throws -> [(Double, Double)] {
        let list = try groups("^\(name) = \\[(.*)\\]$", in: text)[0]
        let regex = try NSRegularExpression(pattern: "\\(([0-9.]+), ([0-9.]+)\\)")
        return regex.matches(in: list, range: NSRange(list.startIndex..., in: list)).map { m in
            (Double(list[Range(m.range(at: 1), in: list)!])!, Double(list[Range(m.range(at: 2), in: list)!])!)
        }
    }

    @Test func theScriptsGridIsTheSkillModels() throws {
        let text = try Self.script()
        let m = SkillModel.self
        #expect(try Double(Self.groups("^LOWEST = ([0-9.e-]+)$", in: text)[0]) == m.lowest)
        #expect(try Int(Self.groups("^POINTS_PER_DECADE = ([0-9]+)$", in: text)[0]) == m.pointsPerDecade)
        #expect(try Int(Self.groups("^MARGIN = ([0-9]+)$", in: text)[0]) == m.margin)
        #expect(try Int(Self.groups("^IN_RANGE = ([0-9]+) \\* POINTS_PER_DECADE$", in: text)[0])! * m.pointsPerDecade == m.inRange)
        #expect(try Double(Self.groups("^CLAMP = ([0-9.e-]+)$", in: text)[0]) == m.clamp)
        // SLOPES = [a * b ** (i / c) for i in range(n)]
        let s = try Self.groups("^SLOPES = \\[([0-9.]+) \\* ([0-9.]+) \\*\\* \\(i / ([0-9]+)\\) for i in range\\(([0-9]+)\\)\\]$", in: text)
        let (first, ratio, steps, n) = (Double(s[0])!, Double(s[1])!, Double(s[2])!, Int(s[3])!)
        #expect((0..<n).map { first * pow(ratio, Double($0) / steps) } == m.slopes)
        let ceilings = try Self.pairs("CEILINGS", in: text), floors = try Self.pairs("FLOORS", in: text)
        #expect(ceilings.map(\.0) == m.ceilings.map(\.value) && ceilings.map(\.1) == m.ceilings.map(\.prior))
        #expect(floors.map(\.0) == m.floors.map(\.value) && floors.map(\.1) == m.floors.map(\.prior))
        // The shapes in the script's order (slope-major, then ceiling, then floor) are the weights' order.
        let order = (0..<n).flatMap { i in ceilings.flatMap { c in floors.map { f in (first * pow(ratio, Double(i) / steps), c.0, f.0) } } }
        #expect(order.map { log($0.0) } == m.shapeLogSlope && order.map(\.1) == m.shapeCeiling && order.map(\.2) == m.shapeFloor)
        #expect(SkillPrior.populationShapeWeights.count == order.count)
    }
}
