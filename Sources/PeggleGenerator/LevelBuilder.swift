import PeggleLevel
import PegglePhysics

/// Places the objects of a generated level one at a time, keeping only those that are valid
/// where they are: on the board with a margin, above the bucket's lane, clear of the cannon, low
/// enough for a confusement flip, and not overlapping anything placed before. Every candidate is
/// looked at once (a single pass, no retries), so the work is bounded by the number of
/// candidates, and the result passes `Level.validate` by construction. Coordinates are rounded
/// before they are checked (positions to 0.1, angles to 0.001 rad), so what is checked is
/// exactly what the level file says.
struct LevelBuilder {
    let rules: Rules
    /// Most objects the level may hold.
    let capacity: Int
    private(set) var pegs: [Peg] = []
    private(set) var blocks: [Block] = []
    /// Shapes of the placed objects in the order they were placed, each with where it is.
    private(set) var placed: [Placed] = []
    /// Uniform grid of `cell`-unit cells over the board; each holds indices into `placed`.
    private var grid: [[Int]]

    /// A placed object: its shape and where it is in `pegs` or `blocks`.
    struct Placed {
        var shape: Shape
        var object: LevelObject
    }

    static let cell = 64.0
    static let columns = 13, rows = 10
    /// Smallest gap between two objects when one is round, board units (touching is valid, but
    /// a sliver of a gap reads better and leaves rounding nothing to decide).
    static let gap = 1.0
    /// Extra room kept from the board's edges and the lane, board units.
    static let edgeMargin = 4.0
    /// Distance kept from the cannon, board units (the rules ask for 50).
    static let cannonMargin = 60.0
    /// Highest top edge: a confusement flip turns the board about its centre, so every object
    /// stays at least (height - laneTop) from the top in every generated level.
    var topLimit: Double { rules.physics.boardHeight - rules.laneTop }

    init(rules: Rules, capacity: Int) {
        self.rules = rules
        self.capacity = capacity
        grid = Array(repeating: [], count: Self.columns * Self.rows)
    }

    var count: Int { pegs.count + blocks.count }
    var isFull: Bool { count >= capacity }

    static func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
    static func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

    /// Adds a round peg if it fits. Returns whether it was placed.
    @discardableResult
    mutating func peg(_ at: Vec2, radius: Double) -> Bool {
        let c = Vec2(Self.round1(at.x), Self.round1(at.y)), r = Self.round1(radius)
        let shape = Shape.circle(center: c, radius: r)
        guard !isFull, fits(shape) else { return false }
        insert(Placed(shape: shape, object: .peg(pegs.count)))
        pegs.append(Peg(id: 0, kind: .blue, center: c, shape: .circle(radius: r)))
        return true
    }

    /// Adds a brick peg (`rotation` radians) if it fits.
    @discardableResult
    mutating func brick(_ at: Vec2, width: Double, height: Double, rotation: Double) -> Bool {
        let c = Vec2(Self.round1(at.x), Self.round1(at.y))
        let w = Self.round1(width), h = Self.round1(height), rot = Self.round3(Self.normalised(rotation))
        let shape = Shape.polygon(.rectangle(center: c, width: w, height: h, rotation: rot))
        guard !isFull, fits(shape) else { return false }
        insert(Placed(shape: shape, object: .peg(pegs.count)))
        pegs.append(Peg(id: 0, kind: .blue, center: c, shape: .brick(width: w, height: h, rotation: rot)))
        return true
    }

    /// Adds a block if it fits.
    @discardableResult
    mutating func block(_ shape: BlockShape, _ at: Vec2, width: Double, height: Double, rotation: Double = 0,
                        springiness: Double = 0) -> Bool {
        let c = Vec2(Self.round1(at.x), Self.round1(at.y))
        let w = Self.round1(width), h = Self.round1(height), rot = Self.round3(Self.normalised(rotation))
        let spring = (springiness * 100).rounded() / 100
        let b = Block(id: 0, shape: shape, center: c, width: w, height: h, rotation: rot, springiness: spring)
        let s = Shape.polygon(b.polygon)
        guard !isFull, fits(s) else { return false }
        insert(Placed(shape: s, object: .block(blocks.count)))
        blocks.append(b)
        return true
    }

    /// Angle in (-pi, pi], so rotations stay small numbers in the file.
    static func normalised(_ a: Double) -> Double {
        var x = a
        while x > Trig.pi { x -= 2 * Trig.pi }
        while x <= -Trig.pi { x += 2 * Trig.pi }
        return x
    }

    /// Whether `shape` is inside the playable area and clear of everything placed.
    func fits(_ shape: Shape) -> Bool {
        let (lo, hi) = shape.bounds
        let w = rules.physics.boardWidth
        guard lo.x >= Self.edgeMargin, hi.x <= w - Self.edgeMargin,
              lo.y >= topLimit + Self.edgeMargin, hi.y <= rules.laneTop - Self.edgeMargin else { return false }
        guard ObstacleStore.distance(from: rules.cannon, to: shape) >= Self.cannonMargin else { return false }
        var clear = true
        visitCells(lo - Self.gap, hi + Self.gap) { k in
            for i in grid[k] where clear && Self.overlaps(placed[i].shape, shape) { clear = false }
        }
        return clear
    }

    /// Overlap with the builder's gap for round shapes, and the validator's own test for two polygons.
    static func overlaps(_ a: Shape, _ b: Shape) -> Bool {
        switch (a, b) {
        case let (.circle(c1, r1), .circle(c2, r2)):
            return (c1 - c2).length < r1 + r2 + gap
        case let (.circle(c, r), .polygon(p)), let (.polygon(p), .circle(c, r)):
            return ObstacleStore.distance(from: c, to: .polygon(p)) < r + gap
        case (.polygon, .polygon):
            return Geometry.overlap(a, b)
        }
    }

    func visitCells(_ lo: Vec2, _ hi: Vec2, _ body: (Int) -> Void) {
        let x0 = max(0, Int((lo.x / Self.cell).rounded(.down))), x1 = min(Self.columns - 1, Int((hi.x / Self.cell).rounded(.down)))
        let y0 = max(0, Int((lo.y / Self.cell).rounded(.down))), y1 = min(Self.rows - 1, Int((hi.y / Self.cell).rounded(.down)))
        guard x0 <= x1, y0 <= y1 else { return }
        for gy in y0...y1 { for gx in x0...x1 { body(gy * Self.columns + gx) } }
    }

    private mutating func insert(_ p: Placed) {
        let (lo, hi) = p.shape.bounds
        let index = placed.count
        placed.append(p)
        var cells: [Int] = []
        visitCells(lo, hi) { cells.append($0) }
        for k in cells { grid[k].append(index) }
    }

    /// Removes the pegs for which `drop` is true (the blocks stay), keeping the others' order.
    mutating func removePegs(where drop: (Peg) -> Bool) { rebuild(pegs: pegs.filter { !drop($0) }, blocks: blocks) }

    /// Removes the blocks for which `drop` is true.
    mutating func removeBlocks(where drop: (Block) -> Bool) { rebuild(pegs: pegs, blocks: blocks.filter { !drop($0) }) }

    /// Starts again from these objects (blocks first, as they were placed), so the grid holds
    /// exactly what is kept.
    private mutating func rebuild(pegs keptPegs: [Peg], blocks keptBlocks: [Block]) {
        self = LevelBuilder(rules: rules, capacity: capacity)
        for b in keptBlocks {
            insert(Placed(shape: .polygon(b.polygon), object: .block(blocks.count)))
            blocks.append(b)
        }
        for p in keptPegs {
            insert(Placed(shape: p.physicsShape, object: .peg(pegs.count)))
            pegs.append(p)
        }
    }

    mutating func setKind(_ kind: PegKind, ofPeg i: Int) { pegs[i].kind = kind }

    // MARK: Free flight

    /// Where a ball shot at `angle` (radians from straight down) flies if it touches nothing:
    /// its centre every `dt` seconds until it falls into the lane, bouncing off the side walls
    /// with the rules' restitution (the game's physics lands on the same parabola).
    func flightPath(angle: Double, dt: Double = 1.0 / 120) -> [Vec2] {
        let g = rules.physics.gravity
        let r = rules.physics.ballRadius
        let w = rules.physics.boardWidth
        var p = rules.cannon
        var v = Vec2(Trig.sin(angle), Trig.cos(angle)) * rules.launchSpeed
        var out: [Vec2] = [p]
        // A ball falls to the lane within a few seconds: 600 steps bound the loop.
        for _ in 0..<600 {
            p += v * dt + g * (0.5 * dt * dt)
            v += g * dt
            let e = rules.physics.wallRestitution
            if p.x < r { p.x = 2 * r - p.x; v.x = -v.x * e }
            if p.x > w - r { p.x = 2 * (w - r) - p.x; v.x = -v.x * e }
            out.append(p)
            if p.y > rules.laneTop { break }
        }
        return out
    }

    /// The first placed object a ball shot at each of `angles` (radians from straight down) would
    /// touch in free flight, if any (the lowest index when several are touched in the same step).
    /// The flight is walked, not built, over flat copies of the grid and of the round shapes:
    /// this is the generator's inner loop, and it runs in debug builds too (the tests generate
    /// 20,000 levels).
    func firstHits(angles: [Double]) -> [Int?] {
        let cell = Self.cell, columns = Self.columns, rows = Self.rows
        let r = rules.physics.ballRadius
        // The grid as one list (cell k's objects are items[starts[k]..<starts[k + 1]]).
        var starts = [0], items: [Int] = []
        for list in grid { items += list; starts.append(items.count) }
        // Round shapes as centre and squared reach (radius + ball radius); polygons flagged.
        var cx = [Double](repeating: 0, count: placed.count), cy = cx, reach2 = cx
        var polygon = [Bool](repeating: false, count: placed.count)
        for (i, p) in placed.enumerated() {
            switch p.shape {
            case let .circle(c, radius): cx[i] = c.x; cy[i] = c.y; reach2[i] = (radius + r) * (radius + r)
            case .polygon: polygon[i] = true
            }
        }
        let gx = rules.physics.gravity.x, gy = rules.physics.gravity.y
        let w = rules.physics.boardWidth, lane = rules.laneTop
        let e = rules.physics.wallRestitution, dt = 1.0 / 60, half = 0.5 * dt * dt
        return angles.map { angle -> Int? in
            var x = rules.cannon.x, y = rules.cannon.y
            var vx = Trig.sin(angle) * rules.launchSpeed, vy = Trig.cos(angle) * rules.launchSpeed
            for _ in 0..<600 {
                x += vx * dt + gx * half
                y += vy * dt + gy * half
                vx += gx * dt
                vy += gy * dt
                if x < r { x = 2 * r - x; vx = -vx * e }
                if x > w - r { x = 2 * (w - r) - x; vx = -vx * e }
                if y > lane { return nil }
                let x0 = max(0, Int(((x - r) / cell).rounded(.down))), x1 = min(columns - 1, Int(((x + r) / cell).rounded(.down)))
                let y0 = max(0, Int(((y - r) / cell).rounded(.down))), y1 = min(rows - 1, Int(((y + r) / cell).rounded(.down)))
                guard x0 <= x1, y0 <= y1 else { continue }
                var best = Int.max
                for row in y0...y1 {
                    for k in (row * columns + x0)...(row * columns + x1) {
                        for j in starts[k]..<starts[k + 1] {
                            let i = items[j]
                            guard i < best else { continue }
                            if polygon[i] {
                                if ObstacleStore.distance(from: Vec2(x, y), to: placed[i].shape) < r { best = i }
                            } else {
                                let dx = x - cx[i], dy = y - cy[i]
                                if dx * dx + dy * dy < reach2[i] { best = i }
                            }
                        }
                    }
                }
                if best != Int.max { return best }
            }
            return nil
        }
    }
}
