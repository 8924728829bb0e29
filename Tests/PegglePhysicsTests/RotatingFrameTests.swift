import PegglePhysics
import Testing

/// The confusement flip: every obstacle turns about the board centre (400, 300).
@Suite("Rotating frame")
struct RotatingFrameTests {
    static let peg = Obstacle(shape: .circle(center: Vec2(300, 200), radius: 12))

    /// Steps until the turn is over; returns the number of steps.
    static func finishTurn(_ w: inout PhysicsWorld) -> Int {
        var n = 0
        while w.frame.isTurning && n < 10_000 { w.step(); n += 1 }
        return n
    }

    /// Drops a ball from rest at (x, 100) and returns its obstacle contacts until it leaves.
    static func dropContacts(_ world: PhysicsWorld, x: Double) -> [Contact] {
        var w = world
        w.spawnBall(position: Vec2(x, 100), velocity: .zero)
        return run(&w, maxSteps: 600).contacts.filter { $0.kind == .obstacle }
    }

    /// Half a turn at pi rad/s takes one second (120 steps), ends exactly at pi, and afterwards a
    /// peg designed at (300, 200) stands at (500, 400): a ball dropped at x = 500 hits it, one
    /// dropped at x = 300 falls straight through.
    @Test func halfTurnMovesPegToTheOppositePoint() throws {
        var w = PhysicsWorld(config: PhysicsConfig(), obstacles: [Self.peg])
        #expect(Self.dropContacts(w, x: 300).first?.other == 0)
        #expect(Self.dropContacts(w, x: 500).isEmpty)
        w.startTurn(by: .pi, rate: .pi)
        #expect(w.frame.isTurning)
        let steps = Self.finishTurn(&w)
        #expect(steps == 120, "took \(steps) steps")
        #expect(w.frame.angle == .pi)
        #expect(close(w.worldPoint(Vec2(300, 200)), Vec2(500, 400), 1e-12))
        #expect(close(w.localPoint(Vec2(500, 400)), Vec2(300, 200), 1e-12))
        let hits = Self.dropContacts(w, x: 500)
        let c = try #require(hits.first)
        #expect(c.other == 0)
        #expect(close(c.point, Vec2(500, 378), 1e-5))
        #expect(close(c.normal, Vec2(0, -1), 1e-12))
        #expect(Self.dropContacts(w, x: 300).isEmpty)
    }

    /// A full turn (2 pi, or two half turns) brings the frame back to exactly 0 (the identity
    /// fast path), and the peg acts exactly as it did before: the same trajectory, bit for bit.
    @Test(arguments: [[2 * Double.pi], [Double.pi, Double.pi], [-2 * Double.pi]])
    func fullTurnReturnsToExactlyZero(turns: [Double]) {
        let fresh = PhysicsWorld(config: PhysicsConfig(), obstacles: [Self.peg])
        var w = fresh
        for t in turns {
            w.startTurn(by: t, rate: .pi)
            _ = Self.finishTurn(&w)
        }
        #expect(w.frame.angle == 0)
        #expect(w.frame.target == 0)
        #expect(!w.frame.isTurning)
        var a = fresh, b = w
        a.spawnBall(position: Vec2(303, 100), velocity: .zero)
        b.spawnBall(position: Vec2(303, 100), velocity: .zero)
        var contacts = 0
        for _ in 0..<200 {
            a.step(); b.step()
            contacts += a.contacts.count
            #expect(a.balls.map(\.position) == b.balls.map(\.position))
        }
        #expect(contacts > 0)
    }

    /// While turning the obstacles are kinematic: a ball at rest beside a peg that swings into it is
    /// struck and thrown off faster than the peg moves (200 units from the centre at pi rad/s the peg
    /// moves at 628 units/s), and it never ends a step inside the peg.
    @Test func turningPegStrikesRestingBall() throws {
        var w = PhysicsWorld(config: weightless(walls: false), obstacles: [Obstacle(shape: .circle(center: Vec2(400, 100), radius: 12))])
        // Turning by a positive angle moves (400, 100) toward +x; the ball waits half a unit ahead.
        w.spawnBall(position: Vec2(422.5, 100), velocity: .zero)
        w.startTurn(by: .pi, rate: .pi)
        var hit: Contact?
        for _ in 0..<10 {
            w.step()
            if hit == nil { hit = w.contacts.first }
            let pegNow = w.worldPoint(Vec2(400, 100))
            #expect((w.balls[0].position - pegNow).length >= 22 - 1e-3)
        }
        let c = try #require(hit)
        #expect(c.kind == .obstacle)
        #expect(abs(c.impactSpeed - 200 * Double.pi) < 10, "closing speed \(c.impactSpeed)")
        #expect(w.balls[0].velocity.length > 1.5 * 200 * Double.pi)
        #expect(w.balls[0].velocity.x > 0)
    }

    /// Under gravity, a ball resting on a block is struck by it when it turns: left of the board's
    /// centre a positive turn lifts the block's top face at 2 rad/s * 100 units = 200 units/s, which
    /// throws the resting ball upward (the contact sees the face's velocity, not a static face).
    @Test func turningBlockThrowsRestingBall() throws {
        let block = Obstacle(shape: .polygon(.rectangle(center: Vec2(320, 290), width: 140, height: 20, rotation: 0)))
        var w = PhysicsWorld(config: PhysicsConfig(), obstacles: [block])
        w.spawnBall(position: Vec2(300, 270 - 1e-6), velocity: .zero)
        for _ in 0..<60 { w.step() }
        #expect(w.balls[0].velocity.length < 5)  // resting on the top face
        #expect(abs(w.balls[0].position.y - 270) < 1e-3)
        w.startTurn(by: 0.5, rate: 2)
        w.step()
        let c = try #require(w.contacts.first)
        #expect(c.kind == .obstacle)
        #expect(abs(c.impactSpeed - 200) < 10, "closing speed \(c.impactSpeed)")
        #expect(w.balls[0].velocity.y < -300, "velocity after the face struck it: \(w.balls[0].velocity)")
    }

    /// Turning while other turns are under way extends the target; the rate is the latest asked for.
    @Test func turnsAccumulate() {
        var w = PhysicsWorld(config: PhysicsConfig(), obstacles: [Self.peg])
        w.startTurn(by: .pi, rate: .pi)
        for _ in 0..<30 { w.step() }
        #expect(abs(w.frame.angle - Double.pi / 4) < 1e-12)
        w.startTurn(by: .pi, rate: 2 * .pi)
        #expect(w.frame.target == 2 * Double.pi)
        let steps = Self.finishTurn(&w)
        #expect(abs(Double(steps) - 1.75 * Double.pi / (2 * Double.pi) * 120) <= 1)
        #expect(w.frame.angle == 0)
    }
}

/// The sweep's cache of the frame's trig must hand back exactly what `rotated(by: -angle)` computes,
/// whatever order angles come in (repeats at rest, a new one each sub-step while turning, an old
/// one after two others have pushed it out).
@Suite("Inverse turns cache")
struct InverseTurnsTests {
    @Test func sameBitsAsTheTrig() {
        var cache = InverseTurns()
        let angles = [Double.pi, .pi, .pi, 0.1, 0.2, 0.1, 0.3, .pi, -0.0, 0.0, -2.5, 1e-300, -2.5, 0.2]
        let frame = RotatingFrame(center: Vec2(400, 300))
        let p = Vec2(123.456, 654.321)
        for a in angles {
            let r = cache.of(a)
            #expect(r.c.bitPattern == Trig.cos(-a).bitPattern, "cos(-\(a))")
            #expect(r.s.bitPattern == Trig.sin(-a).bitPattern, "sin(-\(a))")
            let viaCache = frame.toLocal(p, angle: a, inverse: r), direct = frame.toLocal(p, angle: a)
            #expect(viaCache.x.bitPattern == direct.x.bitPattern && viaCache.y.bitPattern == direct.y.bitPattern,
                    "toLocal at \(a)")
        }
    }
}
