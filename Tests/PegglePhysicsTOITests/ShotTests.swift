import PegglePhysics
import PegglePhysicsTOI
import Testing

/// v2's parts of a shot of a game: the bucket on its path, catches and rim contacts, scene edits,
/// the stuck rule's step-end samples.
@Suite("v2 shots: bucket, scene edits, stuck rule")
struct ShotTests {
    let config = PhysicsConfig()
    var h: Double { config.timeStep }
    let rules = FlightSimulator.ShotRules(stuckDistance: 1, stuckTime: 2)

    @Test("the bucket's path: straight pieces between the turns, v1's steps on it")
    func bucketPath() {
        // The rules' bucket: x 400 moving right at 150 units/s between 60 and 740 (span 680).
        let path = BucketPath(KinematicBucket())
        let p = path.piece(at: 0)
        // It left 60 at -340/150 s and reaches 740 at 340/150 s.
        #expect(p.x0 == 400 && p.vx == 150 && p.start == -340.0 / 150 && p.end == 340.0 / 150)
        // At 3 s it has turned at 740 and come back 110: x = 630, moving left.
        let b3 = path.bucket(at: 3)
        #expect(b3.x == 630 && b3.direction == -1)
        #expect(path.piece(at: 3).vx == -150 && path.piece(at: 3).end == (2 * 680.0 - 340) / 150)
        // v1 moves it a step at a time: the same path at every step end, up to rounding.
        var v1 = KinematicBucket()
        var worst = 0.0
        for k in 1...2400 {
            (v1.x, v1.direction) = v1.advanced(by: h)
            let b = path.bucket(at: Double(k) * h)
            worst = max(worst, abs(b.x - v1.x))
            #expect(b.direction == v1.direction || abs(v1.x - 740) < 1e-9 || abs(v1.x - 60) < 1e-9, "step \(k)")
        }
        #expect(worst < 1e-9, "\(worst)")
        // A still bucket (no travel) never moves.
        var still = KinematicBucket()
        still.minX = 400
        still.maxX = 400
        #expect(BucketPath(still).bucket(at: 7).x == 400)
    }

    @Test("a ball dropped over the bucket's path is caught when it crosses the mouth, at the closed-form time")
    func caughtByMovingBucket() {
        // From rest at y = 325 the centre reaches the rims' top line (575) at t = sqrt(2 * 250 / 500)
        // = 1 s, where the bucket (400 at 0, moving right at 150) is centred on x = 550.
        var sim = FlightSimulator(obstacles: [], config: config)
        sim.bucket = BucketPath(KinematicBucket())
        sim.recordsEvents = true
        let o = sim.run(position: Vec2(550, 325), velocity: .zero, timeLimit: 5)
        #expect(o.end == .caught)
        #expect(abs(o.time - 1) < 1e-12, "\(o.time)")
        #expect(abs(o.position.x - 550) < 1e-12 && abs(o.position.y - 575) < 1e-9)
        #expect(sim.events.isEmpty)
        // Without the bucket the same ball leaves the board at y = 620: t = sqrt(2 * 295 / 500).
        var bare = FlightSimulator(obstacles: [], config: config)
        let out = bare.run(position: Vec2(550, 325), velocity: .zero, timeLimit: 5)
        #expect(out.end == .fellOut && abs(out.time - (590.0 / 500).squareRoot()) < 1e-12)
        // Beside the mouth (the bucket 150 units away at 1 s) it is not caught.
        var miss = FlightSimulator(obstacles: [], config: config)
        miss.bucket = BucketPath(KinematicBucket())
        #expect(miss.run(position: Vec2(400, 325), velocity: .zero, timeLimit: 5).end == .fellOut)
    }

    @Test("a ball landing on a moving rim's cap bounces as v1's rule says, in the rim's frame")
    func movingRimBounce() throws {
        // The right rim's cap is at x_b + 50 = 550 + 50 = 600 at t = 1; a ball from rest at
        // (600, 311) is 14 (rim 4 + ball 10) above it then, falling at 500: a head-on contact,
        // normal (0, -1). The rim moves at (150, 0), which has no part along the normal:
        // v' = v - (1 + 0.8) (v . n) n = (0, 500) - 900 (0, 1) = (0, -400), no friction.
        var sim = FlightSimulator(obstacles: [], config: config)
        sim.bucket = BucketPath(KinematicBucket())
        sim.recordsEvents = true
        _ = sim.run(position: Vec2(600, 311), velocity: .zero, timeLimit: 1.2)
        let e = try #require(sim.events.first)
        #expect(e.kind == .bucketRim && e.other == -1)
        #expect(abs(e.time - 1) < 1e-9, "\(e.time)")
        #expect(abs(e.impactSpeed - 500) < 1e-6 && (e.velocityAfter - Vec2(0, -400)).length < 1e-6, "\(e)")
        #expect((e.normal - Vec2(0, -1)).length < 1e-9)
        #expect((e.point - Vec2(600, 561)).length < 1e-5)
    }

    @Test("a removed obstacle is gone from later flights, and restored with the scene")
    func removalBetweenFlights() {
        // A peg right under the drop: hit; removed: a free fall to the exit line, t = sqrt(2 * 520 / 500).
        var sim = FlightSimulator(obstacles: [Obstacle(shape: .circle(center: Vec2(400, 300), radius: 12)),
                                              Obstacle(shape: .circle(center: Vec2(200, 300), radius: 12))], config: config)
        sim.recordsEvents = true
        _ = sim.run(position: Vec2(400, 100), velocity: .zero, timeLimit: 2)
        #expect(sim.events.first?.other == 0)
        sim.removeObstacle(0)
        #expect(sim.live == [false, true])
        let o = sim.run(position: Vec2(400, 100), velocity: .zero, timeLimit: 5)
        #expect(sim.events.isEmpty && o.end == .fellOut && abs(o.time - (1040.0 / 500).squareRoot()) < 1e-12)
        sim.restoreObstacles()
        _ = sim.run(position: Vec2(400, 100), velocity: .zero, timeLimit: 2)
        #expect(sim.events.first?.other == 0)
    }

    @Test("a ball flagged stuck is handed back at the next step end, where it is")
    func flaggedStuck() {
        var sim = FlightSimulator(obstacles: [], config: config)
        sim.shotRules = rules
        sim.launch(position: Vec2(400, 100), velocity: .zero, timeLimit: 5)
        sim.flagStuck()
        // The first step end, h, on the parabola from rest: y = 100 + 500 h^2 / 2.
        #expect(sim.advance() == .stuck(time: h, position: Vec2(400, 100 + 500 * (0.5 * h * h))))
        // Not flagged again: it falls out, on the closed-form time.
        guard case let .end(o) = sim.advance() else { Issue.record("no end"); return }
        #expect(o.end == .fellOut && abs(o.time - (1040.0 / 500).squareRoot()) < 1e-12)
    }

    @Test("a ball at rest in a wedge is stuck 2 s after its anchor; the pegs taken away, it falls out")
    func stuckAtRestThenRemoval() throws {
        // Pegs of radius 12 at x = 385 and 415, y = 300: the centre rests at (400, 300 - sqrt(259)).
        // Launched 0.001 above it, it never moves 1 unit from its launch point (the anchor), so v1's
        // rule (sampled at step ends) calls it stuck at the first step end 2 s on: 240 h.
        let pegs = [Obstacle(shape: .circle(center: Vec2(385, 300), radius: 12)),
                    Obstacle(shape: .circle(center: Vec2(415, 300), radius: 12))]
        var sim = FlightSimulator(obstacles: pegs, config: config)
        sim.shotRules = rules
        let rest = Vec2(400, 300 - 259.0.squareRoot())
        sim.launch(position: rest - Vec2(0, 0.001), velocity: .zero, timeLimit: 30)
        var contacts: [Int32] = []
        var stuck: (time: Double, position: Vec2)?
        loop: while true {
            switch sim.advance() {
            case let .contact(e): contacts.append(e.other)
            case let .stuck(t, p): stuck = (t, p); break loop
            case let .end(o): Issue.record("ended \(o)"); return
            }
        }
        let s = try #require(stuck)
        #expect(s.time == 240 * h)
        #expect((s.position - rest).length < 0.005, "\(s.position)")
        #expect(Set(contacts) == [0, 1])
        // The caller removes both lit pegs (v1's unstick): the ball falls out from there.
        sim.removeObstacle(0)
        sim.removeObstacle(1)
        guard case let .end(o) = sim.advance() else { Issue.record("a contact after the pegs left"); return }
        // From rest at the stuck point to y = 620.
        #expect(o.end == .fellOut && abs(o.time - (s.time + (2 * (620 - s.position.y) / 500).squareRoot())) < 1e-9, "\(o)")
        #expect(abs(o.position.x - s.position.x) < 1e-9)
    }

    @Test("without the rule's handing back, a ball at rest waits to the time limit under shot rules")
    func restWaitsUnderShotRules() {
        // A long stuck time: the rest lasts to the limit, where it still sits.
        var sim = FlightSimulator(obstacles: [Obstacle(shape: .circle(center: Vec2(385, 300), radius: 12)),
                                              Obstacle(shape: .circle(center: Vec2(415, 300), radius: 12))], config: config)
        sim.shotRules = FlightSimulator.ShotRules(stuckDistance: 1, stuckTime: 100)
        sim.launch(position: Vec2(400, 300 - 259.0.squareRoot() - 0.001), velocity: .zero, timeLimit: 3)
        var outcome: FlightOutcome?
        while outcome == nil {
            if case let .end(o) = sim.advance() { outcome = o }
        }
        #expect(outcome?.end == .timeLimit && outcome?.time == 3 && outcome?.velocity == .zero, "\(String(describing: outcome))")
    }
}
