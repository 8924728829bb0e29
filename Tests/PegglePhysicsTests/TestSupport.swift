import PegglePhysics
import PeggleTestSupport

// Shared helpers for the physics tests: a seeded generator, scene builders, the energy
// measure, a hash of trajectories, and a scalar brute-force sweep to check the SIMD store.

/// SplitMix64: a tiny seeded generator, so every "random" test is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(next() >> 11) * 0x1p-53
    }
}

extension FNV1a {
    mutating func add(_ v: Vec2) { add(v.x); add(v.y) }
}

/// Default configuration with gravity switched off (ball-ball and kinematic tests).
func weightless(walls: Bool = true) -> PhysicsConfig {
    var c = PhysicsConfig()
    c.gravity = Vec2(0, 0)
    c.leftWall = walls
    c.rightWall = walls
    c.topWall = walls
    return c
}

/// The half of gravity's impulse applied after the drift of a step (kick-drift-kick).
/// The true velocity of `w.balls[ball]` just after contact `c` of the latest step: the step's end
/// velocity less the gravity gained since the contact (valid when `c` was the ball's last event).
func velocityJustAfter(_ c: Contact, in w: PhysicsWorld, ball: Int = 0) -> Vec2 {
    w.balls[ball].velocity - w.config.gravity * (w.time - c.time)
}

/// Mechanical energy per unit mass of the balls in play: 0.5 |v|^2 - g . p.
func mechanicalEnergy(_ w: PhysicsWorld) -> Double {
    var e = 0.0
    for b in w.balls { e += 0.5 * b.velocity.lengthSquared - w.config.gravity.dot(b.position) }
    return e
}

/// Steps until `done` holds or `maxSteps` have run; returns every contact seen and the steps run.
@discardableResult
func run(_ w: inout PhysicsWorld, maxSteps: Int, until done: (PhysicsWorld) -> Bool = { $0.activeBallCount == 0 })
    -> (contacts: [Contact], steps: Int) {
    var all: [Contact] = []
    var n = 0
    while n < maxSteps && !done(w) {
        w.step()
        all += w.contacts
        n += 1
    }
    return (all, n)
}

/// The staggered peg grid of `Levels/bench-grid.json`, the scene of `peggle-bench physics` and of the
/// pymunk and Box2D comparison (docs/lab/2026-11-22-physics-against-pymunk-and-box2d.md):
/// 10 rows of radius-12 pegs 40 apart from y = 150, 60 apart in x from 60 (odd rows shifted 30),
/// keeping x < 770. 120 pegs.
func gridPegs() -> [Obstacle] {
    var out: [Obstacle] = []
    for r in 0..<10 {
        for c in 0..<12 {
            let x = 60.0 + (r % 2 == 1 ? 30 : 0) + 60.0 * Double(c)
            if x < 770 { out.append(Obstacle(shape: .circle(center: Vec2(x, 150 + 40 * Double(r)), radius: 12))) }
        }
    }
    return out
}

/// Launch velocity of the benchmark's shot `i` of `n`: angles evenly over [-1.3, 1.3] from straight down.
func benchVelocity(shot i: Int, of n: Int) -> Vec2 {
    let a = -1.3 + 2.6 * Double(i) / Double(n - 1)
    return Vec2(600 * Trig.sin(a), 600 * Trig.cos(a))
}

/// Outward normals of a polygon's sides, as the shape reports them.
func sideNormals(_ p: ConvexPolygon) -> [Vec2] { p.edges.map(\.normal) }

/// `a` and `b` agree component-wise within `tol`.
func close(_ a: Vec2, _ b: Vec2, _ tol: Double) -> Bool { abs(a.x - b.x) <= tol && abs(a.y - b.y) <= tol }

// MARK: Overlap checks

/// Obstacles prepared for fast overlap checks: shape plus a bounding box for a cheap reject.
struct OverlapChecker {
    let shapes: [Shape]
    let lo: [Vec2], hi: [Vec2]
    let ballRadius: Double

    init(store: ObstacleStore) {
        shapes = store.obstacles.map(\.shape)
        lo = shapes.map { $0.bounds.min }
        hi = shapes.map { $0.bounds.max }
        ballRadius = store.ballRadius
    }

    /// Deepest penetration (positive) of a ball at `p` into any enabled obstacle of `store`, and
    /// which one; (0, -1) when it touches nothing. Uses `ObstacleStore.distance(from:to:)`.
    func deepest(_ p: Vec2, store: ObstacleStore) -> (depth: Double, id: Int) {
        var worst = (depth: 0.0, id: -1)
        let m = ballRadius + 1
        for i in shapes.indices where store.isEnabled(i) {
            if p.x < lo[i].x - m || p.x > hi[i].x + m || p.y < lo[i].y - m || p.y > hi[i].y + m { continue }
            let depth = ballRadius - ObstacleStore.distance(from: p, to: shapes[i])
            if depth > worst.depth { worst = (depth, i) }
        }
        return worst
    }
}

// MARK: Brute-force narrow phase

/// The earliest contact of a ball (radius `ballRadius`) whose centre moves from `p` by `d`,
/// found by testing every primitive of every enabled obstacle one by one with the scalar
/// `Sweep` functions: a circle's radius grows by the ball radius; a polygon becomes one circle of
/// the ball radius per vertex and one edge per side, moved out by the ball radius.
/// Returns every obstacle's earliest fraction below `limit` (so ties can be judged) and the minimum.
func bruteForceSweep(_ obstacles: [Obstacle], enabled: (Int) -> Bool, ballRadius r: Double,
                     from p: Vec2, by d: Vec2, limit: Double) -> (s: Double, owner: Int, perObstacle: [Int: Double]) {
    var per: [Int: Double] = [:]
    func note(_ id: Int, _ s: Double?) {
        guard let s, s < limit else { return }
        per[id] = min(per[id] ?? .infinity, s)
    }
    for (id, o) in obstacles.enumerated() where enabled(id) {
        switch o.shape {
        case let .circle(c, rad):
            note(id, Sweep.circle(from: p, by: d, center: c, radius: rad + r))
        case let .polygon(poly):
            for v in poly.vertices { note(id, Sweep.circle(from: p, by: d, center: v, radius: r)) }
            for e in poly.edges {
                let len = (e.b - e.a).length
                let u = (e.b - e.a) / len
                let t0 = e.a.dot(u)
                note(id, Sweep.edge(from: p, by: d, normal: e.normal, offset: e.a.dot(e.normal) + r, ballRadius: r,
                                    along: u, t0: t0, t1: t0 + len))
            }
        }
    }
    var best = (s: limit, owner: -1)
    for (id, s) in per.sorted(by: { $0.key < $1.key }) where s < best.s { best = (s, id) }
    return (best.s, best.owner, per)
}
