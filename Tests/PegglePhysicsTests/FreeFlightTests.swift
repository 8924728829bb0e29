import PegglePhysics
import Testing

/// The free-flight bound: conservative against the exact shapes, and a world that uses it
/// steps exactly as one that does not (same balls, same contacts, bit for bit).
@Suite("Free flight")
struct FreeFlightTests {
    /// A random board: round pegs of every allowed radius, rectangles and triangles.
    static func scene(seed: UInt64) -> [Obstacle] {
        var rng = SplitMix64(seed: seed)
        var obstacles: [Obstacle] = []
        for _ in 0..<Int(rng.uniform(20, 120)) {
            let c = Vec2(rng.uniform(20, 780), rng.uniform(80, 590))
            if rng.uniform(0, 1) < 0.8 {
                obstacles.append(Obstacle(shape: .circle(center: c, radius: rng.uniform(6, 30))))
            } else {
                let w = rng.uniform(8, 120), h = rng.uniform(8, 40), rot = rng.uniform(-3.2, 3.2)
                let poly = rng.uniform(0, 1) < 0.5
                    ? ConvexPolygon.rectangle(center: c, width: w, height: h, rotation: rot)
                    : ConvexPolygon.triangle(center: c, width: w, height: h, rotation: rot)
                obstacles.append(Obstacle(shape: .polygon(poly), restitution: rng.uniform(0.5, 1.3)))
            }
        }
        return obstacles
    }

    @Test("the bound never exceeds the true distance to any obstacle, less the ball radius")
    func boundIsConservative() {
        let config = PhysicsConfig()
        var positive = 0
        for seed in UInt64(1)...20 {
            let obstacles = Self.scene(seed: seed)
            let store = ObstacleStore(obstacles: obstacles, config: config)
            var rng = SplitMix64(seed: seed &* 77)
            for _ in 0..<2000 {
                let p = Vec2(rng.uniform(-30, 830), rng.uniform(-30, 660))
                let bound = store.freeFlightBound(at: p)
                var nearest = Double.infinity
                for o in obstacles { nearest = min(nearest, ObstacleStore.distance(from: p, to: o.shape)) }
                #expect(bound <= nearest - config.ballRadius || bound == 0,
                        "seed \(seed) at \(p): bound \(bound), clearance \(nearest - config.ballRadius)")
                if bound > 0 { positive += 1 }
            }
        }
        // Most of a board is open: the bound must say so, or it saves nothing.
        #expect(positive > 20 * 2000 / 2)
    }

    @Test("a bound off the grid, or at a non-finite point, is 0 (the sweep runs)")
    func offGrid() {
        let store = ObstacleStore(obstacles: [], config: PhysicsConfig())
        #expect(store.freeFlightBound(at: Vec2(400, 300)) > 10)
        #expect(store.freeFlightBound(at: Vec2(-100, 300)) == 0)
        #expect(store.freeFlightBound(at: Vec2(400, 900)) == 0)
        #expect(store.freeFlightBound(at: Vec2(.nan, 300)) == 0)
        #expect(store.freeFlightBound(at: Vec2(400, .infinity)) == 0)
    }

    /// Plays `shots` random launches in two worlds, one in `mode` and one with the bound off,
    /// comparing every ball and contact after every step. Returns the `mode` world's tally.
    static func playBoth(seed: UInt64, shots: Int, mode: FreeFlight, turning: Bool, balls: Int,
                         bucket: Bool) -> (tally: FreeFlightTally, steps: Int, differences: Int) {
        var rng = SplitMix64(seed: seed)
        var fast = PhysicsWorld(config: PhysicsConfig(), obstacles: scene(seed: seed),
                                bucket: bucket ? KinematicBucket() : nil)
        fast.freeFlight = mode
        var slow = fast
        slow.freeFlight = .off
        var steps = 0, differences = 0
        for _ in 0..<shots {
            fast.removeAllBalls()
            slow.removeAllBalls()
            for _ in 0..<balls {
                let a = rng.uniform(-1.5, 1.5), speed = rng.uniform(100, 900)
                let p = Vec2(rng.uniform(20, 780), rng.uniform(15, 60)), v = Vec2(Trig.sin(a), Trig.cos(a)) * speed
                fast.spawnBall(position: p, velocity: v)
                slow.spawnBall(position: p, velocity: v)
            }
            if turning && rng.uniform(0, 1) < 0.5 {
                let rate = rng.uniform(1, 6)
                fast.startTurn(by: Trig.pi, rate: rate)
                slow.startTurn(by: Trig.pi, rate: rate)
            }
            var n = 0
            while fast.activeBallCount > 0 && n < 3600 {
                fast.step()
                slow.step()
                n += 1
                if Array(fast.balls) != Array(slow.balls) || fast.contacts != slow.contacts
                    || fast.frame != slow.frame || fast.bucket != slow.bucket {
                    differences += 1
                    break
                }
            }
            steps += n
        }
        return (fast.freeFlightTally, steps, differences)
    }

    @Test("with the bound on, every step of many random shots is the step without it", arguments: [
        (turning: false, balls: 1, bucket: false), (turning: false, balls: 1, bucket: true),
        (turning: true, balls: 1, bucket: true), (turning: true, balls: 3, bucket: true),
    ])
    func sameSteps(_ c: (turning: Bool, balls: Int, bucket: Bool)) {
        var steps = 0
        for seed in UInt64(1)...6 {
            let r = Self.playBoth(seed: seed, shots: 25, mode: .on, turning: c.turning, balls: c.balls, bucket: c.bucket)
            #expect(r.differences == 0, "seed \(seed)")
            steps += r.steps
        }
        #expect(steps > 10000)
    }

    @Test("the checker finds no contact in any sweep the bound skipped, and the bound skips most")
    func checkerFindsNothing() {
        var tally = FreeFlightTally(), steps = 0
        for seed in UInt64(11)...22 {
            let r = Self.playBoth(seed: seed, shots: 20, mode: .checked, turning: seed % 2 == 0,
                                  balls: seed % 3 == 0 ? 2 : 1, bucket: true)
            #expect(r.differences == 0, "seed \(seed)")
            tally.skipped += r.tally.skipped
            tally.misses += r.tally.misses
            steps += r.steps
        }
        #expect(tally.misses == 0)
        #expect(tally.skipped > steps / 3, "skipped \(tally.skipped) of about \(steps) sweeps")
    }

    @Test("the checker counts a contact the bound should have seen (it can fail)")
    func checkerCanFail() {
        // A world whose store is swapped for one with an obstacle the bound was not built with
        // is the one way to fool the bound; the checker must notice.
        let config = PhysicsConfig()
        var w = PhysicsWorld(config: config, obstacles: [])
        w.freeFlight = .checked
        let empty = w.store
        w.store = ObstacleStore(obstacles: [Obstacle(shape: .circle(center: Vec2(400, 300), radius: 12))], config: config)
        w.store.replaceFreeFlightBoundForTesting(with: empty)
        w.spawnBall(position: Vec2(400, 200), velocity: Vec2(0, 300))
        for _ in 0..<120 where w.activeBallCount > 0 { w.step() }
        #expect(w.freeFlightTally.misses > 0)
    }
}
