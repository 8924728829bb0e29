import PegglePhysics
import Testing

/// Overlap repair for spawns and teleports: `ObstacleStore.pushedOut` and `PhysicsWorld.separateBall`.
@Suite("Separation")
struct SeparationTests {
    static let cfg = PhysicsConfig()
    static let slop = PhysicsConfig().contactSlop

    /// A ball placed inside a peg is moved straight out along the line from the peg's centre to
    /// exactly touching distance (plus the slop); at the very centre it goes up.
    @Test(arguments: [Vec2(403, 301), Vec2(390, 310), Vec2(400, 300), Vec2(421.9, 300), Vec2(400, 279)])
    func ballInsidePegIsPushedToTouching(start: Vec2) {
        let peg = Vec2(400, 300)
        var w = PhysicsWorld(config: Self.cfg, obstacles: [Obstacle(shape: .circle(center: peg, radius: 12))])
        let id = w.spawnBall(position: start, velocity: .zero)!
        w.separateBall(id: id)
        let p = w.balls[0].position
        #expect(abs((p - peg).length - (22 + Self.slop)) < 1e-9, "moved to \(p)")
        if start != peg {
            #expect(close((p - peg).normalized, (start - peg).normalized, 1e-9))
        } else {
            #expect(close(p, Vec2(400, 300 - 22 - Self.slop), 1e-9))
        }
    }

    /// Inside a polygon (turned or not) the ball leaves through the nearest face, ending exactly one
    /// ball radius (plus slop) from it; overlapping an edge or a corner from outside, it is moved
    /// out to touching along the line from the nearest point.
    @Test(arguments: [0.0, 0.35, -1.2])
    func ballInsidePolygonIsPushedToTouching(rotation: Double) {
        let centre = Vec2(400, 300)
        let rect = ConvexPolygon.rectangle(center: centre, width: 100, height: 40, rotation: rotation)
        let store = ObstacleStore(obstacles: [Obstacle(shape: .polygon(rect))], config: Self.cfg)
        let u = Vec2(1, 0).rotated(by: rotation), n = Vec2(0, -1).rotated(by: rotation)
        let cases: [(local: Vec2, exit: Vec2?)] = [
            (Vec2(20, -10), n),          // 10 below the top face: out through the top
            (Vec2(45, 3), u),            // 5 inside the right face
            (Vec2(-30, 15), -n),         // 5 inside the bottom face
            (Vec2(0, -25), nil),         // outside, 5 above the top face (overlap 5)
            (Vec2(55, -25), nil),        // outside, near the top-right corner (distance 7.07)
        ]
        for (local, exit) in cases {
            let start = centre + u * local.x - n * local.y
            let p = store.pushedOut(start, slop: Self.slop)
            let gap = ObstacleStore.distance(from: p, to: .polygon(rect)) - 10
            #expect(abs(gap - Self.slop) < 1e-9, "from local \(local): moved to \(p), gap \(gap)")
            if let exit {
                #expect(abs((p - start).normalized.dot(exit) - 1) < 1e-9, "left along \((p - start).normalized), expected \(exit)")
            }
        }
    }

    /// A ball already clear of everything is left exactly where it is.
    @Test func clearBallIsNotMoved() {
        let store = ObstacleStore(obstacles: [Obstacle(shape: .circle(center: Vec2(400, 300), radius: 12)),
                                              Obstacle(shape: .polygon(.triangle(center: Vec2(200, 300), width: 50, height: 50, rotation: 1)))],
                                  config: Self.cfg)
        for p in [Vec2(400, 277.9), Vec2(100, 100), Vec2(200, 360)] {
            #expect(store.pushedOut(p, slop: Self.slop) == p)
        }
    }

    /// Wedged between two pegs 40 apart (a 16-unit gap for a 20-unit ball), the ball is moved out
    /// of both, as `pushedOut` promises ("so a ball there touches nothing"; "a few passes settle a
    /// ball wedged between neighbours"). The only free spots near the gap are on its centre line,
    /// 9.17 above or below the pegs' line.
    ///
    /// Known engine defect (fails): each pass pushes the ball out of one peg straight into the other
    /// (alternating projections); four passes leave it 0.3 to 0.4 inside a peg, and a ball on the
    /// line through both centres (the last case) only shuttles sideways and stays 4 inside.
    @Test(arguments: [Vec2(400, 295), Vec2(398, 305), Vec2(405, 300)])
    func ballWedgedBetweenTwoPegsIsFreed(start: Vec2) {
        let pegs = [Vec2(380, 300), Vec2(420, 300)]
        let store = ObstacleStore(obstacles: pegs.map { Obstacle(shape: .circle(center: $0, radius: 12)) }, config: Self.cfg)
        let p = store.pushedOut(start, slop: Self.slop)
        for c in pegs {
            #expect((p - c).length >= 22 - 1e-9, "from \(start): at \(p), \((p - c).length) from the peg at \(c)")
        }
    }

    /// `separateBall` also keeps the ball inside the side and top walls, and works in a turned frame.
    @Test func separateBallRespectsWallsAndTheFrame() {
        var w = PhysicsWorld(config: Self.cfg, obstacles: [Obstacle(shape: .circle(center: Vec2(300, 200), radius: 12))])
        let a = w.spawnBall(position: Vec2(3, 300), velocity: .zero)!
        let b = w.spawnBall(position: Vec2(799, 5), velocity: .zero)!
        w.separateBall(id: a)
        w.separateBall(id: b)
        #expect(close(w.balls[0].position, Vec2(10 + Self.slop, 300), 1e-12))
        #expect(close(w.balls[1].position, Vec2(790 - Self.slop, 10 + Self.slop), 1e-12))
        // After half a turn the peg is at (500, 400); a ball put inside it there is pushed out.
        w.startTurn(by: .pi, rate: .pi)
        while w.frame.isTurning { w.step() }
        w.removeAllBalls()
        let c = w.spawnBall(position: Vec2(505, 400), velocity: .zero)!
        w.separateBall(id: c)
        let p = w.balls[0].position
        #expect(abs((p - Vec2(500, 400)).length - 22) < 1e-6, "moved to \(p)")
        #expect(p.x > 520)
    }
}
