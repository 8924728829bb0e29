import PegglePhysics
import Testing

/// The SIMD grid narrow phase (`ObstacleStore.sweep`) against a scalar brute force over every
/// primitive of every obstacle (`bruteForceSweep`, built from the shapes with `Sweep.circle` and
/// `Sweep.edge`). Same earliest fraction within 1e-9, and the same obstacle (or, on an exact tie,
/// an obstacle the brute force also finds at that fraction).
@Suite("Narrow phase vs brute force")
struct NarrowPhaseTests {
    static let config = PhysicsConfig()
    /// Grid cell edges: the grid starts at -(2 * ballRadius + 16) = -36 and cells are 40 wide.
    static let cellEdges: [Double] = (0...22).map { -36 + 40 * Double($0) }

    static func compare(_ store: ObstacleStore, from p: Vec2, by d: Vec2, limit: Double = 1,
                        sourceLocation: SourceLocation = #_sourceLocation) -> StoreHit {
        let hit = store.sweep(from: p, by: d, limit: limit)
        let brute = bruteForceSweep(store.obstacles, enabled: store.isEnabled, ballRadius: store.ballRadius,
                                    from: p, by: d, limit: limit)
        let what = "sweep from \(p) by \(d) limit \(limit): store s=\(hit.s) owner \(hit.owner); brute s=\(brute.s) owner \(brute.owner)"
        #expect(abs(hit.s - brute.s) <= 1e-9, "\(what)", sourceLocation: sourceLocation)
        if brute.owner < 0 {
            #expect(hit.owner == -1, "\(what)", sourceLocation: sourceLocation)
        } else {
            let tie = brute.perObstacle[Int(hit.owner)].map { abs($0 - brute.s) <= 1e-9 } ?? false
            #expect(Int(hit.owner) == brute.owner || tie, "\(what)", sourceLocation: sourceLocation)
        }
        return hit
    }

    /// Random fields (pegs, rectangles and triangles at any rotation, some disabled) and random
    /// sweeps of every length, from a step's worth to across the board.
    @Test(arguments: 0..<8)
    func randomSweepsMatchBruteForce(seed: Int) {
        var rng = SplitMix64(seed: 0xBEEF_0000 + UInt64(seed))
        var obstacles: [Obstacle] = []
        for _ in 0..<60 {
            let c = Vec2(rng.uniform(-20, 820), rng.uniform(-20, 620))
            switch rng.next() % 3 {
            case 0: obstacles.append(Obstacle(shape: .circle(center: c, radius: rng.uniform(3, 30))))
            case 1: obstacles.append(Obstacle(shape: .polygon(.rectangle(center: c, width: rng.uniform(4, 120),
                                                                         height: rng.uniform(4, 40), rotation: rng.uniform(-4, 4)))))
            default: obstacles.append(Obstacle(shape: .polygon(.triangle(center: c, width: rng.uniform(10, 80),
                                                                         height: rng.uniform(10, 80), rotation: rng.uniform(-4, 4)))))
            }
        }
        var store = ObstacleStore(obstacles: obstacles, config: Self.config)
        for _ in 0..<6 { store.disable(Int(rng.next() % 60)) }
        var hits = 0
        for k in 0..<1500 {
            let p = Vec2(rng.uniform(-60, 860), rng.uniform(-60, 660))
            let len = [2.0, 10, 40, 150, 600][k % 5]
            let d = Vec2(1, 0).rotated(by: rng.uniform(-4, 4)) * rng.uniform(0, len)
            let limit = k % 7 == 0 ? rng.uniform(0.1, 1) : 1
            if Self.compare(store, from: p, by: d, limit: limit).owner >= 0 { hits += 1 }
        }
        #expect(hits > 150, "the sweeps should hit often enough to mean something (\(hits))")
    }

    /// Obstacles straddling grid-cell edges and corners, swept by segments that start, end or run
    /// along cell edges, and whose contact points lie on them.
    @Test func gridCellBoundaries() {
        let e = Self.cellEdges
        var obstacles: [Obstacle] = [
            Obstacle(shape: .circle(center: Vec2(e[5], e[5]), radius: 12)),        // on a cell corner
            Obstacle(shape: .circle(center: Vec2(e[8] - 22, 200), radius: 12)),    // contact circle ends on an edge
            Obstacle(shape: .circle(center: Vec2(e[12] + 0.5, e[9] - 0.5), radius: 6)),
        ]
        obstacles.append(Obstacle(shape: .polygon(.rectangle(center: Vec2(e[14], e[7]), width: 80, height: 40, rotation: 0))))
        obstacles.append(Obstacle(shape: .polygon(.rectangle(center: Vec2(e[17] + 3, e[11]), width: 70, height: 9, rotation: 0.7))))
        obstacles.append(Obstacle(shape: .polygon(.triangle(center: Vec2(e[3], e[12]), width: 40, height: 40, rotation: 0))))
        // A square whose sides lie exactly on cell edges.
        obstacles.append(Obstacle(shape: .polygon(ConvexPolygon(vertices: [Vec2(e[10], e[13]), Vec2(e[11], e[13]),
                                                                            Vec2(e[11], e[14]), Vec2(e[10], e[14])]))))
        let store = ObstacleStore(obstacles: obstacles, config: Self.config)
        var hits = 0
        var rng = SplitMix64(seed: 7)
        for o in obstacles {
            let (lo, hi) = o.shape.bounds
            let mid = (lo + hi) / 2
            // Straight at the middle from eight directions, starting on cell edges near it.
            for k in 0..<8 {
                let dir = Vec2(1, 0).rotated(by: Double(k) * Trig.pi / 4)
                let near = mid - dir * 60
                let snapped = Vec2(e.min { abs($0 - near.x) < abs($1 - near.x) }!, e.min { abs($0 - near.y) < abs($1 - near.y) }!)
                for start in [near, snapped, Vec2(snapped.x, near.y), Vec2(near.x, snapped.y)] {
                    if Self.compare(store, from: start, by: mid - start).owner >= 0 { hits += 1 }
                    if Self.compare(store, from: start, by: (mid - start) * 0.5).owner >= 0 { hits += 1 }
                }
            }
            // Segments along cell edges, and ones ending exactly on them.
            for _ in 0..<60 {
                let x = e[Int(rng.next() % UInt64(e.count))], y = e[Int(rng.next() % UInt64(e.count))]
                let p = Vec2(x, rng.uniform(lo.y - 40, hi.y + 40))
                _ = Self.compare(store, from: p, by: Vec2(0, rng.uniform(-80, 80)))
                let q = Vec2(rng.uniform(lo.x - 40, hi.x + 40), y)
                _ = Self.compare(store, from: q, by: Vec2(rng.uniform(-80, 80), 0))
                let r = Vec2(rng.uniform(lo.x - 40, hi.x + 40), rng.uniform(lo.y - 40, hi.y + 40))
                _ = Self.compare(store, from: r, by: Vec2(x, y) - r)
            }
        }
        #expect(hits >= 40)
    }

    /// Segments that start touching an obstacle (exactly at contact distance, or slightly inside the
    /// contact region) and move inward hit at s = 0; moving outward or along the surface they do not.
    @Test func segmentsStartingInContact() throws {
        let peg = Vec2(300, 300)
        let rect = ConvexPolygon.rectangle(center: Vec2(500, 300), width: 80, height: 30, rotation: 0.3)
        let store = ObstacleStore(obstacles: [Obstacle(shape: .circle(center: peg, radius: 12)),
                                              Obstacle(shape: .polygon(rect))], config: Self.config)
        for k in 0..<24 {
            let n = Vec2(1, 0).rotated(by: Double(k) * Trig.pi / 12)
            for depth in [0.0, 1e-9, 0.5, 3] {
                let p = peg + n * (22 - depth)
                let inward = Self.compare(store, from: p, by: -n * 5 + n.perpendicular * 2)
                #expect(inward.owner == 0 && inward.s <= 1e-9)
                let outward = Self.compare(store, from: p, by: n * 5 + n.perpendicular * 2)
                #expect(outward.owner == -1)
            }
        }
        for side in rect.edges {
            let mid = (side.a + side.b) / 2
            for depth in [0.0, 1e-9, 0.5, 3, 9.5] {
                let p = mid + side.normal * (10 - depth)
                let u = (side.b - side.a).normalized
                let inward = Self.compare(store, from: p, by: -side.normal * 4 + u * 3)
                #expect(inward.owner == 1 && inward.s <= 1e-9)
                let outward = Self.compare(store, from: p, by: side.normal * 4 + u * 3)
                #expect(outward.owner == -1)
                // Sliding along the face (a resting contact's drift) does not stop the ball.
                let along = store.sweep(from: mid + side.normal * (10 + 1e-6), by: u * 5, limit: 1)
                #expect(along.owner == -1)
            }
            // At a vertex, exactly one ball radius away and moving toward it.
            let out = (side.normal + (side.a - rect.centroid).normalized).normalized
            let p = side.a + out * 10
            let hit = Self.compare(store, from: p, by: -out * 3)
            #expect(hit.owner == 1 && hit.s <= 1e-9)
        }
    }

    /// The limit is respected: a hit at fraction 0.5 is reported under limit 0.6 but not under 0.4.
    @Test func limitCutsOffLaterHits() {
        let store = ObstacleStore(obstacles: [Obstacle(shape: .circle(center: Vec2(400, 300), radius: 12))], config: Self.config)
        let p = Vec2(400, 300 - 22 - 50), d = Vec2(0, 100)
        let a = store.sweep(from: p, by: d, limit: 0.6)
        #expect(a.owner == 0 && abs(a.s - 0.5) < 1e-12)
        #expect(!a.isEdge && a.p == 400 && a.q == 300 && abs(a.r - 22) < 1e-12)
        let b = store.sweep(from: p, by: d, limit: 0.4)
        #expect(b.owner == -1 && b.s == 0.4)
        #expect(store.sweep(from: p, by: .zero, limit: 1).owner == -1)
    }
}
