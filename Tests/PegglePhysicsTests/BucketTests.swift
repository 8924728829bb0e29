import PegglePhysics
import Testing

/// The kinematic bucket: two rims sliding along the bottom; the mouth between them catches balls.
@Suite("Bucket")
struct BucketTests {
    static func bucket(x: Double = 400, speed: Double = 0, direction: Double = 1) -> KinematicBucket {
        var b = KinematicBucket()
        b.x = x
        b.speed = speed
        b.direction = direction
        return b
    }

    /// A ball dropped into the mouth is caught: one `.caught` contact, the ball leaves play, and it
    /// never touches a rim nor falls out. (Falling straight, it clears the rims' caps, of combined
    /// radius 4 + 10, when its centre is within 36 of the bucket's centre line.)
    @Test(arguments: [(x: 400.0, speed: 0.0), (x: 435.5, speed: 0.0), (x: 364.5, speed: 0.0), (x: 400.0, speed: 150.0)])
    func ballDroppedIntoMouthIsCaught(x: Double, speed: Double) throws {
        var w = PhysicsWorld(config: PhysicsConfig(), obstacles: [], bucket: Self.bucket(speed: speed))
        // Fall time from y = 475 to the mouth at 575 is sqrt(2 * 100 / 500) = 0.632 s; aim where the
        // bucket will be then.
        let lead = speed * (2 * 100 / 500.0).squareRoot()
        let id = w.spawnBall(position: Vec2(x + lead, 475), velocity: .zero)!
        let (contacts, _) = run(&w, maxSteps: 240)
        #expect(w.activeBallCount == 0)
        let kinds = contacts.map(\.kind)
        #expect(kinds == [.caught], "contacts \(kinds)")
        let c = try #require(contacts.first)
        #expect(c.ball == id)
        #expect(abs(c.point.y - 575) < 1e-9)
    }

    /// A ball landing on a rim's top cap bounces off it (restitution 0.8, radial normal) and stays in play.
    @Test(arguments: [350.0, 450.0, 347.0, 455.0])
    func ballLandingOnRimBounces(x: Double) throws {
        let cfg = PhysicsConfig()
        var w = PhysicsWorld(config: cfg, obstacles: [], bucket: Self.bucket())
        w.spawnBall(position: Vec2(x, 375), velocity: .zero)
        var hit: Contact?
        for _ in 0..<240 where hit == nil {
            w.step()
            hit = w.contacts.first
        }
        let c = try #require(hit)
        #expect(c.kind == .bucketRim)
        #expect(w.activeBallCount == 1)
        let rimTop = Vec2(x < 400 ? 350 : 450, 575)
        #expect(abs((c.point - rimTop).length - 14) < 1e-5)
        #expect(close(c.normal, (c.point - rimTop).normalized, 1e-9))
        let v = velocityJustAfter(c, in: w)
        #expect(abs(v.dot(c.normal) - 0.8 * c.impactSpeed) < 1e-9 * c.impactSpeed)
        #expect(v.y < 0)
        if x == 350 || x == 450 {
            #expect(c.normal == Vec2(0, -1))
        }
    }

    /// The bucket moves at its speed, turns at maxX and minX, and keeps going, with or without balls.
    @Test func bucketMovesAndTurnsAtTheLimits() {
        let h = PhysicsConfig().timeStep
        var w = PhysicsWorld(config: PhysicsConfig(), obstacles: [], bucket: Self.bucket(speed: 150))
        // 400 -> 740 takes 340 / 150 s = 272 steps; then back to 60 in 680 / 150 s = 544 steps.
        var xs: [Double] = [400]
        for _ in 0..<1000 {
            w.step()
            xs.append(w.bucket!.x)
        }
        for n in [1, 100, 200, 272] {
            #expect(abs(xs[n] - (400 + 150 * h * Double(n))) < 1e-9, "step \(n): \(xs[n])")
        }
        #expect(abs(xs[300] - (740 - 150 * h * 28)) < 1e-9)
        #expect(abs(xs[816] - 60) < 1e-9)
        #expect(abs(xs[900] - (60 + 150 * h * 84)) < 1e-9)
        #expect(xs.allSatisfy { $0 >= 60 && $0 <= 740 })
        // Every step moves it by exactly speed * h, except the steps where it turns, which move it less.
        for n in 1..<xs.count {
            let dx = abs(xs[n] - xs[n - 1])
            let nearLimit = min(xs[n], xs[n - 1]) < 60 + 2 * 150 * h || max(xs[n], xs[n - 1]) > 740 - 2 * 150 * h
            #expect(nearLimit ? dx <= 150 * h + 1e-9 : abs(dx - 150 * h) < 1e-9, "step \(n): moved \(dx)")
        }
        #expect(w.bucket!.direction == 1 && abs(w.bucket!.x - (60 + 150 * h * 184)) < 1e-9)
        // Turning mid-step reflects the overshoot: one step past a limit.
        var b = Self.bucket(x: 739.5, speed: 150)
        let (x, dir) = b.advanced(by: h)
        #expect(abs(x - (740 - 0.75)) < 1e-12 && dir == -1)
        b.direction = -1
        b.x = 60.5
        let (x2, dir2) = b.advanced(by: h)
        #expect(abs(x2 - 60.75) < 1e-12 && dir2 == 1)
    }

    /// The rim's motion is felt: a ball at rest beside a rim moving toward it at 150 units/s is
    /// struck at closing speed 150 and leaves at 150 * (1 + 0.8) = 270 units/s.
    @Test(arguments: [1.0, -1.0])
    func movingRimPushesRestingBall(direction: Double) throws {
        var cfg = weightless()
        cfg.exitY = 700
        var w = PhysicsWorld(config: cfg, obstacles: [], bucket: Self.bucket(speed: 150, direction: direction))
        // Outer face of the right rim is at x = 454, of the left at 346; leave a 2-unit gap.
        w.spawnBall(position: Vec2(400 + direction * 66, 600), velocity: .zero)
        var hit: Contact?
        for _ in 0..<30 where hit == nil {
            w.step()
            hit = w.contacts.first
        }
        let c = try #require(hit)
        #expect(c.kind == .bucketRim)
        #expect(close(c.normal, Vec2(direction, 0), 1e-12))
        #expect(abs(c.impactSpeed - 150) < 1e-9)
        #expect(abs(w.balls[0].velocity.x - 270 * direction) < 1e-9)
        #expect(w.balls[0].velocity.y == 0)
        // The ball then outruns the rim.
        for _ in 0..<30 { w.step(); #expect(w.contacts.isEmpty) }
    }

    /// A ball thrown sideways at a rim from outside bounces off the rim's outer face.
    @Test func ballThrownAtOuterFaceBounces() throws {
        var cfg = weightless()
        cfg.exitY = 700
        var w = PhysicsWorld(config: cfg, obstacles: [], bucket: Self.bucket())
        w.spawnBall(position: Vec2(200, 600), velocity: Vec2(300, 0))
        var hit: Contact?
        for _ in 0..<120 where hit == nil {
            w.step()
            hit = w.contacts.first
        }
        let c = try #require(hit)
        #expect(c.kind == .bucketRim && c.normal == Vec2(-1, 0))
        #expect(abs(c.point.x - 336) < 1e-5)
        #expect(abs(w.balls[0].velocity.x + 240) < 1e-9)
    }
}
