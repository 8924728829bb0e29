import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif
import PeggleDrawing
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleUtilities
import PeggleTestSupport
import Testing

// MARK: Fixtures

// MARK: Level pictures

@Test func levelPictureIsWellFormedAndDrawsEveryObject() throws {
    let level = sampleLevel()
    #expect(level.validate().isEmpty, "fixture must be a valid level: \(level.validate())")
    let svg = SVGRenderer().render(level: level)
    #expect(svg.hasPrefix("<?xml"))
    let doc = try parsed(svg)
    #expect(doc.root?.name == "svg")
    #expect(doc.root?.attributes["viewBox"] == "0 0 1132 600")
    #expect(doc.root?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
    #expect(doc.with(class: "peg").count == level.pegs.count)
    #expect(doc.with(class: "peg").filter { $0.name == "polygon" }.count == 2)
    #expect(doc.with(class: "block").count == 2)
    #expect(doc.with(class: "springy").count == 1)
    #expect(doc.with(class: "lit").isEmpty)
    #expect(doc.with(class: "trajectory").isEmpty)
    #expect(doc.with(class: "rim").count == 2)
    // Every kind has its own colour, and the legend shows each.
    var fills: [PegKind: Set<String>] = [:]
    for e in doc.with(class: "peg") {
        let kind = try #require(PegKind.allCases.first { e.classes.contains($0.rawValue) })
        fills[kind, default: []].insert(e.attributes["fill"] ?? "")
    }
    #expect(fills.count == PegKind.allCases.count)
    #expect(fills.values.allSatisfy { $0.count == 1 })
    #expect(Set(fills.values.flatMap { $0 }).count == PegKind.allCases.count)
    let legend = doc.elements.filter { $0.name == "text" }.map(\.text)
    for kind in PegKind.allCases { #expect(legend.contains { $0.hasPrefix(kind.rawValue + " (") }) }
    #expect(legend.contains("Sample"))
}

@Test func circlesAndBricksSitWhereTheLevelPutsThem() throws {
    let level = sampleLevel()
    let doc = try parsed(SVGRenderer().render(level: level))
    for e in doc.with(class: "peg") {
        let i = try #require(e.attributes["data-peg"].flatMap(Int.init))
        let peg = level.pegs[i]
        switch peg.shape {
        case let .circle(r):
            #expect(e.name == "circle")
            #expect(abs((e.number("cx") ?? .nan) - peg.center.x) < 0.006)
            #expect(abs((e.number("cy") ?? .nan) - peg.center.y) < 0.006)
            #expect(e.number("r") == r)
        case let .brick(w, h, rot):
            #expect(e.name == "polygon")
            let expected = ConvexPolygon.rectangle(center: peg.center, width: w, height: h, rotation: rot).vertices
            #expect(e.points.count == 4)
            for (a, b) in zip(e.points, expected) { #expect((a - b).length < 0.01) }
        }
    }
    let blocks = doc.with(class: "block")
    for (e, block) in zip(blocks, level.blocks) {
        #expect(e.points.count == block.polygon.vertices.count)
        for (a, b) in zip(e.points, block.polygon.vertices) { #expect((a - b).length < 0.01) }
    }
    // Springy blocks look different from plain ones.
    #expect(blocks[0].attributes["stroke"] != blocks[1].attributes["stroke"])
    #expect(blocks[1].attributes["stroke-dasharray"] != nil)
}

// MARK: Game pictures

@Test func stateDrawsOnlyPegsStillOnTheBoard() throws {
    var g = try GameState(level: sampleLevel(), seed: 1)
    _ = try g.shoot(angle: 0.1, recordTrajectory: true)
    let remaining = g.pegs.indices.filter { !g.pegs[$0].isRemoved }
    #expect(remaining.count < g.pegs.count, "the shot should have removed pegs")
    let doc = try parsed(SVGRenderer().render(g))
    let drawn = doc.with(class: "peg")
    #expect(drawn.count == remaining.count)
    #expect(Set(drawn.compactMap { $0.attributes["data-peg"].flatMap(Int.init) }) == Set(remaining))
    for e in drawn where e.name == "circle" {
        let i = try #require(e.attributes["data-peg"].flatMap(Int.init))
        let c = g.pegCenter(i)
        #expect(abs((e.number("cx") ?? .nan) - c.x) < 0.006 && abs((e.number("cy") ?? .nan) - c.y) < 0.006)
    }
    #expect(doc.with(class: "lit").isEmpty)
}

@Test func litPegsOfPlayedShotsAreMarked() throws {
    var g = try GameState(level: sampleLevel(), seed: 1)
    let first = try g.shoot(angle: 0.1, recordTrajectory: true)
    // A second aim that lights pegs too (found on copies, so the game itself is untouched).
    let aim = try #require(stride(from: -1.2, through: 1.2, by: 0.1).first { a in
        var copy = g
        return ((try? copy.shoot(angle: a))?.hits.total ?? 0) > 0
    })
    let second = try g.shoot(angle: aim, recordTrajectory: true)
    let lit1 = Set(try #require(first.trajectory).litPegs)
    let lit2 = Set(try #require(second.trajectory).litPegs)
    #expect(!lit1.isEmpty && !lit2.isEmpty)
    let doc = try parsed(SVGRenderer().render(g, shots: [first, second]))

    let marked = doc.with(class: "lit")
    func shot(of e: ParsedSVG.Element) -> Int? { e.attributes["data-shot"].flatMap(Int.init) }
    func index(of e: ParsedSVG.Element) -> Int? { e.attributes["data-peg"].flatMap(Int.init) }
    #expect(Set(marked.filter { shot(of: $0) == 1 }.compactMap(index)) == lit1)
    #expect(Set(marked.filter { shot(of: $0) == 2 }.compactMap(index)) == lit2)
    #expect(marked.count == lit1.count + lit2.count)
    // Lit pegs are brighter than unlit pegs of the same kind, ringed, and numbered by shot.
    for e in marked {
        let kind = try #require(PegKind(rawValue: e.classes[1]))
        #expect(e.attributes["fill"] == SVGPalette.litPeg(kind).hex)
        #expect(e.attributes["fill"] != SVGPalette.peg(kind).hex)
    }
    for e in doc.with(class: "peg") where !e.classes.contains("lit") {
        #expect(e.attributes["fill"] == PegKind(rawValue: e.classes[1]).map { SVGPalette.peg($0).hex })
    }
    #expect(doc.with(class: "glow").count >= marked.count)
    let labels = doc.with(class: "peg-label").map(\.text)
    #expect(labels.filter { $0 == "1" }.count == lit1.count)
    #expect(labels.filter { $0 == "2" }.count == lit2.count)
    // Drawn: the pegs still on the board plus the lit ones the game removed.
    let live = g.pegs.filter { !$0.isRemoved }.count
    #expect(doc.with(class: "peg").count == live + lit1.union(lit2).count)
    // One info line per shot, numbered in the shot's colour.
    let shotNumbers = doc.elements.filter { $0.name == "text" && $0.attributes["font-weight"] == "bold" }.map(\.text)
    #expect(shotNumbers.contains("1") && shotNumbers.contains("2"))
    let aimText = String(format: "%+.3f", aim)
    #expect(doc.elements.contains { $0.text == "+0.100" } && doc.elements.contains { $0.text == aimText })
}

@Test func onePolylinePerTrajectoryPath() throws {
    // Multiball splits the ball on the green peg right under the cannon: two paths in one shot.
    var g = try GameState(level: sampleLevel(power: .multiball), seed: 3)
    let shots = [try g.shoot(angle: 0, recordTrajectory: true), try g.shoot(angle: 0.5, recordTrajectory: true)]
    let paths = shots.map { $0.trajectory?.paths ?? [] }
    #expect(paths[0].count >= 2, "multiball should add a path")
    let doc = try parsed(SVGRenderer().render(g, shots: shots))
    let lines = doc.with(class: "trajectory")
    #expect(lines.allSatisfy { $0.name == "polyline" })
    #expect(lines.count == paths.map(\.count).reduce(0, +))
    for (k, shotPaths) in paths.enumerated() {
        let mine = lines.filter { $0.attributes["data-shot"] == "\(k + 1)" }
        #expect(mine.count == shotPaths.count)
        for (line, path) in zip(mine, shotPaths) {
            let pts = line.points
            #expect(pts.count >= 2 && pts.count <= path.points.count)
            #expect((pts[0] - path.points[0]).length < 0.01)
            #expect((pts[pts.count - 1] - path.points[path.points.count - 1]).length < 0.01)
        }
    }
    // The first path of every shot starts at the cannon.
    for k in shots.indices {
        let line = try #require(lines.first { $0.attributes["data-shot"] == "\(k + 1)" })
        #expect((line.points[0] - Rules().cannon).length < 0.01)
    }
    // Each shot has its own colour.
    let groups = doc.with(class: "shot")
    #expect(groups.count == 2)
    #expect(Set(groups.compactMap { $0.attributes["stroke"] }).count == 2)
    #expect(doc.with(class: "shot-label").count == lines.count)
}

@Test func longTrajectoriesAreThinned() throws {
    var g = try GameState(level: sampleLevel(), seed: 1)
    let shot = try g.shoot(angle: 0.1, recordTrajectory: true)
    let raw = try #require(shot.trajectory?.paths.first?.points)
    let doc = try parsed(SVGRenderer().render(g, shots: [shot]))
    let drawn = try #require(doc.with(class: "trajectory").first).points
    #expect(drawn.count < raw.count)
    for k in 1..<(drawn.count - 1) { #expect((drawn[k] - drawn[k - 1]).length >= 2 - 0.02) }
}

@Test func cannonPointsAlongTheFirstShot() throws {
    for angle in [-1.2, 0.0, 0.6] {
        var g = try GameState(level: sampleLevel(), seed: 1)
        let shot = try g.shoot(angle: angle, recordTrajectory: true)
        let doc = try parsed(SVGRenderer().render(g, shots: [shot]))
        let barrel = try #require(doc.with(class: "barrel").first)
        let mid = barrel.points.reduce(Vec2(0, 0), +) / Double(barrel.points.count)
        let dir = (mid - Rules().cannon).normalized
        #expect(abs(dir.x - sin(angle)) < 0.01 && abs(dir.y - cos(angle)) < 0.01)
    }
}

@Test func pegsLitAroundAConfusementFlipAreDrawnOnThePathThatLitThem() throws {
    // Find an aim whose shot hits the confusement peg and lasts until the half-turn is over
    // (deterministic: the same aim every run). No power: every peg is lit by a ball touching it.
    var found: (GameState, ShotResult)?
    for k in 0..<120 where found == nil {
        var g = try GameState(level: sampleLevel(), seed: 3)
        let shot = try g.shoot(angle: -1.45 + Double(k) * 0.025, recordTrajectory: true)
        if shot.flips == 1 && g.boardAngle == Trig.pi && shot.hits.total >= 3 { found = (g, shot) }
    }
    let (g, shot) = try #require(found, "no aim hit the confusement peg")
    let trajectory = try #require(shot.trajectory)
    let path = trajectory.paths.flatMap(\.points)
    let doc = try parsed(SVGRenderer().render(g, shots: [shot]))
    var awayFromNow = 0
    for i in trajectory.litPegs {
        let e = try #require(doc.with(class: "lit").first { $0.attributes["data-peg"] == "\(i)" })
        let drawn = e.name == "circle" ? Vec2(e.number("cx") ?? .nan, e.number("cy") ?? .nan)
            : e.points.reduce(Vec2(0, 0), +) / Double(max(1, e.points.count))
        // The ball touched the peg: some recorded ball centre is within the peg's reach plus a
        // ball radius, plus one step of travel (about 8 units at most) between samples.
        let reach: Double
        switch g.level.pegs[i].shape {
        case let .circle(r): reach = r
        case let .brick(w, h, _): reach = (w * w + h * h).squareRoot() / 2
        }
        let gap = path.map { ($0 - drawn).length }.min() ?? .infinity
        #expect(gap <= reach + 10 + 8, "peg \(i) drawn at \(drawn), \(gap) from the path that lit it")
        if (g.pegCenter(i) - drawn).length > 1 { awayFromNow += 1 }
    }
    // The flip moved the board after some of these pegs lit, so the check covered that case.
    #expect(awayFromNow > 0, "the test needs a peg lit before the flip")
    #expect(doc.elements.contains { $0.text.hasPrefix("Board turned 180\u{b0}") })
}

@Test func kaboomBlastsAreDrawn() throws {
    var g = try GameState(level: sampleLevel(power: .kaboom), seed: 1)
    let shot = try g.shoot(angle: 0, recordTrajectory: true)  // straight onto the green peg
    let blasts = try #require(shot.trajectory).explosions
    #expect(!blasts.isEmpty)
    let doc = try parsed(SVGRenderer().render(g, shots: [shot]))
    let circles = doc.with(class: "blast")
    #expect(circles.count == blasts.count)
    #expect(circles.allSatisfy { $0.number("r") == Rules().kaboomRadius })
    #expect(abs((circles[0].number("cx") ?? .nan) - blasts[0].x) < 0.006)
}

@Test func bucketIsDrawnWhereTheStateHasIt() throws {
    var g = try GameState(level: sampleLevel(), seed: 1)
    _ = try g.shoot(angle: 0.1)
    let doc = try parsed(SVGRenderer().render(g))
    let rims = doc.with(class: "rim")
    #expect(rims.count == 2)
    let b = Rules().bucket
    let centres = rims.compactMap { e in e.number("x").map { $0 + b.rimRadius } }.sorted()
    #expect(centres.count == 2)
    #expect(abs(centres[0] - (g.bucket.x - b.width / 2)) < 0.01)
    #expect(abs(centres[1] - (g.bucket.x + b.width / 2)) < 0.01)
    #expect(g.bucket.x != b.x, "the bucket should have moved during the shot")
}

// MARK: Escaping and determinism

@Test func awkwardNamesAreEscaped() throws {
    let name = "<Tricky & \"Sly\"> it's"
    let level = sampleLevel(name: name)
    #expect(level.validate().isEmpty)
    var g = try GameState(level: level, seed: 1)
    let shot = try g.shoot(angle: 0.1, recordTrajectory: true)
    let title = "a <b> & \"c\" \u{1}"
    for svg in [SVGRenderer().render(level: level), SVGRenderer().render(g, shots: [shot], title: title)] {
        #expect(!svg.contains("<Tricky"))
        #expect(svg.contains("&lt;Tricky &amp; &quot;Sly&quot;&gt; it&apos;s"))
        let doc = try parsed(svg)
        #expect(doc.elements.contains { $0.name == "text" && $0.text.contains(name) })
    }
    let doc = try parsed(SVGRenderer().render(g, shots: [shot], title: title))
    // The control character XML cannot carry is replaced, the rest comes back intact.
    #expect(doc.elements.first { $0.name == "title" }?.text == "a <b> & \"c\" \u{FFFD}")
}

@Test func sameInputGivesSameBytes() throws {
    func picture() throws -> [UInt8] {
        var g = try GameState(level: sampleLevel(power: .kaboom), seed: 7)
        var shots: [ShotResult] = []
        for a in [0.0, 0.3, -0.9] { shots.append(try g.shoot(angle: a, recordTrajectory: true)) }
        return Array(SVGRenderer().render(g, shots: shots, title: "run").utf8)
    }
    let a = try picture(), b = try picture()
    #expect(a == b)
    #expect(a.count > 1000)
    let level = sampleLevel()
    #expect(Array(SVGRenderer().render(level: level).utf8) == Array(SVGRenderer().render(level: level).utf8))
    // No float noise in the drawing's numbers: at most two decimals, no exponents, never "-0".
    let doc = try parsed(String(decoding: a, as: UTF8.self))
    let numeric = ["x", "y", "cx", "cy", "r", "width", "height", "points", "x1", "y1", "x2", "y2"]
    let values = doc.elements.flatMap { e in numeric.compactMap { e.attributes[$0] } }
    #expect(values.count > 100)
    for v in values {
        #expect(v.range(of: #"\.\d{3}|e|-0(?![.\d])"#, options: .regularExpression) == nil, "\(v.prefix(60))")
    }
}

@Test func panelGrowsWithManyShots() throws {
    var g = try GameState(level: sampleLevel(), seed: 1)
    var shots: [ShotResult] = []
    while !g.isOver { shots.append(try g.shoot(angle: Double(shots.count % 5) * 0.3 - 0.6, recordTrajectory: true)) }
    let doc = try parsed(SVGRenderer().render(g, shots: shots))
    let height = try #require(doc.root?.number("height"))
    let lowest = doc.elements.filter { $0.name == "text" }.compactMap { $0.number("y") }.max() ?? 0
    #expect(lowest < height)
    #expect(doc.root?.attributes["viewBox"] == "0 0 1132 \(DecimalText.number(height))")
    let status = doc.elements.first { $0.text.hasPrefix("Status: ") }?.text
    #expect(status == "Status: " + g.status.rawValue)
}

// MARK: Formatting helpers

@Test func numbersAreShortAndStable() {
    #expect(DecimalText.number(400) == "400")
    #expect(DecimalText.number(12.5) == "12.5")
    #expect(DecimalText.number(1.0 / 3) == "0.33")
    #expect(DecimalText.number(-0.001) == "0")
    #expect(DecimalText.number(-2.675) == "-2.68")  // -2.675 * 100 is exactly -267.5, rounded away from zero
    #expect(DecimalText.number(.nan) == "0")
    #expect(DecimalText.fixed(0.1, decimals: 3, plusSign: true) == "+0.100")
    #expect(DecimalText.fixed(-0.0004, decimals: 3, plusSign: true) == "0.000")
    #expect(DecimalText.grouped(1_234_567) == "1,234,567")
    #expect(DecimalText.grouped(-1000) == "-1,000")
    #expect(DecimalText.grouped(12) == "12")
}

@Test func escapingCoversEveryXMLSpecial() {
    #expect(SVGText.escape("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&apos;f")
    #expect(SVGText.escape("x\ny\u{0}z") == "x&#10;y\u{FFFD}z")
    #expect(SVGText.escape("é ✓ 🎯") == "é ✓ 🎯")
}

@Test func wrappingKeepsWordsAndLimitsLines() {
    #expect(SVGText.wrap("one two three four", width: 9) == ["one two", "three", "four"])
    #expect(SVGText.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
    let cut = SVGText.wrap(String(repeating: "word ", count: 40), width: 10, maxLines: 2)
    #expect(cut.count == 2 && cut[1].hasSuffix("\u{2026}"))
}

@Test func thinningKeepsEndsAndSpacing() {
    let pts = (0...100).map { Vec2(Double($0) * 0.5, 0) }
    let thin = Scene.thinned(pts, step: 2)
    #expect(thin.first == pts.first && thin.last == pts.last)
    #expect(thin.count == 26)
    #expect(Scene.thinned([Vec2(1, 1)], step: 2) == [Vec2(1, 1)])
    #expect(Scene.thinned([Vec2(.nan, 0), Vec2(3, 4)], step: 2) == [Vec2(3, 4)])
}
