import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleUtilities

/// Draws a Peggle board as a standalone SVG document: the board (800 x 600 board units under the
/// default rules, origin top-left, +y down, drawn one SVG unit per board unit) with a side panel
/// holding the level's name, mode, power, the game's score and status, a legend and one line per
/// shot.
///
/// What is drawn: pegs coloured by kind (circles and rotated bricks), blocks (outline brighter and
/// dashed the springier they are), lit pegs (bright fill, a ring in the colour of the shot that lit
/// them and that shot's number), the bucket's two rims and its lane, the cannon (barrel along the
/// first shot's aim), each shot's ball paths as thin polylines (one colour per shot, numbered near
/// their start) and kaboom blasts as circles of `Rules.kaboomRadius`.
///
/// The output is deterministic (same input, same bytes: numbers are written with at most two
/// decimals, no locale, no clock) and well-formed XML (every text and attribute value is escaped).
/// Paths are thinned to about one point per 2 board units.
public struct SVGRenderer: Sendable {
    /// Rules used by `render(level:)` (board size, cannon, bucket, kaboom radius). A game state is
    /// always drawn under its own `GameState.rules`.
    public var rules: Rules

    public init(rules: Rules = Rules()) { self.rules = rules }

    /// The board as the level designer laid it out (no game played): every peg and block where the
    /// level puts it, the bucket at its starting place, the cannon pointing straight down.
    public func render(level: Level) -> String {
        render(level: level, scene: Scene(rules: rules, level: level))
    }

    func render(level: Level, scene: Scene) -> String {
        var scene = scene
        scene.pegs = level.pegs.enumerated().map { i, peg in
            Scene.PegItem(index: i, kind: peg.kind, outline: Scene.Outline(peg) { $0 }, litBy: nil, lit: false)
        }
        scene.blocks = level.blocks.map { Scene.BlockItem(vertices: $0.polygon.vertices, springiness: $0.springiness) }
        scene.bucketX = rules.bucket.x
        scene.bucketDirection = rules.bucket.direction
        scene.heading = level.name
        scene.counts = Self.counts(level.pegs.map(\.kind))
        scene.isLevelView = true
        scene.info = levelInfo(level)
        return scene.svg()
    }

    /// The board as designed, with a ring around each peg of `rings` coloured by its value on
    /// `SVGPalette.heat`'s scale (0 blue, 1/2 pale yellow, 1 red) and titled with its text (a
    /// browser shows it on hover). The report's heatmap: each orange peg's lost-with rate.
    public func render(level: Level, rings: [PegRing]) -> String {
        var scene = Scene(rules: rules, level: level)
        scene.rings = rings.filter { level.pegs.indices.contains($0.index) }
        return render(level: level, scene: scene)
    }

    /// The board in `state`, with each shot's trajectory drawn on top.
    ///
    /// Pegs are drawn where they are now (turned with the confusement flip, `state.boardAngle`);
    /// removed pegs are left out, except pegs that one of `shots` lit: those are drawn lit, where
    /// they were when they lit up (so they meet the ball path that lit them even if a confusement
    /// flip turned the board afterwards), and labelled with the number of the shot that lit them.
    /// `shots` are the shots that led to `state`, in order, taken with `recordTrajectory: true`
    /// (shots without a trajectory are listed in the panel but draw nothing). The cannon points
    /// along the first shot's angle. `title`, when given, heads the panel instead of the level name.
    public func render(_ state: GameState, shots: [ShotResult] = [], title: String? = nil) -> String {
        let level = state.level
        var scene = Scene(rules: state.rules, level: level)
        // Which shot lit each peg, and the board's turn (confusement flips) when it did, as the
        // trajectory recorded it.
        let frame = state.world.frame
        var litBy: [Int: (shot: Int, angle: Double)] = [:]
        for (k, shot) in shots.enumerated() {
            guard let t = shot.trajectory else { continue }
            for (j, i) in t.litPegs.enumerated() where level.pegs.indices.contains(i) && i < state.pegs.count {
                if litBy[i] == nil { litBy[i] = (k, j < t.litAngles.count ? t.litAngles[j] : frame.angle) }
            }
        }
        for (i, peg) in level.pegs.enumerated() where i < state.pegs.count {
            let pegState = state.pegs[i]
            let lit = litBy[i]
            guard !pegState.isRemoved || lit != nil else { continue }
            let outline: Scene.Outline
            if pegState.isRemoved, let angle = lit?.angle {
                outline = Scene.Outline(peg) { frame.toWorld($0, angle: angle) }
            } else {
                outline = Scene.Outline(peg) { state.world.worldPoint($0) }
            }
            scene.pegs.append(Scene.PegItem(index: i, kind: pegState.kind, outline: outline, litBy: lit?.shot,
                                            lit: lit != nil || pegState.isLit))
        }
        scene.blocks = level.blocks.map { block in
            Scene.BlockItem(vertices: block.polygon.vertices.map { state.world.worldPoint($0) },
                            springiness: block.springiness)
        }
        let bucket = state.bucket
        scene.bucketX = bucket.x
        scene.bucketDirection = bucket.direction
        scene.cannonAngle = shots.first?.angle ?? 0
        scene.shots = shots
        scene.heading = title ?? level.name
        scene.counts = Self.counts(state.pegs.filter { !$0.isRemoved }.map(\.kind))
        scene.info = stateInfo(state, shots: shots, titled: title != nil)
        return scene.svg()
    }

    // MARK: Panel text

    static func counts(_ kinds: [PegKind]) -> KindCounts {
        var c = KindCounts()
        for k in kinds { c[k] += 1 }
        return c
    }

    package static func modeText(_ mode: GameMode) -> String {
        switch mode {
        case let .classic(c): "classic, \(c.balls) ball\(c.balls == 1 ? "" : "s")"
        case let .beatTheScore(b):
            "beat the score: \(DecimalText.grouped(b.targetScore)) points in \(DecimalText.number(b.timeLimit, decimals: 1)) s"
        case let .dodge(d): "dodge: \(d.shots) clean shot\(d.shots == 1 ? "" : "s")"
        }
    }

    func levelInfo(_ level: Level) -> [Scene.Line] {
        var lines: [Scene.Line] = []
        if let author = level.author, !author.isEmpty {
            lines += SVGText.wrap("by " + author, width: 44, maxLines: 2).map { .dim($0) }
        }
        lines.append(.plain("Mode: " + Self.modeText(level.mode)))
        lines.append(.plain("Power: " + level.power.rawValue))
        lines.append(.plain("Pegs: \(level.pegs.count) \u{b7} blocks: \(level.blocks.count)"))
        if let d = level.description, !d.isEmpty {
            lines.append(.gap(4))
            lines += SVGText.wrap(d, width: 46, maxLines: 6).map { .dim($0) }
        }
        lines.append(.gap(4))
        lines.append(.dim("As designed: no shot played."))
        return lines
    }

    func stateInfo(_ state: GameState, shots: [ShotResult], titled: Bool) -> [Scene.Line] {
        let level = state.level
        var lines: [Scene.Line] = []
        if titled { lines += SVGText.wrap("Level: " + level.name, width: 44, maxLines: 3).map { .dim($0) } }
        if let author = level.author, !author.isEmpty {
            lines += SVGText.wrap("by " + author, width: 44, maxLines: 2).map { .dim($0) }
        }
        lines.append(.plain("Mode: " + Self.modeText(level.mode)))
        lines.append(.plain("Power: " + level.power.rawValue))
        let statusColour = switch state.status {
        case .won: SVGPalette.won
        case .lost: SVGPalette.lost
        case .playing: SVGPalette.playing
        }
        lines.append(.status("Status: " + state.status.rawValue, statusColour))
        lines.append(.plain("Score: \(DecimalText.grouped(state.score)) \u{b7} multiplier \u{d7}\(state.multiplier)"))
        switch level.mode {
        case .classic:
            lines.append(.plain("Balls left: \(state.ballsLeft)"))
        case let .beatTheScore(b):
            let left = state.timeLeft ?? 0
            lines.append(.plain("Target: \(DecimalText.grouped(b.targetScore)) \u{b7} time left "
                + "\(DecimalText.fixed(left, decimals: 1)) of \(DecimalText.number(b.timeLimit, decimals: 1)) s"))
        case let .dodge(d):
            lines.append(.plain("Clean shots: \(state.cleanShots) of \(d.shots) \u{b7} chances \(state.chances)"))
        }
        lines.append(.plain("Orange: \(state.orangeRemaining) of \(state.orangeTotal) left"))
        lines.append(.plain("Shots taken: \(state.shotsTaken) \u{b7} game time \(DecimalText.fixed(state.elapsed, decimals: 1)) s"))
        let bucket = state.bucket
        lines.append(.plain("Bucket: x \(DecimalText.fixed(bucket.x, decimals: 1)), moving \(bucket.direction < 0 ? "left" : "right")"))
        let twoPi = 2 * Trig.pi
        var turn = state.boardAngle.truncatingRemainder(dividingBy: twoPi)
        if turn < 0 { turn += twoPi }
        if turn > 1e-6 && twoPi - turn > 1e-6 {
            lines.append(.status("Board turned \(DecimalText.fixed(turn * 180 / Trig.pi, decimals: 0))\u{b0} (confusement)",
                                 SVGPalette.peg(.confusement).hex))
        }
        if shots.contains(where: { $0.flips > 0 }) {
            lines.append(.dim("Lit pegs are drawn where they were when lit."))
        }
        return lines
    }
}

/// Everything one picture shows, in board units, and the code that writes it.
package struct Scene {
    enum Outline {
        case circle(center: Vec2, radius: Double)
        case polygon([Vec2])

        /// The peg's outline with every point passed through `map` (level frame to board frame).
        init(_ peg: Peg, map: (Vec2) -> Vec2) {
            switch peg.shape {
            case let .circle(r):
                self = .circle(center: map(peg.center), radius: r)
            case let .brick(w, h, rot):
                let rect = ConvexPolygon.rectangle(center: peg.center, width: w, height: h, rotation: rot)
                self = .polygon(rect.vertices.map(map))
            }
        }

        var center: Vec2 {
            switch self {
            case let .circle(c, _): c
            case let .polygon(v): ConvexPolygon(vertices: v).centroid
            }
        }
    }

    struct PegItem {
        /// Index in `level.pegs`.
        var index: Int
        var kind: PegKind
        var outline: Outline
        /// Index of the shot that lit it, if one did.
        var litBy: Int?
        var lit: Bool
    }

    struct BlockItem {
        var vertices: [Vec2]
        var springiness: Double
    }

    /// A line of the panel's information block.
    enum Line {
        case plain(String)
        case dim(String)
        case status(String, String)
        case gap(Double)
    }

    let rules: Rules
    let level: Level
    var pegs: [PegItem] = []
    var blocks: [BlockItem] = []
    var bucketX = 400.0
    var bucketDirection = 1.0
    /// Radians from straight down, positive toward +x.
    var cannonAngle = 0.0
    var shots: [ShotResult] = []
    var heading = ""
    var info: [Line] = []
    /// Pegs of each kind on the board, for the legend.
    var counts = KindCounts()
    /// Drawn from a level, not a game state.
    var isLevelView = false
    /// Rated pegs' rings (the report's heatmap), drawn under the pegs.
    var rings: [PegRing] = []

    init(rules: Rules, level: Level) {
        self.rules = rules
        self.level = level
    }

    // Layout of the side panel, SVG units.
    static let panelGap = 12.0
    static let panelWidth = 320.0
    static let pad = 14.0
    /// Smallest distance between two kept points of a drawn path, board units.
    static let pathStep = 2.0
    package static let clipId = "peggle-board-clip"

    var boardWidth: Double { rules.physics.boardWidth }
    var boardHeight: Double { rules.physics.boardHeight }

    func n(_ v: Double) -> String { DecimalText.number(v) }
    func esc(_ s: String) -> String { SVGText.escape(s) }

    func svg() -> String {
        let panel = panelSVG()
        let width = boardWidth + Self.panelGap + Self.panelWidth
        let height = max(boardHeight, panel.height)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(n(width))\" height=\"\(n(height))\" "
        out += "viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n"
        out += "<title>\(esc(heading))</title>\n"
        out += "<defs><clipPath id=\"\(Self.clipId)\"><rect x=\"0\" y=\"0\" width=\"\(n(boardWidth))\" height=\"\(n(boardHeight))\"/></clipPath></defs>\n"
        out += "<rect class=\"page\" x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"\(SVGPalette.page)\"/>\n"
        out += "<g class=\"board\" clip-path=\"url(#\(Self.clipId))\">\n"
        out += boardBackground()
        out += blocksSVG()
        out += blastsSVG()
        out += ringsSVG()
        out += pegsSVG()
        out += bucketSVG()
        out += trajectoriesSVG()
        out += cannonSVG()
        out += "</g>\n"
        out += "<rect class=\"walls\" x=\"0\" y=\"0\" width=\"\(n(boardWidth))\" height=\"\(n(boardHeight))\" fill=\"none\" "
        out += "stroke=\"\(SVGPalette.wall)\" stroke-width=\"2\"/>\n"
        out += panel.svg
        out += "</svg>\n"
        return out
    }

    // MARK: Board

    func boardBackground() -> String {
        let laneTop = rules.laneTop
        let b = rules.bucket
        var out = "<rect class=\"background\" x=\"0\" y=\"0\" width=\"\(n(boardWidth))\" height=\"\(n(boardHeight))\" fill=\"\(SVGPalette.board)\"/>\n"
        out += "<g class=\"lane\">"
        out += "<rect x=\"0\" y=\"\(n(laneTop))\" width=\"\(n(boardWidth))\" height=\"\(n(max(0, boardHeight - laneTop)))\" fill=\"\(SVGPalette.lane)\"/>"
        out += "<line x1=\"0\" y1=\"\(n(laneTop))\" x2=\"\(n(boardWidth))\" y2=\"\(n(laneTop))\" stroke=\"\(SVGPalette.laneLine)\" stroke-width=\"1\" stroke-dasharray=\"6 4\"/>"
        // The bucket centre's track between its travel limits.
        let trackY = boardHeight - 4
        out += "<polyline points=\"\(n(b.minX)),\(n(trackY - 4)) \(n(b.minX)),\(n(trackY)) \(n(b.maxX)),\(n(trackY)) \(n(b.maxX)),\(n(trackY - 4))\" "
        out += "fill=\"none\" stroke=\"\(SVGPalette.laneLine)\" stroke-width=\"1\"/>"
        out += "</g>\n"
        return out
    }

    func blocksSVG() -> String {
        guard !blocks.isEmpty else { return "" }
        var out = "<g class=\"blocks\" stroke-linejoin=\"round\">\n"
        for block in blocks {
            let s = min(max(block.springiness.isFinite ? block.springiness : 0, 0), 1)
            out += "<polygon class=\"block\(s > 0 ? " springy" : "")\" points=\"\(SVGText.points(block.vertices))\" "
            out += "fill=\"\(SVGPalette.blockFill)\" stroke=\"\(SVGPalette.blockOutline(s))\" stroke-width=\"\(n(1.5 + 2 * s))\""
            if s > 0 { out += " stroke-dasharray=\"7 3\"" }
            out += "/>\n"
        }
        return out + "</g>\n"
    }

    func blastsSVG() -> String {
        let blasts = shots.flatMap { $0.trajectory?.explosions ?? [] }.filter(\.isFinite)
        guard !blasts.isEmpty else { return "" }
        var out = "<g class=\"blasts\" fill=\"\(SVGPalette.blastFill)\" fill-opacity=\"0.16\" stroke=\"\(SVGPalette.blastStroke)\" "
        out += "stroke-width=\"1.5\" stroke-dasharray=\"5 3\">\n"
        for c in blasts {
            out += "<circle class=\"blast\" cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"\(n(rules.kaboomRadius))\"/>\n"
        }
        return out + "</g>\n"
    }

    func ringsSVG() -> String {
        guard !rings.isEmpty else { return "" }
        var out = "<g class=\"peg-rings\" fill=\"none\">\n"
        for ring in rings {
            let colour = SVGPalette.heat(ring.value)
            let attrs = "class=\"peg-ring\" data-peg=\"\(ring.index)\" stroke=\"\(colour)\""
            // Under the pegs, so a ring never hides a neighbour; the title is the hover text.
            let outline = Outline(level.pegs[ring.index]) { $0 }
            switch outline {
            case let .circle(c, r):
                out += "<circle \(attrs) cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"\(n(r + 4.5))\" stroke-width=\"5\">"
            case let .polygon(v):
                out += "<polygon \(attrs) points=\"\(SVGText.points(v))\" stroke-width=\"10\" stroke-linejoin=\"round\">"
            }
            out += "<title>\(esc(ring.title))</title>"
            out += ring.isCircleOf(level) ? "</circle>\n" : "</polygon>\n"
        }
        return out + "</g>\n"
    }

    func pegsSVG() -> String {
        guard !pegs.isEmpty else { return "" }
        var out = "<g class=\"pegs\" stroke=\"\(SVGPalette.pegStroke)\" stroke-width=\"1\">\n"
        // Glow rings first so no ring covers a neighbouring peg.
        for peg in pegs where peg.lit {
            let colour = peg.litBy.map(SVGPalette.shot) ?? "#ffffff"
            switch peg.outline {
            case let .circle(c, r):
                out += "<circle class=\"glow\" cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"\(n(r + 4))\" fill=\"none\" stroke=\"\(colour)\" "
                out += "stroke-width=\"5\" stroke-opacity=\"0.35\"/>"
                out += "<circle class=\"glow\" cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"\(n(r + 2.5))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            case let .polygon(v):
                out += "<polygon class=\"glow\" points=\"\(SVGText.points(v))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"9\" "
                out += "stroke-opacity=\"0.35\" stroke-linejoin=\"round\"/>"
                out += "<polygon class=\"glow\" points=\"\(SVGText.points(v))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"5\" stroke-linejoin=\"round\"/>\n"
            }
        }
        for peg in pegs {
            let fill = peg.lit ? SVGPalette.litPeg(peg.kind).hex : SVGPalette.peg(peg.kind).hex
            var attrs = "class=\"peg \(peg.kind.rawValue)\(peg.lit ? " lit" : "")\" data-peg=\"\(peg.index)\""
            if let k = peg.litBy { attrs += " data-shot=\"\(k + 1)\"" }
            switch peg.outline {
            case let .circle(c, r):
                out += "<circle \(attrs) cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"\(n(r))\" fill=\"\(fill)\"/>\n"
            case let .polygon(v):
                out += "<polygon \(attrs) points=\"\(SVGText.points(v))\" fill=\"\(fill)\"/>\n"
            }
        }
        out += "</g>\n"
        let labelled = pegs.filter { $0.litBy != nil }
        if !labelled.isEmpty {
            out += "<g class=\"lit-labels\" font-size=\"9\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#10131a\">\n"
            for peg in labelled {
                let c = peg.outline.center
                out += "<text class=\"peg-label\" x=\"\(n(c.x))\" y=\"\(n(c.y + 3.2))\">\(peg.litBy! + 1)</text>\n"
            }
            out += "</g>\n"
        }
        return out
    }

    func bucketSVG() -> String {
        let b = rules.bucket
        let r = b.rimRadius
        let bottom = max(boardHeight, b.top + b.depth)
        var out = "<g class=\"bucket\">"
        out += "<rect class=\"bucket-mouth\" x=\"\(n(bucketX - b.width / 2))\" y=\"\(n(b.top))\" width=\"\(n(b.width))\" "
        out += "height=\"\(n(bottom - b.top))\" fill=\"\(SVGPalette.bucket)\" fill-opacity=\"0.18\"/>"
        for side in [-1.0, 1.0] {
            let x = bucketX + side * b.width / 2
            out += "<rect class=\"rim\" x=\"\(n(x - r))\" y=\"\(n(b.top - r))\" width=\"\(n(2 * r))\" height=\"\(n(bottom - b.top + 2 * r))\" "
            out += "rx=\"\(n(r))\" fill=\"\(SVGPalette.bucket)\"/>"
        }
        // Which way it is moving.
        let d = bucketDirection < 0 ? -1.0 : 1.0
        let ay = (b.top + boardHeight) / 2
        let tip = Vec2(bucketX + d * 9, ay), back = bucketX - d * 5
        out += "<polygon class=\"bucket-direction\" points=\"\(n(tip.x)),\(n(tip.y)) \(n(back)),\(n(ay - 5)) \(n(back)),\(n(ay + 5))\" "
        out += "fill=\"\(SVGPalette.bucket)\"/>"
        return out + "</g>\n"
    }

    func cannonSVG() -> String {
        let c = rules.cannon
        let a = cannonAngle.isFinite ? cannonAngle : 0
        let dir = Vec2(Trig.sin(a), Trig.cos(a))
        let length = 34.0
        // `rectangle` turns +y (its height axis) by `rotation`; down turned by -a is (sin a, cos a).
        let barrel = ConvexPolygon.rectangle(center: c + dir * (length / 2), width: 12, height: length, rotation: -a)
        var out = "<g class=\"cannon\" stroke=\"\(SVGPalette.pegStroke)\" stroke-width=\"1.5\">"
        out += "<polygon class=\"barrel\" points=\"\(SVGText.points(barrel.vertices))\" fill=\"\(SVGPalette.cannonBarrel)\"/>"
        out += "<circle cx=\"\(n(c.x))\" cy=\"\(n(c.y))\" r=\"15\" fill=\"\(SVGPalette.cannon)\"/>"
        return out + "</g>\n"
    }

    /// `points` thinned so that consecutive kept points are at least `step` apart; the first and
    /// last points are always kept. Non-finite points are dropped.
    package static func thinned(_ points: [Vec2], step: Double) -> [Vec2] {
        var out: [Vec2] = []
        var lastKept: Vec2?
        var lastSeen: Vec2?
        for p in points where p.isFinite {
            lastSeen = p
            if let k = lastKept, (p - k).length < step { continue }
            out.append(p)
            lastKept = p
        }
        if let end = lastSeen, out.last != end { out.append(end) }
        return out
    }

    /// The point `distance` along `points` (the last point if the path is shorter).
    static func point(along points: [Vec2], distance: Double) -> (point: Vec2, direction: Vec2)? {
        guard let first = points.first else { return nil }
        var walked = 0.0
        var prev = first
        var direction = Vec2(0, 1)
        for p in points.dropFirst() {
            let seg = (p - prev).length
            if seg > 0 { direction = (p - prev) / seg }
            if walked + seg >= distance { return (prev + direction * (distance - walked), direction) }
            walked += seg
            prev = p
        }
        return (prev, direction)
    }

    func trajectoriesSVG() -> String {
        guard shots.contains(where: { $0.trajectory != nil }) else { return "" }
        var out = ""
        var labels = ""
        let ballRadius = rules.physics.ballRadius
        for (k, shot) in shots.enumerated() {
            guard let trajectory = shot.trajectory else { continue }
            let colour = SVGPalette.shot(k)
            out += "<g class=\"shot\" data-shot=\"\(k + 1)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.4\" "
            out += "stroke-linejoin=\"round\" stroke-linecap=\"round\" stroke-opacity=\"0.9\">\n"
            for (p, path) in trajectory.paths.enumerated() {
                let pts = Self.thinned(path.points, step: Self.pathStep)
                out += "<polyline class=\"trajectory\" data-shot=\"\(k + 1)\" data-path=\"\(p + 1)\" points=\"\(SVGText.points(pts))\"/>\n"
                if let end = pts.last, pts.count > 1, end.y <= boardHeight + ballRadius {
                    out += "<circle class=\"ball-end\" cx=\"\(n(end.x))\" cy=\"\(n(end.y))\" r=\"\(n(ballRadius))\" stroke-dasharray=\"3 2\"/>\n"
                }
                // The shot's number a little way along the path, beside the line.
                if let (at, dir) = Self.point(along: pts, distance: p == 0 ? 48 : 14) {
                    let side = Vec2(-dir.y, dir.x) * 9
                    let pos = at + side
                    labels += "<text class=\"shot-label\" x=\"\(n(pos.x))\" y=\"\(n(pos.y + 4))\" fill=\"\(colour)\">\(k + 1)</text>\n"
                }
            }
            out += "</g>\n"
        }
        if !labels.isEmpty {
            out += "<g class=\"shot-labels\" font-size=\"11\" font-weight=\"bold\" text-anchor=\"middle\" "
            out += "stroke=\"\(SVGPalette.board)\" stroke-width=\"3\" paint-order=\"stroke\">\n" + labels + "</g>\n"
        }
        return out
    }

    // MARK: Panel

    struct Panel {
        var svg = ""
        var y: Double
        let x: Double

        mutating func text(_ s: String, size: Double = 12, fill: String = SVGPalette.text, bold: Bool = false,
                           mono: Bool = false, at dx: Double = 0, anchor: String? = nil, advance: Bool = true) {
            if advance { y += size * 1.35 }
            svg += "<text x=\"\(DecimalText.number(x + dx))\" y=\"\(DecimalText.number(y))\" font-size=\"\(DecimalText.number(size))\" fill=\"\(fill)\""
            if bold { svg += " font-weight=\"bold\"" }
            if mono { svg += " font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\"" }
            if let anchor { svg += " text-anchor=\"\(anchor)\"" }
            svg += ">\(SVGText.escape(s))</text>\n"
        }
    }

    func panelSVG() -> (svg: String, height: Double) {
        let x0 = boardWidth + Self.panelGap
        var p = Panel(y: 6, x: x0 + Self.pad)
        let inner = Self.panelWidth - 2 * Self.pad

        for line in SVGText.wrap(heading.isEmpty ? " " : heading, width: 28, maxLines: 3) {
            p.text(line, size: 16, fill: SVGPalette.heading, bold: true)
        }
        p.y += 4
        for line in info {
            switch line {
            case let .plain(s): p.text(s)
            case let .dim(s): p.text(s, size: 11, fill: SVGPalette.dim)
            case let .status(s, colour): p.text(s, fill: colour, bold: true)
            case let .gap(g): p.y += g
            }
        }

        // Legend.
        p.y += 10
        p.text("Legend", size: 13, fill: SVGPalette.heading, bold: true)
        p.y += 2
        for kind in PegKind.allCases {
            p.y += 16
            let cy = p.y - 4
            p.svg += "<circle class=\"swatch\" cx=\"\(n(p.x + 8))\" cy=\"\(n(cy))\" r=\"6.5\" fill=\"\(SVGPalette.peg(kind).hex)\" stroke=\"\(SVGPalette.pegStroke)\"/>\n"
            p.text("\(kind.rawValue) (\(rules.points(for: kind)) pts)", at: 22, advance: false)
            p.text("\(counts[kind])", fill: SVGPalette.dim, at: inner, anchor: "end", advance: false)
        }
        p.y += 2
        p.text(isLevelView ? "pegs in the level" : "pegs on the board now", size: 10, fill: SVGPalette.dim, at: inner, anchor: "end")
        if !shots.isEmpty {
            p.y += 20
            let cy = p.y - 4
            let colour = SVGPalette.shot(0)
            p.svg += "<circle class=\"swatch\" cx=\"\(n(p.x + 8))\" cy=\"\(n(cy))\" r=\"10\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>"
            p.svg += "<circle class=\"swatch\" cx=\"\(n(p.x + 8))\" cy=\"\(n(cy))\" r=\"7.5\" fill=\"\(SVGPalette.litPeg(.orange).hex)\" stroke=\"\(SVGPalette.pegStroke)\"/>"
            p.svg += "<text x=\"\(n(p.x + 8))\" y=\"\(n(cy + 3.2))\" font-size=\"9\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#10131a\">1</text>\n"
            p.text("lit peg: ring and number = shot", at: 22, advance: false)
            p.y += 2
        }
        do {
            p.y += 18
            let cy = p.y - 4
            p.svg += "<rect class=\"swatch\" x=\"\(n(p.x + 1))\" y=\"\(n(cy - 6))\" width=\"16\" height=\"12\" fill=\"\(SVGPalette.blockFill)\" "
            p.svg += "stroke=\"\(SVGPalette.blockOutline(0))\" stroke-width=\"1.5\"/>\n"
            p.text("block", at: 22, advance: false)
            p.y += 18
            let cy2 = p.y - 4
            p.svg += "<rect class=\"swatch\" x=\"\(n(p.x + 1))\" y=\"\(n(cy2 - 6))\" width=\"16\" height=\"12\" fill=\"\(SVGPalette.blockFill)\" "
            p.svg += "stroke=\"\(SVGPalette.blockOutline(1))\" stroke-width=\"3\" stroke-dasharray=\"7 3\"/>\n"
            p.text("springy block (brighter = springier)", at: 22, advance: false)
        }
        do {
            p.y += 18
            let cy = p.y - 4
            p.svg += "<rect class=\"swatch\" x=\"\(n(p.x + 1))\" y=\"\(n(cy - 6))\" width=\"4\" height=\"12\" rx=\"2\" fill=\"\(SVGPalette.bucket)\"/>"
            p.svg += "<rect class=\"swatch\" x=\"\(n(p.x + 13))\" y=\"\(n(cy - 6))\" width=\"4\" height=\"12\" rx=\"2\" fill=\"\(SVGPalette.bucket)\"/>\n"
            p.text("bucket (arrow: direction) in its lane", at: 22, advance: false)
        }
        if level.power == .kaboom || shots.contains(where: { !($0.trajectory?.explosions.isEmpty ?? true) }) {
            p.y += 18
            let cy = p.y - 4
            p.svg += "<circle class=\"swatch\" cx=\"\(n(p.x + 8))\" cy=\"\(n(cy))\" r=\"7\" fill=\"\(SVGPalette.blastFill)\" fill-opacity=\"0.16\" "
            p.svg += "stroke=\"\(SVGPalette.blastStroke)\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"/>\n"
            p.text("kaboom blast (radius \(n(rules.kaboomRadius)))", at: 22, advance: false)
        }
        if !shots.isEmpty {
            p.y += 18
            let cy = p.y - 4
            let w = min(Double(SVGPalette.shots.count), 4)
            for k in 0..<Int(w) {
                let x = p.x + Double(k) * 4.5
                p.svg += "<line x1=\"\(n(x))\" y1=\"\(n(cy + 5))\" x2=\"\(n(x + 3))\" y2=\"\(n(cy - 5))\" stroke=\"\(SVGPalette.shot(k))\" stroke-width=\"1.6\"/>"
            }
            p.svg += "\n"
            p.text("ball path, one colour per shot", at: 22, advance: false)
        }

        // Shots.
        if !shots.isEmpty {
            p.y += 14
            p.text("Shots (\(shots.count))", size: 13, fill: SVGPalette.heading, bold: true)
            // Right edges of the columns, from the panel's inner left edge.
            let columns: [(String, Double)] = [("#", 16), ("angle", 68), ("pegs", 104), ("orange", 152),
                                               ("points", 208), ("free", 244), ("caught", inner)]
            p.y += 15
            for (name, right) in columns {
                p.text(name, size: 10.5, fill: SVGPalette.dim, mono: true, at: right, anchor: "end", advance: false)
            }
            for (k, shot) in shots.enumerated() {
                p.y += 14
                let values = ["\(k + 1)", DecimalText.fixed(shot.angle, decimals: 3, plusSign: true), "\(shot.hits.total)",
                              "\(shot.hits.orange)", DecimalText.grouped(shot.points), "\(shot.freeBalls)", "\(shot.caught)"]
                for (c, value) in values.enumerated() {
                    p.text(value, size: 10.5, fill: c == 0 ? SVGPalette.shot(k) : SVGPalette.text, bold: c == 0, mono: true,
                           at: columns[c].1, anchor: "end", advance: false)
                }
                var notes: [String] = []
                if shot.powers > 0 { notes.append("power \u{d7}\(shot.powers)") }
                if shot.flips > 0 { notes.append("flip \u{d7}\(shot.flips)") }
                if shot.stuckRemovals > 0 { notes.append("\(shot.stuckRemovals) stuck pegs removed") }
                if shot.stuckBalls > 0 { notes.append("\(shot.stuckBalls) stuck balls removed") }
                if shot.timedOut { notes.append("timed out") }
                if !notes.isEmpty {
                    for line in SVGText.wrap(notes.joined(separator: " \u{b7} "), width: 44, maxLines: 3) {
                        p.y += 12
                        p.text(line, size: 9.5, fill: SVGPalette.dim, at: 22, advance: false)
                    }
                }
            }
            p.y += 14
            p.text("angle: radians from straight down, + toward +x", size: 9.5, fill: SVGPalette.dim, advance: false)
        }

        let height = max(boardHeight, (p.y + 16).rounded(.up))
        let background = "<rect class=\"panel\" x=\"\(n(x0))\" y=\"0\" width=\"\(n(Self.panelWidth))\" height=\"\(n(height))\" "
            + "fill=\"\(SVGPalette.panel)\" stroke=\"\(SVGPalette.panelBorder)\"/>\n"
        return ("<g class=\"info\">\n" + background + p.svg + "</g>\n", height)
    }
}

/// A ring around one peg of a level picture: the report's heatmap.
public struct PegRing: Sendable, Equatable {
    /// Index in `level.pegs`.
    public var index: Int
    /// Where the colour lies on `SVGPalette.heat`'s scale, 0...1.
    public var value: Double
    /// The hover text.
    public var title: String

    public init(index: Int, value: Double, title: String) {
        self.index = index
        self.value = value
        self.title = title
    }

    func isCircleOf(_ level: Level) -> Bool {
        if case .circle = level.pegs[index].shape { return true }
        return false
    }
}
