import PegglePhysics
import Testing

/// Restitution: the normal speed after a contact is `e` times the closing speed before it.
@Suite("Restitution")
struct RestitutionTests {
    /// A ball dropped from rest straight above a peg lands on its top: the rebound speed is 0.8
    /// of the impact speed, the contact normal is straight up, and the ball stays on the vertical.
    @Test func dropOnPegTopReboundsAtPointEight() throws {
        let cfg = PhysicsConfig()
        var w = PhysicsWorld(config: cfg, obstacles: [Obstacle(shape: .circle(center: Vec2(300, 400), radius: 12))])
        w.spawnBall(position: Vec2(300, 178), velocity: .zero)  // centre 200 above contact height 378
        var hit: Contact?
        for _ in 0..<200 where hit == nil {
            w.step()
            hit = w.contacts.first { $0.kind == .obstacle }
        }
        let c = try #require(hit)
        #expect(c.normal == Vec2(0, -1))
        #expect(abs(c.point.y - 378) < 1e-5)
        // Impact speed: sqrt(2 g H), up to the contact time's error: the drift is the chord of the
        // parabola, at most g h^2 / 8 away from it, so the time is off by at most that over the
        // speed, and the speed by g times that.
        let exact = (2 * 500 * 200.0).squareRoot()
        #expect(abs(c.impactSpeed - exact) <= 500 * (500 * cfg.timeStep * cfg.timeStep / 8) / exact + 1e-9)
        #expect(c.impactSpeed == c.velocityBefore.y)
        // Just after the response the ball rises at 0.8 of the closing speed.
        let vAfter = velocityJustAfter(c, in: w)
        #expect(vAfter.x == 0)
        #expect(abs(-vAfter.y - 0.8 * c.impactSpeed) <= 1e-9 * c.impactSpeed)
        #expect(w.balls[0].position.x == 300)
    }

    /// Successive rebound apexes on a peg top are 0.64 of the height fallen, within the error of
    /// the integrator. With kick-drift-kick the contact happens during a drift at the mid-step
    /// velocity, which differs from the exact speed by at most g h / 2, and the rebound starts
    /// anywhere within the drift, which shifts the apex by at most v' h / 2 (v' the rebound speed);
    /// sampling the apex at step ends loses at most g h^2 / 8. The tolerance is the sum of these.
    @Test func reboundApexRatioIsPointSixFour() {
        let cfg = PhysicsConfig()
        let g = 500.0, h = cfg.timeStep
        var w = PhysicsWorld(config: cfg, obstacles: [Obstacle(shape: .circle(center: Vec2(300, 400), radius: 12))])
        w.spawnBall(position: Vec2(300, 178), velocity: .zero)
        let contactY = 378.0
        var dropHeight = 200.0
        var apexes: [Double] = []
        var minY = Double.infinity
        var bounced = false
        for _ in 0..<2000 where apexes.count < 4 {
            w.step()
            let b = w.balls[0]
            if w.contacts.contains(where: { $0.kind == .obstacle }) {
                if bounced {
                    apexes.append(contactY - minY)
                }
                bounced = true
                minY = .infinity
            } else if bounced {
                minY = min(minY, b.position.y)
            }
        }
        #expect(apexes.count == 4)
        for apex in apexes {
            let v = (2 * g * dropHeight).squareRoot()
            let vOut = 0.8 * (v + g * h / 2)
            let tol = 0.64 * (2 * v * (g * h / 2) + (g * h / 2) * (g * h / 2)) / (2 * g) + vOut * h / 2 + g * h * h / 8
            #expect(abs(apex - 0.64 * dropHeight) <= tol, "apex \(apex) after a drop of \(dropHeight), tolerance \(tol)")
            #expect(abs(apex / dropHeight - 0.64) < 0.02)
            dropHeight = apex
        }
    }

    /// Side and top walls reflect the normal component with restitution 0.8 and keep the tangential
    /// one, at the right moment: with no gravity the ball meets the wall at the time straight-line
    /// motion predicts, and at the end of that step it is 0.8 |v.n| (T - t_hit) back out.
    @Test(arguments: [(wall: Int32(0), v: Vec2(-310, 40)), (wall: Int32(1), v: Vec2(455, -20)), (wall: Int32(2), v: Vec2(30, -500))])
    func wallsReboundAtPointEight(wall: Int32, v: Vec2) throws {
        let cfg = weightless()
        let start = Vec2(400, 300)
        var w = PhysicsWorld(config: cfg, obstacles: [])
        w.spawnBall(position: start, velocity: v)
        while w.contacts.isEmpty && w.time < 2 { w.step() }
        let c = try #require(w.contacts.first)
        #expect(w.contacts.count == 1)
        #expect(c.kind == .wall && c.other == wall)
        let n = wall == 0 ? Vec2(1, 0) : wall == 1 ? Vec2(-1, 0) : Vec2(0, 1)
        #expect(c.normal == n)
        #expect(abs(c.impactSpeed - abs(v.dot(n))) < 1e-12)
        // After the contact the velocity's normal part is -0.8 of what it was; the rest is kept.
        let after = w.balls[0].velocity
        #expect(abs(after.dot(n) - 0.8 * abs(v.dot(n))) < 1e-9)
        #expect(abs(after.dot(n.perpendicular) - v.dot(n.perpendicular)) < 1e-9)
        // Timing: distance from the wall line at the end of the contact step.
        let wallDistance: (Vec2) -> Double = { p in wall == 0 ? p.x : wall == 1 ? 800 - p.x : p.y }
        let tHit = (wallDistance(start) - 10) / abs(v.dot(n))
        let expected = 10 + 0.8 * abs(v.dot(n)) * (w.time - tHit)
        #expect(abs(wallDistance(w.balls[0].position) - expected) < 1e-6, "ball \(wallDistance(w.balls[0].position)) from the wall, expected \(expected)")
        #expect(abs(wallDistance(c.point) - 10) < 1e-5)
    }

    /// A springy block (restitution 1.4) sends the ball back faster than it came and higher than it fell.
    @Test func springyBlockReboundsFaster() throws {
        let cfg = PhysicsConfig()
        let block = Obstacle(shape: .polygon(.rectangle(center: Vec2(400, 450), width: 120, height: 20, rotation: 0)),
                             restitution: 1.4)
        var w = PhysicsWorld(config: cfg, obstacles: [block])
        w.spawnBall(position: Vec2(400, 230), velocity: .zero)  // contact centre height is 430: a 200 drop
        var hit: Contact?
        while hit == nil && w.time < 3 {
            w.step()
            hit = w.contacts.first { $0.kind == .obstacle }
        }
        let c = try #require(hit)
        #expect(c.normal == Vec2(0, -1))
        let vAfter = velocityJustAfter(c, in: w)
        #expect(abs(-vAfter.y - 1.4 * c.impactSpeed) <= 1e-9 * c.impactSpeed)
        #expect(-vAfter.y > c.impactSpeed)
        var minY = w.balls[0].position.y
        while w.balls[0].velocity.y < 0 { w.step(); minY = min(minY, w.balls[0].position.y) }
        #expect(430 - minY > 1.9 * 200 * 0.99, "rises \(430 - minY) after a fall of 200: expected about 1.96 times")
    }

    /// Below `restingSpeed` a contact does not bounce: a ball lowered gently onto a block stays on it.
    @Test func slowContactsDoNotBounce() {
        let cfg = PhysicsConfig()
        let block = Obstacle(shape: .polygon(.rectangle(center: Vec2(400, 450), width: 120, height: 20, rotation: 0)))
        var w = PhysicsWorld(config: cfg, obstacles: [block])
        w.spawnBall(position: Vec2(400, 429.99), velocity: .zero)
        var maxUp = 0.0
        var contacts = 0
        for _ in 0..<240 {
            w.step()
            contacts += w.contacts.filter { $0.kind == .obstacle }.count
            maxUp = max(maxUp, 430 - w.balls[0].position.y)
            #expect(w.contacts.allSatisfy { $0.impactSpeed < cfg.restingSpeed })
        }
        #expect(contacts >= 200)  // it keeps touching the block
        #expect(maxUp < 0.02)
        #expect(abs(w.balls[0].position.y - 430) < 1e-3)
        #expect(w.balls[0].position.x == 400)
    }
}
