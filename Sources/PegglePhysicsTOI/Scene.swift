import PegglePhysics

/// The static obstacles as the ball's centre sees them, and the broad phase over them.
///
/// As in v1's `ObstacleStore`, every shape is grown by the ball's radius (the Minkowski sum), so
/// the ball is its centre point: a circle obstacle is a circle of radius r + ballRadius; a convex
/// polygon (a segment is one with two vertices) is its sides moved out by the ball's radius
/// (`ConvexPolygon.edges`' outward normals) and a circle of the ball's radius at each vertex.
/// The primitives sit in a uniform grid of `PhysicsConfig.gridCellSize` cells, each filed under
/// every cell its contact region touches; a query returns every primitive filed under a cell that
/// a box touches. Queries clamp to the grid as filing does, so a box off the grid still finds
/// what is filed at its border.
public struct TOIScene: Sendable {
    /// A circle primitive: centre, combined radius (obstacle + ball), owning obstacle.
    public struct Circle: Sendable, Equatable {
        public var center: Vec2
        public var radius: Double
        public var owner: Int32
    }

    /// A side moved out by the ball's radius: the centre touches it where `p . normal == offset`
    /// with `t0 <= p . along <= t1`.
    public struct Edge: Sendable, Equatable {
        public var normal: Vec2
        public var offset: Double
        public var along: Vec2
        public var t0: Double, t1: Double
        public var owner: Int32
    }

    public let config: PhysicsConfig
    public let obstacles: [Obstacle]
    public let circles: [Circle]
    public let edges: [Edge]
    let cols: Int, rows: Int, invCell: Double
    /// Primitives of each cell (CSR): `cellCircles[cellCircleStart[k]..<cellCircleStart[k + 1]]`.
    let cellCircleStart: [Int32], cellCircles: [Int32]
    let cellEdgeStart: [Int32], cellEdges: [Int32]

    public init(obstacles: [Obstacle], config: PhysicsConfig) {
        self.config = config
        self.obstacles = obstacles
        let ballR = config.ballRadius
        var circles: [Circle] = [], edges: [Edge] = []
        for (i, o) in obstacles.enumerated() {
            switch o.shape {
            case let .circle(c, r):
                circles.append(Circle(center: c, radius: r + ballR, owner: Int32(i)))
            case let .polygon(poly):
                for v in poly.vertices { circles.append(Circle(center: v, radius: ballR, owner: Int32(i))) }
                for e in Self.sides(of: poly) {
                    let u = Vec2(-e.normal.y, e.normal.x)
                    let (s0, s1) = (e.a.dot(u), e.b.dot(u))
                    edges.append(Edge(normal: e.normal, offset: e.a.dot(e.normal) + ballR, along: u,
                                      t0: Swift.min(s0, s1), t1: Swift.max(s0, s1), owner: Int32(i)))
                }
            }
        }
        self.circles = circles
        self.edges = edges
        invCell = 1 / config.gridCellSize
        cols = Swift.max(1, Int((config.boardWidth * invCell).rounded(.up)))
        rows = Swift.max(1, Int((config.boardHeight * invCell).rounded(.up)))

        var circleCells = Array(repeating: [Int32](), count: cols * rows)
        var edgeCells = circleCells
        func file(_ lo: Vec2, _ hi: Vec2, _ k: Int32, into cells: inout [[Int32]], cols: Int, rows: Int, inv: Double) {
            let r = Self.cellRange(lo, hi, cols: cols, rows: rows, inv: inv)
            for y in r.y0...r.y1 { for x in r.x0...r.x1 { cells[y * cols + x].append(k) } }
        }
        for (k, c) in circles.enumerated() {
            file(c.center - Vec2(c.radius, c.radius), c.center + Vec2(c.radius, c.radius), Int32(k), into: &circleCells,
                 cols: cols, rows: rows, inv: invCell)
        }
        for (k, e) in edges.enumerated() {
            // The contact points lie on the moved-out side, between its two ends.
            let a = e.along * e.t0 + e.normal * e.offset, b = e.along * e.t1 + e.normal * e.offset
            file(pointwiseMin(a, b), pointwiseMax(a, b), Int32(k), into: &edgeCells, cols: cols, rows: rows, inv: invCell)
        }
        func csr(_ cells: [[Int32]]) -> ([Int32], [Int32]) {
            var start: [Int32] = [0], flat: [Int32] = []
            for c in cells { flat += c; start.append(Int32(flat.count)) }
            return (start, flat)
        }
        (cellCircleStart, cellCircles) = csr(circleCells)
        (cellEdgeStart, cellEdges) = csr(edgeCells)
    }

    /// A polygon's sides with outward normals. A segment (two vertices) is two sides facing
    /// opposite ways: `ConvexPolygon.edges` orients a normal by the centroid, which for a segment
    /// lies on the side's own line, so rounding may point both of its normals the same way and
    /// leave one face of the segment open (v1's store builds its segments that way; v2 does not).
    static func sides(of poly: ConvexPolygon) -> [(a: Vec2, b: Vec2, normal: Vec2)] {
        guard poly.vertices.count == 2 else { return poly.edges }
        let (a, b) = (poly.vertices[0], poly.vertices[1])
        let n = Vec2(b.y - a.y, a.x - b.x).normalized
        return [(a, b, n), (b, a, -n)]
    }

    /// Cells a box touches, clamped to the grid, widened by 1e-9 units for rounding.
    @inline(__always)
    static func cellRange(_ lo: Vec2, _ hi: Vec2, cols: Int, rows: Int, inv: Double) -> (x0: Int, x1: Int, y0: Int, y1: Int) {
        func clamp(_ v: Double, _ n: Int) -> Int {
            let c = (v * inv).rounded(.down)
            // NaN and infinities land in a border cell too.
            guard c.isFinite else { return v > 0 ? n - 1 : 0 }
            return Int(Swift.min(Swift.max(c, 0), Double(n - 1)))
        }
        return (clamp(lo.x - 1e-9, cols), clamp(hi.x + 1e-9, cols), clamp(lo.y - 1e-9, rows), clamp(hi.y + 1e-9, rows))
    }

    /// Calls `circle(k)` and `edge(k)` for the primitives filed under the cells the box touches;
    /// a primitive filed under several of them is passed once per cell (callers deduplicate).
    @inline(__always)
    func forEachCandidate(in lo: Vec2, _ hi: Vec2, circle: (Int) -> Void, edge: (Int) -> Void) {
        let r = Self.cellRange(lo, hi, cols: cols, rows: rows, inv: invCell)
        for y in r.y0...r.y1 {
            for x in r.x0...r.x1 {
                let cell = y * cols + x
                for j in Int(cellCircleStart[cell])..<Int(cellCircleStart[cell + 1]) { circle(Int(cellCircles[j])) }
                for j in Int(cellEdgeStart[cell])..<Int(cellEdgeStart[cell + 1]) { edge(Int(cellEdges[j])) }
            }
        }
    }
}
