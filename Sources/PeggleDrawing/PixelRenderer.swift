import PeggleGame
import PeggleLevel
import PegglePhysics

/// Draws a game state as RGB pixels (Gymnasium's `rgb_array`): the board only, without the SVG's
/// side panel and text, in `SVGPalette`'s colours so it looks like `SVGRenderer`'s picture.
///
/// Units: shapes are in board units (800 x 600 under the default rules, origin top-left, +y down);
/// the picture is `width` x `height` pixels, `width / boardWidth` pixels per board unit on both
/// axes, so the height follows the board's aspect ratio. Pixel (x, y) covers the board square
/// from (x, y) / scale to (x + 1, y + 1) / scale.
///
/// What is drawn, as `SVGRenderer.render(_:shots:)` draws it: the board and the bucket's lane,
/// blocks (dashed, brighter outlines the springier they are), kaboom blasts, pegs by kind where
/// they are now (turned with the confusement flip, `GameState.boardAngle`; removed pegs left
/// out), pegs lit by one of `shots` in their lit colour with a ring in that shot's colour, drawn
/// where they were when lit (a lit peg the shots do not account for gets a white ring), the
/// bucket at its current place with its direction arrow, each shot's ball paths as lines with a
/// dashed circle where a ball ended on the board, the cannon along the first shot's aim, and the
/// walls. Not drawn: text (shot numbers on lit pegs and paths, the panel).
///
/// Edges are anti-aliased by analytic coverage: a pixel takes the fraction of a shape's colour
/// given by its centre's signed distance to the shape's edge (in pixels), and a stroke of many
/// segments is the union of their coverages, blended once. Output is deterministic (same input,
/// same bytes). A render allocates nothing once the caller's buffer and the renderer's scratch
/// have the picture's size.
public struct PixelRenderer: Sendable {
    /// Widths a picture may have, in pixels.
    public static let widthRange = 16...4096
    /// Pixels per board unit of the default picture (800 x 600 under the default rules).
    public static let defaultScale = 1.0
    /// Tallest picture, pixels (the height follows the board's aspect ratio).
    public static let maxHeight = Rules.maxPictureHeight

    /// A requested size outside `widthRange`.
    public struct SizeError: Error, Equatable, CustomStringConvertible {
        public var width: Int
        package init(width: Int) { self.width = width }
        public var description: String {
            "width \(width) is outside \(PixelRenderer.widthRange.lowerBound)...\(PixelRenderer.widthRange.upperBound) pixels"
        }
    }

    /// Coverage of the stroke being drawn, one value per pixel; zero between strokes.
    private var mask: [Float] = []
    /// Columns of each row the current stroke may have touched (lowest, highest + 1).
    private var spanLow: [Int32] = []
    private var spanHigh: [Int32] = []

    public init() {}

    /// The picture's size in pixels for a board under `rules`: `width` (default: the board width
    /// times `defaultScale`, kept within `widthRange`) and the height that keeps the board's
    /// aspect ratio (at least 1).
    public static func size(for rules: Rules, width: Int? = nil) throws(SizeError) -> (width: Int, height: Int) {
        let board = rules.physics
        let w: Int
        if let width {
            guard widthRange.contains(width) else { throw SizeError(width: width) }
            w = width
        } else {
            let natural = (board.boardWidth * defaultScale).rounded()
            let range = Double(widthRange.lowerBound)...Double(widthRange.upperBound)
            w = natural.isFinite ? Int(min(max(natural, range.lowerBound), range.upperBound)) : 800
        }
        return (w, rules.pictureHeight(width: w))
    }

    /// Draws `state` and the ball paths of `shots` (the shots that led to it, in order, taken with
    /// `recordTrajectory: true`; shots without a trajectory draw nothing) into `pixels`: `height`
    /// rows of `width` pixels, each pixel three bytes R, G, B (row-major, `height x width x 3`).
    /// `pixels` is resized only when its count is not `width * height * 3`; every byte is
    /// written. `width` in pixels, nil for the default; see `size(for:width:)`.
    @discardableResult
    public mutating func render(_ state: GameState, shots: [ShotResult] = [], width: Int? = nil,
                                into pixels: inout [UInt8]) throws(SizeError) -> (width: Int, height: Int) {
        let (w, h) = try Self.size(for: state.rules, width: width)
        let count = w * h
        if pixels.count != count * 3 { pixels = [UInt8](repeating: 0, count: count * 3) }
        if mask.count != count { mask = [Float](repeating: 0, count: count) }
        if spanLow.count != h {
            spanLow = [Int32](repeating: Int32.max, count: h)
            spanHigh = [Int32](repeating: 0, count: h)
        }
        let scale = Double(w) / state.rules.physics.boardWidth
        pixels.withUnsafeMutableBufferPointer { rgb in
            mask.withUnsafeMutableBufferPointer { m in
                spanLow.withUnsafeMutableBufferPointer { lo in
                    spanHigh.withUnsafeMutableBufferPointer { hi in
                        var canvas = Canvas(rgb: rgb.baseAddress!, mask: m.baseAddress!, spanLow: lo.baseAddress!,
                                            spanHigh: hi.baseAddress!, width: w, height: h, scale: scale)
                        Painter(state: state, shots: shots).paint(&canvas)
                    }
                }
            }
        }
        return (w, h)
    }
}

// MARK: Colours

/// An RGB colour, channels 0...255.
typealias Colour = SIMD3<Float>

extension RGB {
    var colour: Colour { Colour(Float(r), Float(g), Float(b)) }

    /// A "#rrggbb" palette string (anything else reads as black; the palette has only these).
    package init(css: String) {
        var v: UInt32 = 0
        for u in css.utf8.dropFirst() {
            let d: UInt32 = switch u {
            case 48...57: UInt32(u - 48)
            case 97...102: UInt32(u - 87)
            case 65...70: UInt32(u - 55)
            default: 0
            }
            v = v << 4 | d
        }
        self.init(v)
    }
}

/// `SVGPalette`'s colours as floats, converted once.
enum PixelPalette {
    static let board = RGB(css: SVGPalette.board).colour
    static let lane = RGB(css: SVGPalette.lane).colour
    static let laneLine = RGB(css: SVGPalette.laneLine).colour
    static let wall = RGB(css: SVGPalette.wall).colour
    static let pegStroke = RGB(css: SVGPalette.pegStroke).colour
    static let blockFill = RGB(css: SVGPalette.blockFill).colour
    static let bucket = RGB(css: SVGPalette.bucket).colour
    static let cannon = RGB(css: SVGPalette.cannon).colour
    static let cannonBarrel = RGB(css: SVGPalette.cannonBarrel).colour
    static let blastFill = RGB(css: SVGPalette.blastFill).colour
    static let blastStroke = RGB(css: SVGPalette.blastStroke).colour
    static let white = Colour(255, 255, 255)
    static let shots = SVGPalette.shots.map { RGB(css: $0).colour }
    static let pegs = PegKind.allCases.map { SVGPalette.peg($0).colour }
    static let litPegs = PegKind.allCases.map { SVGPalette.litPeg($0).colour }

    static func shot(_ index: Int) -> Colour { shots[((index % shots.count) + shots.count) % shots.count] }
    static func peg(_ kind: PegKind, lit: Bool) -> Colour {
        let k = PegKind.allCases.firstIndex(of: kind)!
        return lit ? litPegs[k] : pegs[k]
    }
}

// MARK: Shapes

/// A convex polygon of at most four vertices, held inline (no array, so no allocation).
struct Quad {
    var v0 = Vec2(0, 0), v1 = Vec2(0, 0), v2 = Vec2(0, 0), v3 = Vec2(0, 0)
    var count = 0

    subscript(i: Int) -> Vec2 {
        get {
            switch i {
            case 0: v0
            case 1: v1
            case 2: v2
            default: v3
            }
        }
        set {
            switch i {
            case 0: v0 = newValue
            case 1: v1 = newValue
            case 2: v2 = newValue
            default: v3 = newValue
            }
        }
    }

    /// The corners of a `width` x `height` box centred on `center` and turned by `rotation`, as
    /// `ConvexPolygon.rectangle` (`triangle`: `ConvexPolygon.triangle`) lays them out.
    init(center: Vec2, width: Double, height: Double, rotation: Double, triangle: Bool = false) {
        let hw = width / 2, hh = height / 2
        let c = Trig.cos(rotation), s = Trig.sin(rotation)
        if triangle {
            count = 3
            v0 = center + Vec2(0, -hh).rotated(cos: c, sin: s)
            v1 = center + Vec2(hw, hh).rotated(cos: c, sin: s)
            v2 = center + Vec2(-hw, hh).rotated(cos: c, sin: s)
        } else {
            count = 4
            v0 = center + Vec2(-hw, -hh).rotated(cos: c, sin: s)
            v1 = center + Vec2(hw, -hh).rotated(cos: c, sin: s)
            v2 = center + Vec2(hw, hh).rotated(cos: c, sin: s)
            v3 = center + Vec2(-hw, hh).rotated(cos: c, sin: s)
        }
    }

    init() {}

    init(_ a: Vec2, _ b: Vec2, _ c: Vec2) {
        v0 = a; v1 = b; v2 = c; count = 3
    }

    func mapped(_ f: (Vec2) -> Vec2) -> Quad {
        var q = self
        for i in 0..<count { q[i] = f(self[i]) }
        return q
    }
}

/// A peg's outline in board units.
enum PegOutline {
    case circle(center: Vec2, radius: Double)
    case polygon(Quad)

    init(_ peg: Peg, map: (Vec2) -> Vec2) {
        switch peg.shape {
        case let .circle(r): self = .circle(center: map(peg.center), radius: r)
        case let .brick(w, h, rot): self = .polygon(Quad(center: peg.center, width: w, height: h, rotation: rot).mapped(map))
        }
    }
}

// MARK: The raster

/// Pixels and the stroke mask, as raw memory for the duration of one render. Every drawing call
/// takes board units and converts them with `scale`; distances for anti-aliasing are in pixels.
struct Canvas {
    let rgb: UnsafeMutablePointer<UInt8>
    let mask: UnsafeMutablePointer<Float>
    let spanLow: UnsafeMutablePointer<Int32>
    let spanHigh: UnsafeMutablePointer<Int32>
    let width: Int, height: Int
    /// Pixels per board unit.
    let scale: Double

    /// Fraction of a pixel covered by a shape whose edge is `d` pixels from the pixel's centre
    /// (negative inside): a one-pixel ramp across the edge.
    @inline(__always) static func coverage(_ d: Double) -> Float {
        Float(min(max(0.5 - d, 0), 1))
    }

    /// Mixes `colour` into pixel `i` with weight `a` in 0...1.
    @inline(__always) func blend(_ i: Int, _ colour: Colour, _ a: Float) {
        let p = rgb + i * 3
        if a >= 1 {
            p[0] = UInt8(colour.x); p[1] = UInt8(colour.y); p[2] = UInt8(colour.z)
            return
        }
        let old = Colour(Float(p[0]), Float(p[1]), Float(p[2]))
        let new = old + (colour - old) * a + 0.5
        p[0] = UInt8(new.x); p[1] = UInt8(new.y); p[2] = UInt8(new.z)
    }

    /// Pixel rows and columns whose centres may lie within `pad` pixels of the board-unit box
    /// from `lo` to `hi`, clipped to the picture; nil if none.
    @inline(__always) func pixelBox(_ lo: Vec2, _ hi: Vec2, pad: Double) -> (x0: Int, x1: Int, y0: Int, y1: Int)? {
        let fx0 = lo.x * scale - pad, fx1 = hi.x * scale + pad
        let fy0 = lo.y * scale - pad, fy1 = hi.y * scale + pad
        guard fx0.isFinite, fx1.isFinite, fy0.isFinite, fy1.isFinite else { return nil }
        // Clamped to just outside the picture before converting, so far-off shapes cannot trap.
        let w = Double(width), h = Double(height)
        let x0 = Int(min(max(fx0, 0), w).rounded(.down)), x1 = Int(min(max(fx1, 0), w).rounded(.up))
        let y0 = Int(min(max(fy0, 0), h).rounded(.down)), y1 = Int(min(max(fy1, 0), h).rounded(.up))
        guard x0 < x1, y0 < y1 else { return nil }
        return (x0, x1, y0, y1)
    }

    func fill(_ colour: Colour) {
        for x in 0..<width { blend(x, colour, 1) }
        let row = width * 3
        for y in 1..<max(1, height) { (rgb + y * row).update(from: rgb, count: row) }
    }

    /// Columns of row `y` whose centres lie within `reach` pixels of the pixel-space point `c`
    /// (clipped to the picture; empty if none).
    @inline(__always) func columns(row y: Int, around c: Vec2, reach: Double) -> Range<Int> {
        let dy = Double(y) + 0.5 - c.y
        let q = reach * reach - dy * dy
        guard q > 0 else { return 0..<0 }
        let half = q.squareRoot()
        let lo = max(0, Int((c.x - half - 0.5).rounded(.up))), hi = min(width, Int((c.x + half - 0.5).rounded(.down)) + 1)
        return lo < hi ? lo..<hi : 0..<0
    }

    /// An axis-aligned rectangle in board units, each pixel weighted by the exact fraction of it
    /// the rectangle covers.
    func fillRect(x0: Double, y0: Double, x1: Double, y1: Double, _ colour: Colour, alpha: Float = 1) {
        guard let box = pixelBox(Vec2(x0, y0), Vec2(x1, y1), pad: 1) else { return }
        let px0 = x0 * scale, px1 = x1 * scale, py0 = y0 * scale, py1 = y1 * scale
        for y in box.y0..<box.y1 {
            let cy = min(Double(y + 1), py1) - max(Double(y), py0)
            guard cy > 0 else { continue }
            for x in box.x0..<box.x1 {
                let cx = min(Double(x + 1), px1) - max(Double(x), px0)
                guard cx > 0 else { continue }
                blend(y * width + x, colour, Float(min(cx * cy, 1)) * alpha)
            }
        }
    }

    /// A disc of `radius` board units.
    func fillCircle(_ center: Vec2, _ radius: Double, _ colour: Colour, alpha: Float = 1) {
        let r = radius * scale
        guard r > 0, let box = pixelBox(center - Vec2(radius, radius), center + Vec2(radius, radius), pad: 1) else { return }
        let c = center * scale
        for y in box.y0..<box.y1 {
            let dy = Double(y) + 0.5 - c.y
            // Pixels whose centres are at least half a pixel inside are covered fully.
            let inner = r > 0.5 ? columns(row: y, around: c, reach: r - 0.5) : 0..<0
            for x in columns(row: y, around: c, reach: r + 0.5) {
                if inner.contains(x) { blend(y * width + x, colour, alpha); continue }
                let dx = Double(x) + 0.5 - c.x
                let cov = Self.coverage((dx * dx + dy * dy).squareRoot() - r)
                if cov > 0 { blend(y * width + x, colour, cov * alpha) }
            }
        }
    }

    /// A circle's outline: `lineWidth` board units wide, centred on `radius`.
    func ring(_ center: Vec2, _ radius: Double, lineWidth: Double, _ colour: Colour, alpha: Float = 1) {
        let r = radius * scale, half = lineWidth * scale / 2
        let reach = radius + lineWidth / 2
        guard half > 0, let box = pixelBox(center - Vec2(reach, reach), center + Vec2(reach, reach), pad: 1) else { return }
        let c = center * scale
        let holeReach = r - half - 0.5
        for y in box.y0..<box.y1 {
            let dy = Double(y) + 0.5 - c.y
            // Pixels whose centres are more than half a pixel inside the ring's inner edge are untouched.
            let hole = holeReach > 0 ? columns(row: y, around: c, reach: holeReach) : 0..<0
            for x in columns(row: y, around: c, reach: r + half + 0.5) where !hole.contains(x) {
                let dx = Double(x) + 0.5 - c.x
                let cov = Self.coverage(abs((dx * dx + dy * dy).squareRoot() - r) - half)
                if cov > 0 { blend(y * width + x, colour, cov * alpha) }
            }
        }
    }

    /// A convex polygon (board units). The distance used is the largest over the edges' lines,
    /// exact along edges and slightly short of it just outside a corner.
    func fillPolygon(_ q: Quad, _ colour: Colour, alpha: Float = 1) {
        guard q.count >= 3 else { return }
        var lo = q[0], hi = q[0]
        var centroid = Vec2(0, 0)
        for i in 0..<q.count {
            lo = Vec2(min(lo.x, q[i].x), min(lo.y, q[i].y))
            hi = Vec2(max(hi.x, q[i].x), max(hi.y, q[i].y))
            centroid += q[i] * scale
        }
        centroid = centroid / Double(q.count)
        guard let box = pixelBox(lo, hi, pad: 1) else { return }
        // Outward unit normals and offsets of the edges, in pixels: d(p) = n . p - o.
        var n = Quad(), o = SIMD4<Double>(repeating: -.infinity)
        n.count = q.count
        for i in 0..<q.count {
            let a = q[i] * scale, b = q[(i + 1) % q.count] * scale
            let e = b - a
            let len = e.length
            guard len > 1e-12 else { n[i] = Vec2(0, 0); o[i] = .infinity; continue }  // a point edge bounds nothing
            var normal = Vec2(e.y, -e.x) / len
            if normal.dot(centroid - a) > 0 { normal = -normal }
            n[i] = normal
            o[i] = normal.dot(a)
        }
        for y in box.y0..<box.y1 {
            let py = Double(y) + 0.5
            for x in box.x0..<box.x1 {
                let p = Vec2(Double(x) + 0.5, py)
                var d = -Double.infinity
                for i in 0..<q.count { d = max(d, n[i].dot(p) - o[i]) }
                let cov = Self.coverage(d)
                if cov > 0 { blend(y * width + x, colour, cov * alpha) }
            }
        }
    }

    // MARK: Strokes (through the mask)

    /// Adds a straight stroke from `a` to `b` (board units), `lineWidth` wide, to the mask:
    /// round ends (`round`, which also makes round joins between segments) or flat ones.
    func maskSegment(_ a: Vec2, _ b: Vec2, lineWidth: Double, round: Bool) {
        let half = lineWidth * scale / 2
        let reach = lineWidth / 2
        guard half > 0, let box = pixelBox(Vec2(min(a.x, b.x) - reach, min(a.y, b.y) - reach),
                                           Vec2(max(a.x, b.x) + reach, max(a.y, b.y) + reach), pad: 1) else { return }
        let pa = a * scale, e = (b - a) * scale
        let len = e.length
        let dir = len > 1e-12 ? e / len : Vec2(1, 0)
        for y in box.y0..<box.y1 {
            spanLow[y] = min(spanLow[y], Int32(box.x0))
            spanHigh[y] = max(spanHigh[y], Int32(box.x1))
            let py = Double(y) + 0.5
            for x in box.x0..<box.x1 {
                let r = Vec2(Double(x) + 0.5, py) - pa
                let along = r.dot(dir)
                let d: Double
                if round {
                    let t = min(max(along, 0), len)
                    d = (r - dir * t).length - half
                } else {
                    let across = abs(r.x * dir.y - r.y * dir.x)
                    d = max(across - half, max(-along, along - len))
                }
                let cov = Self.coverage(d)
                let i = y * width + x
                if cov > mask[i] { mask[i] = cov }
            }
        }
    }

    /// Blends the mask into the pixels in `colour` and clears it.
    func compositeMask(_ colour: Colour, alpha: Float = 1) {
        for y in 0..<height where spanLow[y] < spanHigh[y] {
            for x in Int(spanLow[y])..<Int(spanHigh[y]) {
                let i = y * width + x
                let cov = mask[i]
                if cov > 0 {
                    blend(i, colour, cov * alpha)
                    mask[i] = 0
                }
            }
            spanLow[y] = Int32.max
            spanHigh[y] = 0
        }
    }

    /// A dash pattern along a path: dashes `on` long, gaps `off` long (board units), continuing
    /// from segment to segment as SVG's `stroke-dasharray` does; `on` 0 is a solid line.
    struct Dashes {
        var on = 0.0, off = 0.0
        /// Distance walked into the current period.
        var phase = 0.0
        static let solid = Dashes()
    }

    /// Adds the segment from `a` to `b` to the mask, dashed by `dashes` (advanced by its length).
    func maskDashedSegment(_ a: Vec2, _ b: Vec2, lineWidth: Double, round: Bool, dashes: inout Dashes) {
        let len = (b - a).length
        guard dashes.on > 0, dashes.off > 0, len > 0 else {
            maskSegment(a, b, lineWidth: lineWidth, round: round)
            return
        }
        let period = dashes.on + dashes.off
        let dir = (b - a) / len
        var s = 0.0
        while s < len {
            let inDash = dashes.phase < dashes.on
            let step = min((inDash ? dashes.on : period) - dashes.phase, len - s)
            if inDash { maskSegment(a + dir * s, a + dir * (s + step), lineWidth: lineWidth, round: round) }
            s += step
            dashes.phase += step
            if dashes.phase >= period - 1e-9 { dashes.phase = 0 }
        }
    }

    /// Adds a closed polygon's outline to the mask.
    func maskOutline(_ q: Quad, lineWidth: Double, dashes: Dashes = .solid) {
        var d = dashes
        for i in 0..<q.count {
            maskDashedSegment(q[i], q[(i + 1) % q.count], lineWidth: lineWidth, round: d.on == 0, dashes: &d)
        }
    }

    /// Adds a circle's outline, dashed, to the mask (as a polygon fine enough to look round; the
    /// dashes start at the circle's rightmost point, as SVG's do).
    func maskDashedCircle(_ center: Vec2, _ radius: Double, lineWidth: Double, dashes: Dashes) {
        let sides = min(max(Int((2 * Trig.pi * radius * scale / 3).rounded(.up)), 16), 256)
        var d = dashes
        var prev = center + Vec2(radius, 0)
        for k in 1...sides {
            let t = 2 * Trig.pi * Double(k) / Double(sides)
            let next = center + Vec2(Trig.cos(t), Trig.sin(t)) * radius
            maskDashedSegment(prev, next, lineWidth: lineWidth, round: false, dashes: &d)
            prev = next
        }
    }
}

// MARK: The picture

/// What `PixelRenderer` draws, in `SVGRenderer`'s order and sizes (board units).
struct Painter {
    let state: GameState
    let shots: [ShotResult]

    var rules: Rules { state.rules }
    var boardWidth: Double { rules.physics.boardWidth }
    var boardHeight: Double { rules.physics.boardHeight }

    func paint(_ c: inout Canvas) {
        c.fill(PixelPalette.board)
        lane(c)
        blocks(c)
        blasts(c)
        pegs(c)
        bucket(c)
        trajectories(c)
        cannon(c)
        // The walls: a 2-unit line centred on the board's edge, of which the inner half shows.
        let w = boardWidth, h = boardHeight, colour = PixelPalette.wall
        c.fillRect(x0: 0, y0: 0, x1: 1, y1: h, colour)
        c.fillRect(x0: w - 1, y0: 0, x1: w, y1: h, colour)
        c.fillRect(x0: 0, y0: 0, x1: w, y1: 1, colour)
        c.fillRect(x0: 0, y0: h - 1, x1: w, y1: h, colour)
    }

    func lane(_ c: Canvas) {
        let top = rules.laneTop, b = rules.bucket
        c.fillRect(x0: 0, y0: top, x1: boardWidth, y1: max(top, boardHeight), PixelPalette.lane)
        var dashes = Canvas.Dashes(on: 6, off: 4)
        c.maskDashedSegment(Vec2(0, top), Vec2(boardWidth, top), lineWidth: 1, round: false, dashes: &dashes)
        // The bucket centre's track between its travel limits.
        let trackY = boardHeight - 4
        c.maskSegment(Vec2(b.minX, trackY - 4), Vec2(b.minX, trackY), lineWidth: 1, round: false)
        c.maskSegment(Vec2(b.minX, trackY), Vec2(b.maxX, trackY), lineWidth: 1, round: false)
        c.maskSegment(Vec2(b.maxX, trackY), Vec2(b.maxX, trackY - 4), lineWidth: 1, round: false)
        c.compositeMask(PixelPalette.laneLine)
    }

    func blocks(_ c: Canvas) {
        for block in state.level.blocks {
            let q = Quad(center: block.center, width: block.width, height: block.height, rotation: block.rotation,
                         triangle: block.shape == .triangle).mapped { state.world.worldPoint($0) }
            let s = min(max(block.springiness.isFinite ? block.springiness : 0, 0), 1)
            c.fillPolygon(q, PixelPalette.blockFill)
            c.maskOutline(q, lineWidth: 1.5 + 2 * s, dashes: s > 0 ? Canvas.Dashes(on: 7, off: 3) : .solid)
            c.compositeMask(SVGPalette.blockStroke.mixed(with: SVGPalette.springStroke, s).colour)
        }
    }

    func blasts(_ c: Canvas) {
        let r = rules.kaboomRadius
        for shot in shots {
            for p in shot.trajectory?.explosions ?? [] where p.isFinite {
                c.fillCircle(p, r, PixelPalette.blastFill, alpha: 0.16)
                c.maskDashedCircle(p, r, lineWidth: 1.5, dashes: Canvas.Dashes(on: 5, off: 3))
                c.compositeMask(PixelPalette.blastStroke)
            }
        }
    }

    /// The first of `shots` whose trajectory lit peg `i`, and the board's turn when it did.
    func litBy(_ i: Int) -> (shot: Int, angle: Double)? {
        for (k, shot) in shots.enumerated() {
            guard let t = shot.trajectory else { continue }
            for (j, p) in t.litPegs.enumerated() where p == i {
                return (k, j < t.litAngles.count ? t.litAngles[j] : state.world.frame.angle)
            }
        }
        return nil
    }

    /// Peg `i` as drawn: where it is now, or, if removed and lit by a shot, where it was when lit.
    func outline(_ i: Int, lit: (shot: Int, angle: Double)?) -> PegOutline {
        let peg = state.level.pegs[i]
        if state.pegs[i].isRemoved, let angle = lit?.angle {
            let frame = state.world.frame
            return PegOutline(peg) { frame.toWorld($0, angle: angle) }
        }
        return PegOutline(peg) { state.world.worldPoint($0) }
    }

    func pegs(_ c: Canvas) {
        let count = min(state.level.pegs.count, state.pegs.count)
        // Glow rings first, so no ring covers a neighbouring peg.
        for i in 0..<count {
            let lit = litBy(i)
            guard lit != nil || (state.pegs[i].isLit && !state.pegs[i].isRemoved) else { continue }
            let colour = lit.map { PixelPalette.shot($0.shot) } ?? PixelPalette.white
            switch outline(i, lit: lit) {
            case let .circle(centre, r):
                c.ring(centre, r + 4, lineWidth: 5, colour, alpha: 0.35)
                c.ring(centre, r + 2.5, lineWidth: 2, colour)
            case let .polygon(q):
                c.maskOutline(q, lineWidth: 9)
                c.compositeMask(colour, alpha: 0.35)
                c.maskOutline(q, lineWidth: 5)
                c.compositeMask(colour)
            }
        }
        for i in 0..<count {
            let lit = litBy(i)
            let pegState = state.pegs[i]
            guard !pegState.isRemoved || lit != nil else { continue }
            let fill = PixelPalette.peg(pegState.kind, lit: lit != nil || pegState.isLit)
            switch outline(i, lit: lit) {
            case let .circle(centre, r):
                c.fillCircle(centre, r, fill)
                c.ring(centre, r, lineWidth: 1, PixelPalette.pegStroke)
            case let .polygon(q):
                c.fillPolygon(q, fill)
                c.maskOutline(q, lineWidth: 1)
                c.compositeMask(PixelPalette.pegStroke)
            }
        }
    }

    func bucket(_ c: Canvas) {
        let b = rules.bucket
        let x = state.bucket.x, direction = state.bucket.direction
        let bottom = max(boardHeight, b.top + b.depth)
        c.fillRect(x0: x - b.width / 2, y0: b.top, x1: x + b.width / 2, y1: bottom, PixelPalette.bucket, alpha: 0.18)
        let left = x - b.width / 2, right = x + b.width / 2
        c.maskSegment(Vec2(left, b.top), Vec2(left, bottom), lineWidth: 2 * b.rimRadius, round: true)
        c.maskSegment(Vec2(right, b.top), Vec2(right, bottom), lineWidth: 2 * b.rimRadius, round: true)
        c.compositeMask(PixelPalette.bucket)
        // Which way it is moving.
        let d = direction < 0 ? -1.0 : 1.0
        let ay = (b.top + boardHeight) / 2
        c.fillPolygon(Quad(Vec2(x + d * 9, ay), Vec2(x - d * 5, ay - 5), Vec2(x - d * 5, ay + 5)), PixelPalette.bucket)
    }

    func trajectories(_ c: Canvas) {
        let ballRadius = rules.physics.ballRadius
        for (k, shot) in shots.enumerated() {
            guard let trajectory = shot.trajectory else { continue }
            let colour = PixelPalette.shot(k)
            for path in trajectory.paths {
                // Thinned as SVGRenderer thins it: kept points at least `Scene.pathStep` apart,
                // the last point always kept; non-finite points dropped.
                var last: Vec2?
                var kept = 0
                var end = Vec2(0, 0)
                for p in path.points where p.isFinite {
                    end = p
                    if let l = last {
                        if (p - l).length < Scene.pathStep { continue }
                        c.maskSegment(l, p, lineWidth: 1.4, round: true)
                    }
                    last = p
                    kept += 1
                }
                if let l = last, l != end {
                    c.maskSegment(l, end, lineWidth: 1.4, round: true)
                    kept += 1
                }
                c.compositeMask(colour, alpha: 0.9)
                if kept > 1, end.y <= boardHeight + ballRadius {
                    c.maskDashedCircle(end, ballRadius, lineWidth: 1.4, dashes: Canvas.Dashes(on: 3, off: 2))
                    c.compositeMask(colour, alpha: 0.9)
                }
            }
        }
    }

    func cannon(_ c: Canvas) {
        let centre = rules.cannon
        let a = shots.first.map(\.angle).flatMap { $0.isFinite ? $0 : nil } ?? 0
        let dir = Vec2(Trig.sin(a), Trig.cos(a))
        let length = 34.0
        // `rectangle` turns +y (its height axis) by `rotation`; down turned by -a is (sin a, cos a).
        let barrel = Quad(center: centre + dir * (length / 2), width: 12, height: length, rotation: -a)
        c.fillPolygon(barrel, PixelPalette.cannonBarrel)
        c.maskOutline(barrel, lineWidth: 1.5)
        c.compositeMask(PixelPalette.pegStroke)
        c.fillCircle(centre, 15, PixelPalette.cannon)
        c.ring(centre, 15, lineWidth: 1.5, PixelPalette.pegStroke)
    }
}

/// The environment's `pixels` observation draws with this rasteriser (docs/environment.md).
extension PixelRenderer: BoardRasterizer {
    public mutating func drawBoard(_ state: GameState, width: Int, into rgb: inout [UInt8]) {
        // The environment checks the width when it is made (`ObservationEncoder.pixelWidths`
        // lies within `widthRange`), so this cannot fail.
        _ = try? render(state, shots: [], width: width, into: &rgb)
    }
}
