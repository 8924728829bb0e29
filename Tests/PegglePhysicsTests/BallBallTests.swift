import PegglePhysics
import Testing

/// Contacts between balls: equal masses, restitution 0.8, momentum kept.
@Suite("Ball-ball contacts")
struct BallBallTests {
    /// Head-on at equal speeds: the closing speed is 400 and each ball leaves at 0.8 of its speed.
    @Test func headOnEqualSpeeds() throws {
        let cfg = weightless(walls: false)
        var w = PhysicsWorld(config: cfg, obstacles: [])
        let a = w.spawnBall(position: Vec2(300, 300), velocity: Vec2(200, 0))!
        let b = w.spawnBall(position: Vec2(500, 300), velocity: Vec2(-200, 0))!
        let (contacts, _) = run(&w, maxSteps: 120) { $0.time >= 1 }
        #expect(contacts.count == 2)
        let ca = try #require(contacts.first { $0.ball == a })
        let cb = try #require(contacts.first { $0.ball == b })
        #expect(ca.kind == .ball && ca.other == b && cb.other == a)
        #expect(abs(ca.impactSpeed - 400) < 1e-9 && abs(cb.impactSpeed - 400) < 1e-9)
        #expect(close(ca.normal, Vec2(-1, 0), 1e-12) && close(cb.normal, Vec2(1, 0), 1e-12))
        #expect(abs(ca.point.x - 390) < 1e-5 && abs(cb.point.x - 410) < 1e-5)
        let va = w.balls[w.index(of: a)!].velocity, vb = w.balls[w.index(of: b)!].velocity
        #expect(close(va, Vec2(-160, 0), 1e-9) && close(vb, Vec2(160, 0), 1e-9))
    }

    /// Balls of equal mass trade the normal impulse: in a crowd of balls with no obstacles and no
    /// walls, the total momentum changes each step by gravity alone, however many balls collide.
    @Test(arguments: [PhysicsConfig().gravity, Vec2(0, 0)])
    func momentumIsConservedInEveryContact(gravity: Vec2) {
        var cfg = PhysicsConfig()
        cfg.gravity = gravity
        cfg.leftWall = false; cfg.rightWall = false; cfg.topWall = false
        cfg.exitY = .infinity
        var rng = SplitMix64(seed: 42)
        var ballContacts = 0
        for _ in 0..<20 {
            var w = PhysicsWorld(config: cfg, obstacles: [])
            for _ in 0..<12 {
                w.spawnBall(position: Vec2(rng.uniform(300, 500), rng.uniform(200, 400)),
                            velocity: Vec2(rng.uniform(-300, 300), rng.uniform(-300, 300)))
            }
            for _ in 0..<90 {
                let before = w.balls.reduce(Vec2.zero) { $0 + $1.velocity }
                let kineticBefore = w.balls.reduce(0.0) { $0 + 0.5 * ($1.velocity - gravity * (0.5 * cfg.timeStep)).lengthSquared }
                w.step()
                let after = w.balls.reduce(Vec2.zero) { $0 + $1.velocity }
                let n = Double(w.balls.count)
                #expect(close(after - before, gravity * (n * cfg.timeStep), 1e-9), "momentum changed by \(after - before - gravity * (n * cfg.timeStep))")
                if gravity == .zero {
                    let kineticAfter = w.balls.reduce(0.0) { $0 + 0.5 * $1.velocity.lengthSquared }
                    #expect(kineticAfter <= kineticBefore + 1e-9 * kineticBefore)
                }
                for c in w.contacts {
                    #expect(c.kind == .ball)
                    // Each contact is reported once per ball, with opposite normals and the same speed.
                    #expect(w.contacts.contains { $0.ball == c.other && $0.other == c.ball && $0.normal == -c.normal && $0.impactSpeed == c.impactSpeed })
                }
                ballContacts += w.contacts.count
            }
        }
        #expect(ballContacts > 100)
    }

    /// Two balls put at the same point and moving apart do not push each other: no contact, no
    /// impulse, and they separate at exactly their relative speed.
    @Test func coincidentBallsMovingApartDoNotExplode() {
        var w = PhysicsWorld(config: weightless(), obstacles: [])
        w.spawnBall(position: Vec2(400, 300), velocity: Vec2(-50, 0))
        w.spawnBall(position: Vec2(400, 300), velocity: Vec2(50, 0))
        for _ in 0..<60 {
            w.step()
            #expect(w.contacts.isEmpty)
        }
        #expect(w.balls[0].velocity == Vec2(-50, 0) && w.balls[1].velocity == Vec2(50, 0))
        #expect(abs((w.balls[1].position - w.balls[0].position).length - 50) < 1e-9)
    }

    /// Coincident and at rest (or moving together) they stay put; overlapping and moving apart
    /// they drift apart untouched.
    @Test func coincidentOrOverlappingBallsStayCalm() {
        var w = PhysicsWorld(config: weightless(), obstacles: [])
        w.spawnBall(position: Vec2(400, 300), velocity: Vec2(30, 0))
        w.spawnBall(position: Vec2(400, 300), velocity: Vec2(30, 0))
        w.spawnBall(position: Vec2(200, 300), velocity: Vec2(-20, 5))
        w.spawnBall(position: Vec2(205, 303), velocity: Vec2(20, 5))
        for _ in 0..<30 {
            w.step()
            #expect(w.contacts.isEmpty)
            #expect(w.balls.allSatisfy { $0.velocity.length < 40 })
        }
        #expect(w.balls[0].position == w.balls[1].position)
    }

    /// Two balls put overlapping while closing slowly are pushed just apart (to touching) and the
    /// slow contact does not bounce; nothing flies off.
    @Test func overlappingClosingBallsSeparateGently() throws {
        var w = PhysicsWorld(config: weightless(), obstacles: [])
        w.spawnBall(position: Vec2(400, 300), velocity: Vec2(2, 0))
        w.spawnBall(position: Vec2(410, 300), velocity: Vec2(-2, 0))
        w.step()
        let c = try #require(w.contacts.first)
        #expect(c.kind == .ball && abs(c.impactSpeed - 4) < 1e-12)
        let gap = (w.balls[1].position - w.balls[0].position).length
        #expect(gap >= 20 && gap < 20.01)
        #expect(close(w.balls[0].velocity, .zero, 1e-12) && close(w.balls[1].velocity, .zero, 1e-12))
    }
}
