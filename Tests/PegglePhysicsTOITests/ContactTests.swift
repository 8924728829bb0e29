import PegglePhysics
import PegglePhysicsTOI
import Testing

@Suite("Contacts at the time of impact")
struct ContactTests {
    let config = PhysicsConfig()
    var g: Vec2 { config.gravity }

    /// Kinetic plus potential energy per unit mass (y grows downward, so the potential is -g . p).
    func energy(_ p: Vec2, _ v: Vec2) -> Double { 0.5 * v.lengthSquared - g.dot(p) }

    @Test("restitution 1 on a flat top: the bounce keeps the speed and the ball climbs back to its start")
    func energyAtRestitutionOne() throws {
        // A 200 x 40 block centred at (400, 420): its top is y = 400, so the centre touches at
        // y = 390 after falling 290 units from rest: speed sqrt(2 * 500 * 290) = sqrt(290000) = 538.516...
        let block = Obstacle(shape: .polygon(.rectangle(center: Vec2(400, 420), width: 200, height: 40, rotation: 0)), restitution: 1)
        var sim = FlightSimulator(obstacles: [block], config: config)
        sim.recordsEvents = true
        let o = sim.run(position: Vec2(400.5, 100), velocity: .zero, timeLimit: 4)
        #expect(o.end == .timeLimit)
        let hits = sim.events.filter { $0.kind == .obstacle }
        // The fall takes sqrt(2 * 290 / 500) = 1.077 s, each return 2.154 s: hits at 1.077 and
        // 3.231 s, the next at 5.385 s.
        #expect(hits.count == 2)
        guard hits.count == 2 else { return }
        #expect(abs(hits[0].time - (580.0 / 500).squareRoot()) < 1e-9)
        let first = try #require(hits.first)
        let speed = 290_000.0.squareRoot()
        #expect(abs(first.impactSpeed - speed) < 1e-6)
        #expect(abs(first.point.y - (390 - config.contactSlop)) < 1e-9)
        #expect(abs(first.velocityAfter.y + speed) < 1e-6)
        #expect(abs(energy(first.point, first.velocityAfter) - energy(Vec2(400.5, 100), .zero)) < 1e-3,
                "the separation moves the ball at most contactSlop = 1e-6 units: 5e-4 of energy")
        let up = Flight(origin: first.point, velocity: first.velocityAfter, acceleration: g)
        #expect(abs(up.position(at: up.apexTime!).y - 100) < 1e-5)
        #expect(abs(hits[1].impactSpeed - speed) < 1e-5)
    }

    @Test("restitution 1 on a peg, oblique: speed kept; at 0.8 the normal part is scaled by exactly 0.8")
    func obliqueBounce() throws {
        for e in [1.0, 0.8] {
            let peg = Obstacle(shape: .circle(center: Vec2(410, 300), radius: 12), restitution: e)
            var sim = FlightSimulator(obstacles: [peg], config: config)
            sim.recordsEvents = true
            _ = sim.run(position: Vec2(400, 150), velocity: Vec2(0, 50), timeLimit: 1)
            let hit = try #require(sim.events.first)
            #expect(hit.kind == .obstacle && hit.other == 0)
            // The centre touches at 12 + 10 = 22 from the peg's centre (plus the slop).
            #expect(abs((hit.point - Vec2(410, 300)).length - 22 - config.contactSlop) < 1e-9)
            let n = hit.normal
            let vnBefore = hit.velocityBefore.dot(n), vnAfter = hit.velocityAfter.dot(n)
            #expect(vnBefore < -config.restingSpeed)
            #expect(abs(vnAfter + e * vnBefore) < 1e-9 * abs(vnBefore))
            // No friction: the tangential part is untouched.
            let t = n.perpendicular
            #expect(abs(hit.velocityAfter.dot(t) - hit.velocityBefore.dot(t)) < 1e-9 * hit.velocityBefore.length)
            if e == 1 { #expect(abs(hit.velocityAfter.length - hit.velocityBefore.length) < 1e-9 * hit.velocityBefore.length) }
        }
    }

    @Test("no tunnelling through a zero-thickness segment at any speed")
    func noTunnelling() {
        // A two-vertex polygon: the segment y = 300 from wall to wall and past them, so there is
        // no way round it: a ball launched above it must stay above it.
        let seg = Obstacle(shape: .polygon(ConvexPolygon(vertices: [Vec2(-50, 300), Vec2(850, 300)])))
        var sim = FlightSimulator(obstacles: [seg], config: config)
        sim.recordsEvents = true
        for (k, speed) in [1e3, 1e5, 1e7, 1e9].enumerated() {
            for j in 0..<25 {
                let angle = -1.2 + 2.4 * Double(j) / 24
                let v = Vec2(Trig.sin(angle), Trig.cos(angle)) * speed
                let o = sim.run(position: Vec2(400, 100), velocity: v, timeLimit: 0.02)
                #expect(o.position.y < 300 - config.ballRadius, "speed \(speed) angle \(angle): ended at \(o.position)")
                #expect(sim.events.allSatisfy { $0.point.y <= 290 })
                // A shot that meets the segment before a wall hits it first. At 1e3 units/s, 0.02 s
                // is 20 units: too short to get there.
                let reach = Vec2(400, 100) + v * (190 / v.y)
                if speed >= 1e5 && abs(reach.x - 400) < 250 {
                    #expect(sim.events.first?.kind == .obstacle, "shot \(k)/\(j)")
                    #expect(sim.events.allSatisfy { $0.point.y <= 290 })
                }
            }
        }
    }

    @Test("of two pegs on one arc, the nearer in time is hit, whatever their order")
    func earliestOfTwo() throws {
        // From (100, 100) at (300, 0): p(t) = (100 + 300 t, 100 + 250 t^2). At t = 0.4 it passes
        // (220, 140), at t = 0.8 (340, 260). A peg of radius 5 on each (combined radius 15).
        let later = Obstacle(shape: .circle(center: Vec2(340, 260), radius: 5))
        let sooner = Obstacle(shape: .circle(center: Vec2(220, 140), radius: 5))
        for obstacles in [[later, sooner], [sooner, later]] {
            var sim = FlightSimulator(obstacles: obstacles, config: config)
            sim.recordsEvents = true
            _ = sim.run(position: Vec2(100, 100), velocity: Vec2(300, 0), timeLimit: 1)
            let hit = try #require(sim.events.first)
            #expect(obstacles[Int(hit.other)] == sooner)
            // Speed there is about |(300, 200)| = 360.6, so the touch is about 15 / 360.6 = 0.0416 s
            // before 0.4 s.
            #expect(hit.time > 0.35 && hit.time < 0.4)
            #expect(abs((hit.point - Vec2(220, 140)).length - 15 - config.contactSlop) < 1e-9)
            // And the arc was clear of both before it.
            let f = Flight(origin: Vec2(100, 100), velocity: Vec2(300, 0), acceleration: g)
            for k in 0..<1000 {
                let t = hit.time * Double(k) / 1000
                #expect((f.position(at: t) - Vec2(220, 140)).length > 15)
                #expect((f.position(at: t) - Vec2(340, 260)).length > 15)
            }
        }
    }

    @Test("a resting contact on a ramp slides in closed form: energy kept, the side kept at the slop, off the end")
    func slide() throws {
        // A 300 x 20 board turned by 0.3 rad, restitution 0 (every contact rests). Its top side's
        // outward normal is (0, -1) turned by 0.3: (sin 0.3, -cos 0.3). Dropped from rest 25 units
        // above the middle of that side.
        let ramp = Obstacle(shape: .polygon(.rectangle(center: Vec2(400, 400), width: 300, height: 20, rotation: 0.3)), restitution: 0)
        let n = Vec2(Trig.sin(0.3), -Trig.cos(0.3))
        var sim = FlightSimulator(obstacles: [ramp], config: config)
        sim.recordsEvents = true
        let o = sim.run(position: Vec2(400, 400) + n * 35, velocity: .zero, timeLimit: 5)
        #expect(o.end == .fellOut)
        let kinds = sim.events.map(\.kind)
        let start = try #require(kinds.firstIndex(of: .obstacle))
        let end = try #require(kinds.firstIndex(of: .slideEnd))
        #expect(end == start + 1, "\(kinds)")
        let a = sim.events[start], b = sim.events[end]
        #expect(abs(a.normal.dot(n) - 1) < 1e-12)
        // No friction and no normal motion: the slide turns potential into kinetic energy exactly.
        #expect(abs(energy(a.point, a.velocityAfter) - energy(b.point, b.velocityBefore)) < 1e-6 * abs(energy(a.point, a.velocityAfter)))
        // Still touching the side: 10 (half the height) + 10 (ball) + slop above the centre line.
        #expect(abs((b.point - Vec2(400, 400)).dot(n) - 20 - config.contactSlop) < 1e-9)
        #expect(b.velocityBefore.x > 0 && b.point.x > 500)
    }

    @Test("a ball dropped into a wedge of two pegs comes to rest there, as v1's does", arguments: [0.8, 0])
    func restInWedge(restitution: Double) {
        // Pegs of radius 12 at x = 385 and 415, y = 300: the centre rests 22 from both, at
        // x = 400, y = 300 - sqrt(22^2 - 15^2) = 300 - sqrt(259) = 283.906. Dropped 14 units
        // above that (v1 settles there too; from 100 units above, at 0.8, both engines bounce out).
        let pegs = [Obstacle(shape: .circle(center: Vec2(385, 300), radius: 12), restitution: restitution),
                    Obstacle(shape: .circle(center: Vec2(415, 300), radius: 12), restitution: restitution)]
        var sim = FlightSimulator(obstacles: pegs, config: config)
        let o = sim.run(position: Vec2(400.3, 270), velocity: .zero, timeLimit: 30)
        #expect(o.end == .atRest)
        #expect(o.time < 5)
        // Within 0.005: the rest is declared at the contact with the second peg, reached by
        // gliding off the first along its tangent, which lifts the ball by up to s^2 / 2R.
        #expect((o.position - Vec2(400, 300 - 259.0.squareRoot())).length < 0.005, "\(o.position)")
        #expect((o.position - Vec2(385, 300)).length >= 22 && (o.position - Vec2(415, 300)).length >= 22)
        #expect(Double(o.events) <= Double(config.maxEventsPerSubstep + 1) * (o.time / config.timeStep + 1))
    }
}
