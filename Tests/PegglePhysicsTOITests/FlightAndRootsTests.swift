import PegglePhysics
import PegglePhysicsTOI
import Testing

@Suite("Closed-form flight and earliest roots")
struct FlightAndRootsTests {
    let g = PhysicsConfig().gravity

    @Test("free flight: apex and exit crossing against the closed form")
    func freeFlight() {
        // Launched at (400, 300) with (100, -300) under g = (0, 500), no obstacles.
        // Apex: t = 300 / 500 = 0.6 s; y = 300 - 300 * 0.6 + 250 * 0.36 = 210; x = 400 + 60 = 460.
        let f = Flight(origin: Vec2(400, 300), velocity: Vec2(100, -300), acceleration: g)
        let apex = f.apexTime!
        #expect(abs(apex - 0.6) < 1e-15)
        #expect(abs(f.position(at: apex).y - 210) < 1e-12)
        #expect(abs(f.position(at: apex).x - 460) < 1e-12)
        #expect(abs(f.velocity(at: apex).y) < 1e-12)

        // Exit line y = 620: 300 - 300 t + 250 t^2 = 620, so 250 t^2 - 300 t - 320 = 0 and
        // t = (300 + sqrt(300^2 + 4 * 250 * 320)) / 500 = (300 + sqrt(410000)) / 500 = 1.88062484748657 s,
        // x = 400 + 100 t = 588.062484748657.
        var sim = FlightSimulator(obstacles: [], config: PhysicsConfig())
        let o = sim.run(position: Vec2(400, 300), velocity: Vec2(100, -300), timeLimit: 30)
        let t = (300 + 410_000.0.squareRoot()) / 500
        #expect(o.end == .fellOut)
        #expect(o.events == 0)
        #expect(abs(o.time - t) < 1e-12)
        #expect(abs(o.time - 1.88062484748657) < 1e-13)
        #expect(abs(o.position.x - (400 + 100 * t)) < 1e-9)
        #expect(abs(o.position.y - 620) < 1e-9)
    }

    @Test("v1's kick-drift-kick step ends lie on the parabola in free flight (to rounding)")
    func v1StepEndsOnTheParabola() {
        let config = PhysicsConfig()
        var world = PhysicsWorld(config: config, obstacles: [])
        let f = Flight(origin: Vec2(400, 300), velocity: Vec2(100, -300), acceleration: config.gravity)
        world.spawnBall(position: f.origin, velocity: f.velocity)
        var n = 0, worst = 0.0
        while world.activeBallCount > 0 {
            world.step()
            n += 1
            guard world.activeBallCount > 0 else { break }
            worst = max(worst, (world.ball(at: 0).position - f.position(at: Double(n) * config.timeStep)).length)
            #expect((world.ball(at: 0).velocity - f.velocity(at: Double(n) * config.timeStep)).length < 1e-9)
        }
        // 1.8806 s is 225.7 steps: v1 leaves after step 226, the first end below y = 620.
        #expect(n == 226)
        #expect(worst < 1e-9, "v1 drifted \(worst) units from the parabola")
    }

    @Test("earliest root of a quartic with four roots, from several starts")
    func quarticRoots() throws {
        // (t - 1)(t - 2)(t - 3)(t - 4) = t^4 - 10 t^3 + 35 t^2 - 50 t + 24: positive before 1,
        // negative on (1, 2), positive on (2, 3), negative on (3, 4).
        let p = Polynomial(24, -50, 35, -10, 1)
        let r0 = try #require(Roots.earliestEntry(p, from: 0, to: 5))
        #expect(r0 < 1 && r0 > 1 - 2 * Roots.timeTolerance && p(r0) > 0)
        // From 1.5 the gap is negative and growing (p'(1.5) = 13.5 - 67.5 + 105 - 50 = 1): the
        // next entry is at 3.
        let r1 = try #require(Roots.earliestEntry(p, from: 1.5, to: 5))
        #expect(r1 < 3 && r1 > 3 - 2 * Roots.timeTolerance && p(r1) > 0)
        // Before the first root, nothing.
        #expect(Roots.earliestEntry(p, from: 0, to: 0.999) == nil)
        // Already inside and closing (p(1.2) < 0, p'(1.2) = 6.912 - 43.2 + 84 - 50 < 0): at once.
        #expect(Roots.earliestEntry(p, from: 1.2, to: 5) == 1.2)
    }

    @Test("a shallow dip is found where sampling would skip it; a near miss is not a hit")
    func shallowDip() throws {
        // (t - 1)^2 - 1e-8 dips below zero only on (1 - 1e-4, 1 + 1e-4).
        let dip = Polynomial(1 - 1e-8, -2, 1)
        let r = try #require(Roots.earliestEntry(dip, from: 0, to: 2))
        #expect(abs(r - (1 - 1e-4)) < 1e-11)
        // (t - 1)^2 + 1e-8 never reaches zero.
        #expect(Roots.earliestEntry(Polynomial(1 + 1e-8, -2, 1), from: 0, to: 2) == nil)
    }

    @Test("the squared-gap polynomial is |p(t) - c|^2 - R^2")
    func squaredGap() {
        let f = Flight(origin: Vec2(100, 100), velocity: Vec2(300, -40), acceleration: g)
        let c = Vec2(220, 140)
        let p = f.squaredGap(to: c, radius: 15)
        for t in stride(from: 0.0, through: 1.0, by: 0.125) {
            let direct = (f.position(at: t) - c).lengthSquared - 225
            #expect(abs(p(t) - direct) < 1e-9 * max(1, abs(direct)))
        }
    }
}
