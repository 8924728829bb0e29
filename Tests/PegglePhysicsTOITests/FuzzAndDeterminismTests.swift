import PegglePhysics
import PegglePhysicsTOI
import PeggleUtilities
import Testing

@Suite("Fuzzed shots and determinism")
struct FuzzAndDeterminismTests {
    let config = PhysicsConfig()

    /// A staggered grid of pegs like the benchmark scene's: 10 rows of 12, radius 8.
    static func grid() -> [Obstacle] {
        var out: [Obstacle] = []
        for row in 0..<10 {
            for col in 0..<12 {
                let x = 70 + Double(col) * 60 + (row % 2 == 0 ? 0 : 30)
                out.append(Obstacle(shape: .circle(center: Vec2(x, 120 + Double(row) * 40), radius: 8)))
            }
        }
        return out
    }

    /// Uniform in [lo, hi).
    static func uniform(_ rng: inout SeededGenerator, _ lo: Double, _ hi: Double) -> Double {
        lo + (hi - lo) * Double(rng.next() >> 11) * 0x1p-53
    }

    /// Random pegs, boards (some 1 unit thin), triangles and bare segments, overlapping freely.
    static func randomScene(_ rng: inout SeededGenerator) -> [Obstacle] {
        var out: [Obstacle] = []
        for _ in 0..<40 {
            let c = Vec2(uniform(&rng, 40, 760), uniform(&rng, 80, 560))
            let e = uniform(&rng, 0, 1.2)
            let rot = uniform(&rng, -3.2, 3.2)
            switch rng.next() % 4 {
            case 0: out.append(Obstacle(shape: .circle(center: c, radius: uniform(&rng, 6, 30)), restitution: e))
            case 1: out.append(Obstacle(shape: .polygon(.rectangle(center: c, width: uniform(&rng, 10, 140), height: uniform(&rng, 1, 30),
                                                                   rotation: rot)), restitution: e))
            case 2: out.append(Obstacle(shape: .polygon(.triangle(center: c, width: uniform(&rng, 10, 80), height: uniform(&rng, 10, 80),
                                                                  rotation: rot)), restitution: e))
            default:
                let d = Vec2(Trig.cos(rot), Trig.sin(rot)) * uniform(&rng, 10, 100)
                out.append(Obstacle(shape: .polygon(ConvexPolygon(vertices: [c - d, c + d])), restitution: e))
            }
        }
        return out
    }

    /// How far the centre at `p` is inside the nearest obstacle grown by the ball's radius
    /// (positive: overlapping).
    static func penetration(_ p: Vec2, _ obstacles: [Obstacle], ballRadius: Double) -> Double {
        var worst = -Double.infinity
        for o in obstacles { worst = max(worst, ballRadius - distance(from: p, to: o.shape)) }
        return worst
    }

    func penetration(_ p: Vec2, _ obstacles: [Obstacle]) -> Double { Self.penetration(p, obstacles, ballRadius: config.ballRadius) }

    /// `ObstacleStore.distance`, but a segment (a two-vertex polygon) is the distance to the
    /// segment: the store's test for "inside" orients a segment's normals by its centroid, which
    /// lies on the segment, and may call a whole half-plane inside.
    static func distance(from p: Vec2, to shape: Shape) -> Double {
        if case let .polygon(poly) = shape, poly.vertices.count == 2 {
            let a = poly.vertices[0], ab = poly.vertices[1] - a
            let t = min(max((p - a).dot(ab) / ab.lengthSquared, 0), 1)
            return (p - (a + ab * t)).length
        }
        return ObstacleStore.distance(from: p, to: shape)
    }

    @Test("3,000 fuzzed shots: finite, outside every obstacle, time advancing, events bounded per second")
    func fuzz() throws {
        var rng = SeededGenerator(seed: 51)
        var shots = 0, ends: [FlightEnd: Int] = [:]
        var inside = 0, insideExample = ""
        for _ in 0..<30 {
            let obstacles = Self.randomScene(&rng)
            var sim = FlightSimulator(obstacles: obstacles, config: config)
            sim.recordsEvents = true
            for _ in 0..<100 {
                // A start clear of everything, a speed up to three times the launch speed.
                var p = Vec2.zero
                repeat {
                    p = Vec2(Self.uniform(&rng, 11, 789), Self.uniform(&rng, 11, 560))
                } while penetration(p, obstacles) > -1
                let angle = Self.uniform(&rng, -3.2, 3.2)
                let v = Vec2(Trig.cos(angle), Trig.sin(angle)) * Self.uniform(&rng, 0, 1800)
                let o = sim.run(position: p, velocity: v, timeLimit: 4)
                shots += 1
                ends[o.end, default: 0] += 1
                #expect(o.end != .nonFinite)
                #expect(o.position.isFinite && o.velocity.isFinite && o.time.isFinite)
                #expect(o.time <= 4 && o.time >= 0)
                // The contact slop (1e-6) is the most a separation may leave inside another obstacle.
                if penetration(o.position, obstacles) >= 1e-6 { inside += 1; insideExample = "ended inside: \(o)" }
                var last = 0.0
                for e in sim.events {
                    #expect(e.time >= last, "time went back: \(e)")
                    last = e.time
                    #expect(e.point.isFinite && e.velocityAfter.isFinite)
                    if penetration(e.point, obstacles) >= 1e-6 { inside += 1; insideExample = "an event inside: \(e)" }
                }
                // v1's budget: maxEventsPerSubstep events per timeStep, plus the parking.
                let steps = (o.time / config.timeStep).rounded(.down) + 1
                #expect(Double(o.events) <= Double(config.maxEventsPerSubstep + 1) * steps)
                #expect(o.events == sim.events.count)
            }
        }
        #expect(shots == 3000)
        #expect(inside == 0, "\(inside) positions inside an obstacle, e.g. \(insideExample)")
        // The fuzz exercises every way a flight ends but the non-finite one.
        #expect(ends[.fellOut, default: 0] > 100 && ends[.timeLimit, default: 0] > 10 && ends[.atRest, default: 0] > 10, "\(ends)")
    }

    struct Trace: Equatable {
        var bits: [UInt64]
        init(_ o: FlightOutcome, _ events: [FlightEvent]) {
            bits = [o.position.x.bitPattern, o.position.y.bitPattern, o.velocity.x.bitPattern, o.velocity.y.bitPattern,
                    o.time.bitPattern, UInt64(o.events), UInt64(o.end.rawValue)]
            for e in events { bits += [e.time.bitPattern, e.point.x.bitPattern, e.point.y.bitPattern, UInt64(bitPattern: Int64(e.other))] }
        }
    }

    static func shot(_ sim: inout FlightSimulator, _ i: Int, of n: Int) -> Trace {
        let a = -1.3 + 2.6 * Double(i) / Double(n - 1)
        let o = sim.run(position: Vec2(400, 20), velocity: Vec2(Trig.sin(a), Trig.cos(a)) * 600, timeLimit: 30)
        return Trace(o, sim.events)
    }

    @Test("the same shots give the same trajectories bit for bit, in order or on four threads")
    func determinism() {
        let scene = TOIScene(obstacles: Self.grid(), config: config)
        let n = 240
        var sim = FlightSimulator(scene: scene)
        sim.recordsEvents = true
        let first = (0..<n).map { Self.shot(&sim, $0, of: n) }
        let again = (0..<n).map { Self.shot(&sim, $0, of: n) }
        #expect(first == again)
        let parallel = Parallel.map(n, threads: 4, chunksPerThread: 8) { i in
            var own = FlightSimulator(scene: scene)
            own.recordsEvents = true
            return Self.shot(&own, i, of: n)
        }
        #expect(parallel == first)
        // Backwards, so each simulator's scratch has seen other shots first.
        let backwards = (0..<n).reversed().map { Self.shot(&sim, $0, of: n) }
        #expect(Array(backwards.reversed()) == first)
        // The grid is hit: this is not a test of empty flights.
        #expect(first.filter { $0.bits[5] > 3 }.count > n / 2)
    }
}
