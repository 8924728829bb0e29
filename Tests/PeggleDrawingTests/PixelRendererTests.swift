import PeggleDrawing
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import Testing

/// Pictures from `PixelRenderer`, read back pixel by pixel. Fixtures: `sampleLevel` (SVGRendererTests).
@Suite("Pixel renderer")
struct PixelRendererTests {
    /// A rendered picture and how to read it in board units.
    struct Picture {
        var bytes: [UInt8]
        var width: Int, height: Int
        /// Pixels per board unit.
        var scale: Double

        init(_ state: GameState, shots: [ShotResult] = [], width: Int? = nil) throws {
            var r = PixelRenderer()
            var buffer: [UInt8] = []
            let size = try r.render(state, shots: shots, width: width, into: &buffer)
            bytes = buffer
            self.width = size.width
            self.height = size.height
            scale = Double(size.width) / state.rules.physics.boardWidth
        }

        /// The pixel under board point `p`.
        func at(_ p: Vec2) -> RGB {
            let x = Int(p.x * scale), y = Int(p.y * scale)
            let i = (y * width + x) * 3
            return RGB(r: Int(bytes[i]), g: Int(bytes[i + 1]), b: Int(bytes[i + 2]))
        }

        /// The largest channel difference from `colour` among the pixels within `radius` pixels
        /// of the one under `p`, smallest over them: 0 when one of them is exactly `colour`.
        func nearest(_ colour: RGB, around p: Vec2, radius: Int = 1) -> Int {
            let cx = Int(p.x * scale), cy = Int(p.y * scale)
            var best = Int.max
            for y in max(0, cy - radius)...min(height - 1, cy + radius) {
                for x in max(0, cx - radius)...min(width - 1, cx + radius) {
                    let i = (y * width + x) * 3
                    let d = max(abs(Int(bytes[i]) - colour.r), abs(Int(bytes[i + 1]) - colour.g), abs(Int(bytes[i + 2]) - colour.b))
                    best = min(best, d)
                }
            }
            return best
        }
    }

    static let background = RGB(css: SVGPalette.board)

    /// Index of the first peg of `kind` with a circular shape.
    static func circle(_ level: Level, _ kind: PegKind) throws -> Int {
        try #require(level.pegs.indices.first { i in
            if case .circle = level.pegs[i].shape { return level.pegs[i].kind == kind }
            return false
        })
    }

    @Test func sizeFollowsTheBoardAndTheRequestedWidth() throws {
        let g = try GameState(level: sampleLevel(), seed: 1)
        var r = PixelRenderer()
        var buffer: [UInt8] = []
        let natural = try r.render(g, into: &buffer)
        #expect(natural.width == 800 && natural.height == 600)
        #expect(buffer.count == 800 * 600 * 3)
        let small = try r.render(g, width: 400, into: &buffer)
        #expect(small.width == 400 && small.height == 300)
        #expect(buffer.count == 400 * 300 * 3)
        // A board of another shape keeps its aspect ratio.
        var rules = Rules()
        rules.physics.boardWidth = 1000
        rules.physics.boardHeight = 500
        let wide = try PixelRenderer.size(for: rules), narrow = try PixelRenderer.size(for: rules, width: 200)
        #expect(wide.width == 1000 && wide.height == 500)
        #expect(narrow.width == 200 && narrow.height == 100)
        // The default width stays within the range; the height within maxHeight.
        rules.physics.boardWidth = 100_000
        #expect(try PixelRenderer.size(for: rules).width == PixelRenderer.widthRange.upperBound)
        rules.physics.boardWidth = 10
        rules.physics.boardHeight = 1e300
        let tall = try PixelRenderer.size(for: rules)
        #expect(tall.width == PixelRenderer.widthRange.lowerBound && tall.height == PixelRenderer.maxHeight)
        // Widths outside the range are refused, naming the width.
        for bad in [0, 15, 4097, -3] {
            #expect(throws: PixelRenderer.SizeError(width: bad)) { try r.render(g, width: bad, into: &buffer) }
        }
        #expect(PixelRenderer.SizeError(width: 15).description.contains("width 15"))
    }

    @Test func pegsHaveTheirKindsColourAtTheirCentres() throws {
        let level = sampleLevel()
        let g = try GameState(level: level, seed: 1)
        for width in [800, 400, 1600] {
            let pic = try Picture(g, width: width)
            for kind in [PegKind.orange, .blue, .green, .purple] {
                let i = try Self.circle(level, kind)
                #expect(pic.at(g.pegCenter(i)) == SVGPalette.peg(kind), "\(kind) at width \(width)")
            }
            // Bricks and blocks too (their centres are inside them).
            let brick = try #require(level.pegs.firstIndex { if case .brick = $0.shape { true } else { false } })
            #expect(pic.at(g.pegCenter(brick)) == SVGPalette.peg(level.pegs[brick].kind))
            #expect(pic.at(level.blocks[0].center) == RGB(css: SVGPalette.blockFill))
            // Empty board is the board's colour.
            #expect(pic.at(Vec2(400, 250)) == Self.background)
        }
    }

    @Test func removedPegsAreGoneAndLitPegsAreBright() throws {
        var g = try GameState(level: sampleLevel(), seed: 1)
        let shot = try g.shoot(angle: 0.1, recordTrajectory: true)
        let lit = try #require(shot.trajectory?.litPegs)
        #expect(!lit.isEmpty)
        // Without the shot: its pegs were removed when it ended, so their places are empty.
        let now = try Picture(g)
        for i in lit {
            #expect(g.pegs[i].isRemoved)
            #expect(now.at(g.pegCenter(i)) == Self.background, "removed peg \(i) is still drawn")
        }
        // With the shot: drawn lit (the kind's bright colour, not the plain one), where they were.
        let withShot = try Picture(g, shots: [shot])
        for i in lit {
            let kind = g.pegs[i].kind
            #expect(withShot.at(g.pegCenter(i)) == SVGPalette.litPeg(kind))
            #expect(SVGPalette.litPeg(kind) != SVGPalette.peg(kind))
        }
        // Pegs the shot did not touch keep their plain colour.
        for i in g.pegs.indices where !g.pegs[i].isRemoved {
            if case .circle = g.level.pegs[i].shape {
                #expect(withShot.at(g.pegCenter(i)) == SVGPalette.peg(g.pegs[i].kind))
            }
        }
    }

    @Test func ballPathsAreDrawnInTheShotsColour() throws {
        var g = try GameState(level: sampleLevel(), seed: 1)
        let shot = try g.shoot(angle: 0.1, recordTrajectory: true)
        let path = try #require(shot.trajectory?.paths.first?.points)
        let colour = RGB(css: SVGPalette.shot(0))
        let with = try Picture(g, shots: [shot], width: 1600)
        let without = try Picture(g, width: 1600)
        // Points of the path clear of every peg, block, the cannon and the lane.
        let clear = path.enumerated().filter { k, p in
            k % 10 == 0 && p.y > 60 && p.y < 540 && p.x > 20 && p.x < 780
                && g.level.pegs.allSatisfy { ($0.center - p).length > 40 }
                && g.level.blocks.allSatisfy { ($0.center - p).length > 90 }
        }.map(\.1)
        #expect(clear.count >= 5)
        for p in clear {
            // The line is 2.8 pixels wide here: some pixel next to the point is nearly the shot's
            // colour (drawn at 0.9 opacity over the dark board).
            #expect(with.nearest(colour, around: p) < 30, "no path at \(p)")
            #expect(without.at(p) == Self.background)
        }
        #expect(with.bytes != without.bytes)
    }

    @Test func theBoardTurnsWithAConfusementFlip() throws {
        // An aim whose shot hits the confusement peg and ends after the half-turn.
        var found: GameState?
        for k in 0..<120 where found == nil {
            var g = try GameState(level: sampleLevel(), seed: 3)
            let shot = try g.shoot(angle: -1.45 + Double(k) * 0.025)
            if shot.flips == 1 && g.boardAngle == Trig.pi { found = g }
        }
        let g = try #require(found, "no aim hit the confusement peg")
        let pic = try Picture(g)
        var checked = 0
        for i in g.pegs.indices where !g.pegs[i].isRemoved {
            guard case .circle = g.level.pegs[i].shape else { continue }
            let now = g.pegCenter(i), designed = g.level.pegs[i].center
            #expect((now - Vec2(800 - designed.x, 600 - designed.y)).length < 1e-6)
            #expect(pic.at(now) == SVGPalette.peg(g.pegs[i].kind))
            // Nothing is drawn where the peg was before the turn, unless another object is there now.
            let occupied = g.pegs.indices.contains { j in !g.pegs[j].isRemoved && (g.pegCenter(j) - designed).length < 40 }
                || g.level.blocks.contains { (g.world.worldPoint($0.center) - designed).length < 90 }
            if !occupied {
                #expect(pic.at(designed) == Self.background, "peg \(i) still drawn where it was before the turn")
                checked += 1
            }
        }
        #expect(checked > 0)
        // Blocks turn too: a block's centre now holds block colour.
        for block in g.level.blocks {
            #expect(pic.at(g.world.worldPoint(block.center)) == RGB(css: SVGPalette.blockFill))
        }
    }

    @Test func bucketIsDrawnWhereItIsNow() throws {
        var g = try GameState(level: sampleLevel(), seed: 1)
        let start = g.bucket.x
        _ = try g.shoot(angle: 0.1)
        let x = g.bucket.x
        #expect(abs(x - start) > 30, "the bucket should have moved during the shot")
        let pic = try Picture(g)
        let b = g.rules.bucket
        let rimColour = RGB(css: SVGPalette.bucket)
        for rim in [x - b.width / 2, x + b.width / 2] {
            #expect(pic.at(Vec2(rim, b.top + 10)) == rimColour)
        }
        // Nothing is left where the rims started (the lane is plain there) unless the bucket overlaps.
        for rim in [start - b.width / 2, start + b.width / 2] where abs(rim - x) > b.width / 2 + 10 {
            #expect(pic.at(Vec2(rim, b.top + 10)) == RGB(css: SVGPalette.lane))
        }
    }

    @Test func sameInputSameBytes() throws {
        var g = try GameState(level: sampleLevel(power: .kaboom), seed: 2)
        let shot = try g.shoot(angle: -0.3, recordTrajectory: true)
        let a = try Picture(g, shots: [shot])
        let b = try Picture(g, shots: [shot])
        #expect(a.bytes == b.bytes)
        // The same renderer and buffer again: still the same bytes (the stroke mask is left clean).
        var r = PixelRenderer()
        var buffer: [UInt8] = []
        for _ in 0..<3 {
            try r.render(g, shots: [shot], into: &buffer)
            #expect(buffer == a.bytes)
        }
    }

    @Test func aBufferOfTheRightSizeIsReusedAndFullyOverwritten() throws {
        var g = try GameState(level: sampleLevel(), seed: 1)
        let shot = try g.shoot(angle: 0.1, recordTrajectory: true)
        let expected = try Picture(g, shots: [shot]).bytes
        var r = PixelRenderer()
        // Garbage of the right size: overwritten in place, no new storage.
        var buffer = [UInt8](repeating: 0xAB, count: 800 * 600 * 3)
        let before = buffer.withUnsafeBufferPointer { $0.baseAddress }
        try r.render(g, shots: [shot], into: &buffer)
        #expect(buffer.withUnsafeBufferPointer { $0.baseAddress } == before)
        #expect(buffer == expected)
        // A buffer of the wrong size is resized.
        var short = [UInt8](repeating: 7, count: 10)
        try r.render(g, shots: [shot], into: &short)
        #expect(short == expected)
        // A smaller picture then a default one from the same renderer: the scratch follows the size.
        try r.render(g, shots: [shot], width: 300, into: &buffer)
        #expect(buffer.count == 300 * 225 * 3)
        try r.render(g, shots: [shot], into: &buffer)
        #expect(buffer == expected)
    }

    @Test func edgesAreAntiAliased() throws {
        // Across a peg's edge the pixels step through in-between colours, not just peg or board.
        let level = sampleLevel()
        let g = try GameState(level: level, seed: 1)
        let pic = try Picture(g, width: 1600)
        let i = try Self.circle(level, .orange)
        let c = g.pegCenter(i)
        let orange = SVGPalette.peg(.orange)
        var between = 0
        for k in 0..<400 {
            let a = Double(k) * 2 * Trig.pi / 400
            let p = c + Vec2(Trig.cos(a), Trig.sin(a)) * 12.6  // just outside the radius-12 peg and its stroke
            let px = pic.at(p)
            if px != orange && px != Self.background && px != RGB(css: SVGPalette.pegStroke) { between += 1 }
        }
        #expect(between > 100)
    }
}
