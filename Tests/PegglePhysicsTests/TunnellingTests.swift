import PegglePhysics
import Testing

/// Continuous collision: nothing passes through anything, at any speed.
@Suite("No tunnelling")
struct TunnellingTests {
    static let speeds: [Double] = [600, 5000, 20000, 100_000]

    /// A 6-unit-thick plank turned 0.4 rad, hit across its face at many speeds, angles and places.
    /// With no gravity and no walls the ball must come back: it never reaches the far side of the
    /// plank's centre line, never overlaps it at a step's end, and touches it exactly once. (The
    /// aims keep the contact on the long face: |offset| + 13 tan(incidence) < 100.)
    @Test(arguments: speeds)
    func thinRotatedPlankStopsFastBalls(speed: Double) {
        let centre = Vec2(400, 300), rot = 0.4
        let plank = ConvexPolygon.rectangle(center: centre, width: 200, height: 6, rotation: rot)
        let n = Vec2(0, -1).rotated(by: rot), u = Vec2(1, 0).rotated(by: rot)
        var cfg = weightless(walls: false)
        cfg.exitY = .infinity
        let world = PhysicsWorld(config: cfg, obstacles: [Obstacle(shape: .polygon(plank))])
        let checker = OverlapChecker(store: world.store)
        for side in [1.0, -1.0] {
            for offset in stride(from: -60.0, through: 60, by: 15) {
                for incidence in stride(from: -1.2, through: 1.2, by: 0.3) {
                    var w = world
                    let dir = (-n * side).rotated(by: incidence)
                    let target = centre + u * offset
                    let start = target - dir * 150
                    w.spawnBall(position: start, velocity: dir * speed)
                    var hits = 0
                    for _ in 0..<40 {
                        w.step()
                        hits += w.contacts.filter { $0.kind == .obstacle }.count
                        let p = w.balls[0].position
                        #expect((p - centre).dot(n) * side > 0, "ball crossed the plank: speed \(speed) side \(side) offset \(offset) incidence \(incidence)")
                        #expect(checker.deepest(p, store: w.store).depth <= 1e-6)
                    }
                    #expect(hits == 1, "speed \(speed) offset \(offset) incidence \(incidence): \(hits) contacts")
                    #expect(w.balls[0].velocity.dot(n) * side > 0)
                }
            }
        }
    }

    /// A small peg (radius 6, narrower than a step's travel at these speeds) hit dead centre sends the
    /// ball straight back; hit off centre it deflects the ball away from its side.
    @Test(arguments: speeds)
    func smallPegStopsFastBalls(speed: Double) throws {
        let peg = Vec2(400, 300)
        var cfg = weightless(walls: false)
        cfg.exitY = .infinity
        let world = PhysicsWorld(config: cfg, obstacles: [Obstacle(shape: .circle(center: peg, radius: 6))])
        for k in 0..<16 {
            let dir = Vec2(1, 0).rotated(by: Double(k) * Trig.pi / 8)
            for impact in [0.0, 5, -10, 15.5] {
                var w = world
                w.spawnBall(position: peg - dir * 200 + dir.perpendicular * impact, velocity: dir * speed)
                var hits: [Contact] = []
                for _ in 0..<60 {
                    w.step()
                    hits += w.contacts.filter { $0.kind == .obstacle }
                    #expect((w.balls[0].position - peg).length >= 16 - 1e-6)
                }
                #expect(hits.count == 1, "speed \(speed) direction \(k) impact \(impact)")
                let c = try #require(hits.first)
                #expect(abs((c.point - peg).length - 16) < 1e-5)
                #expect(w.balls[0].velocity.dot(c.normal) > 0)
                if impact == 0 {
                    #expect(w.balls[0].velocity.dot(dir) < -0.79 * speed)
                }
            }
        }
    }

    /// Walls hold at any speed: a ball bouncing between the side walls and the top never leaves.
    @Test(arguments: speeds)
    func wallsStopFastBalls(speed: Double) {
        let cfg = weightless()
        var w = PhysicsWorld(config: cfg, obstacles: [])
        w.spawnBall(position: Vec2(400, 300), velocity: Vec2(-0.95, -0.31).normalized * speed)
        var wallHits = 0
        for _ in 0..<240 {
            w.step()
            wallHits += w.contacts.filter { $0.kind == .wall }.count
            guard let p = w.balls.first?.position else { break }
            #expect(p.x >= 10 - 1e-6 && p.x <= 790 + 1e-6 && p.y >= 10 - 1e-6, "speed \(speed): ball at \(p)")
        }
        #expect(wallHits >= 2)
    }

    /// Property: hundreds of seeded random shots (some with a second ball) through dense random
    /// fields of pegs and blocks. After every step no ball overlaps an enabled obstacle by more
    /// than 1e-6 (the contact slop); pegs are switched off between shots as a game would.
    @Test(arguments: 0..<6)
    func randomFieldsNeverOverlap(fieldSeed: Int) {
        var rng = SplitMix64(seed: 0xF1E1D + UInt64(fieldSeed))
        let obstacles = randomField(&rng, count: 70)
        let cfg = PhysicsConfig()
        var w = PhysicsWorld(config: cfg, obstacles: obstacles)
        let checker = OverlapChecker(store: w.store)
        var worst = 0.0, steps = 0, contacts = 0
        for shot in 0..<40 {
            let a = rng.uniform(-1.45, 1.45), speed = rng.uniform(300, 1500)
            w.spawnBall(position: Vec2(400, 20), velocity: Vec2(Trig.sin(a), Trig.cos(a)) * speed)
            if shot % 3 == 0 {
                let b = a + rng.uniform(-0.3, 0.3)
                w.spawnBall(position: Vec2(rng.uniform(100, 700), 40), velocity: Vec2(Trig.sin(b), Trig.cos(b)) * speed)
            }
            var n = 0
            while w.activeBallCount > 0 && n < 900 {
                w.step()
                n += 1
                contacts += w.contacts.count
                for b in w.balls {
                    let d = checker.deepest(b.position, store: w.store)
                    if d.depth > worst { worst = d.depth }
                    #expect(d.depth <= 1e-6, "field \(fieldSeed) shot \(shot) step \(n): ball \(b.id) at \(b.position) overlaps obstacle \(d.id) by \(d.depth)")
                }
            }
            steps += n
            w.removeAllBalls()
            if shot % 4 == 3 { w.store.disable(Int(rng.next() % UInt64(obstacles.count))) }
        }
        #expect(contacts > 500, "the shots should actually hit things (\(contacts) contacts in \(steps) steps)")
    }
}

/// A dense random field: pegs (radius 6 to 20) and blocks (rectangles and triangles, any rotation,
/// some springy), kept from overlapping one another by their bounding circles.
func randomField(_ rng: inout SplitMix64, count: Int) -> [Obstacle] {
    var out: [Obstacle] = []
    var discs: [(Vec2, Double)] = []
    var tries = 0
    while out.count < count && tries < 20_000 {
        tries += 1
        let c = Vec2(rng.uniform(20, 780), rng.uniform(90, 560))
        let kind = rng.next() % 4
        let o: Obstacle, reach: Double
        switch kind {
        case 0, 1:
            let r = rng.uniform(6, 20)
            o = Obstacle(shape: .circle(center: c, radius: r))
            reach = r
        case 2:
            let wd = rng.uniform(20, 90), ht = rng.uniform(6, 30)
            o = Obstacle(shape: .polygon(.rectangle(center: c, width: wd, height: ht, rotation: rng.uniform(-3.2, 3.2))),
                         restitution: rng.next() % 5 == 0 ? 1.3 : 0.8)
            reach = 0.5 * (wd * wd + ht * ht).squareRoot()
        default:
            let wd = rng.uniform(20, 70), ht = rng.uniform(15, 60)
            o = Obstacle(shape: .polygon(.triangle(center: c, width: wd, height: ht, rotation: rng.uniform(-3.2, 3.2))))
            reach = 0.5 * (wd * wd + ht * ht).squareRoot()
        }
        if discs.contains(where: { ($0.0 - c).length < $0.1 + reach + 1 }) { continue }
        discs.append((c, reach))
        out.append(o)
    }
    return out
}
