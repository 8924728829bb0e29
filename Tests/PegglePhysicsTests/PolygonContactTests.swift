import PegglePhysics
import Testing

/// Turned polygons collide on the right faces with the right normals.
@Suite("Polygon contacts")
struct PolygonContactTests {
    /// Drops a ball from rest at `x`, `y0` and returns the first obstacle contact and the ball's
    /// true velocity just after it.
    static func drop(onto obstacles: [Obstacle], x: Double, y0: Double) -> (Contact, Vec2)? {
        let cfg = PhysicsConfig()
        var w = PhysicsWorld(config: cfg, obstacles: obstacles)
        w.spawnBall(position: Vec2(x, y0), velocity: .zero)
        for _ in 0..<240 {
            w.step()
            let hits = w.contacts.filter { $0.kind == .obstacle }
            if let c = hits.first {
                guard hits.count == 1 else { return nil }
                return (c, velocityJustAfter(c, in: w))
            }
        }
        return nil
    }

    /// A ball dropped onto a rectangle turned 30 degrees meets its top face: the contact normal is
    /// that face's outward normal (0.5, -cos 30), and with restitution 1 the ball leaves along the
    /// mirror image of its incoming direction (to the right and up); with 0.8 the normal part is
    /// scaled by 0.8 and the tangential part kept.
    @Test(arguments: [1.0, 0.8])
    func rectangleTurnedThirtyDegreesReflectsAboutItsFace(restitution: Double) throws {
        let rect = ConvexPolygon.rectangle(center: Vec2(400, 400), width: 200, height: 20, rotation: Trig.pi / 6)
        let top = Vec2(0.5, -(3.0).squareRoot() / 2)
        #expect(sideNormals(rect).contains { close($0, top, 1e-15) })
        let (c, v) = try #require(Self.drop(onto: [Obstacle(shape: .polygon(rect), restitution: restitution)], x: 400, y0: 150))
        #expect(close(c.normal, top, 1e-12), "normal \(c.normal)")
        let vin = c.velocityBefore
        #expect(vin.x == 0 && vin.y > 0)
        let vn = vin.dot(top)
        #expect(abs(c.impactSpeed + vn) < 1e-9)
        let expected = vin - top * ((1 + restitution) * vn)
        #expect(close(v, expected, 1e-9 * vin.length), "after \(v), expected \(expected)")
        if restitution == 1 {
            // Mirror reflection: 60 degrees from the vertical, toward +x and up, same speed.
            let dir = v.normalized
            #expect(close(dir, Vec2((3.0).squareRoot() / 2, -0.5), 1e-12), "direction \(dir)")
            #expect(abs(v.length - vin.length) < 1e-9 * vin.length)
        }
        // The centre sits one ball radius off the face's line.
        let onFace = rect.edges.first { close($0.normal, top, 1e-12) }!
        #expect(abs((c.point - onFace.a).dot(top) - 10) < 1e-5)
    }

    /// The same rectangle turned the other way sends the ball to the left.
    @Test func mirroredTurnDeflectsTheOtherWay() throws {
        let rect = ConvexPolygon.rectangle(center: Vec2(400, 400), width: 200, height: 20, rotation: -Trig.pi / 6)
        let (c, v) = try #require(Self.drop(onto: [Obstacle(shape: .polygon(rect))], x: 400, y0: 150))
        #expect(close(c.normal, Vec2(-0.5, -(3.0).squareRoot() / 2), 1e-12))
        #expect(v.x < -100)
    }

    /// A triangle's slanted sides push a falling ball outward: right of the apex to the right,
    /// left of it to the left, with the side's outward normal as the contact normal.
    @Test(arguments: [(x: 420.0, sign: 1.0), (x: 380.0, sign: -1.0), (x: 445.0, sign: 1.0), (x: 352.0, sign: -1.0)])
    func triangleSlantedSidesDeflectSideways(x: Double, sign: Double) throws {
        let tri = ConvexPolygon.triangle(center: Vec2(400, 400), width: 120, height: 80, rotation: 0)
        // Apex (400, 360), base corners (460, 440) and (340, 440).
        let side = Vec2(80, -60).normalized * Vec2(sign, 1)  // outward normal of the slanted side
        #expect(sideNormals(tri).contains { close($0, side, 1e-15) })
        let (c, v) = try #require(Self.drop(onto: [Obstacle(shape: .polygon(tri))], x: x, y0: 150))
        #expect(close(c.normal, side, 1e-12), "normal \(c.normal), expected \(side)")
        #expect(v.x * sign > 0.5 * c.impactSpeed)
    }

    /// Hitting a corner gives a radial normal: from the vertex to the ball's centre, one ball radius long.
    @Test(arguments: [(x: 365.0, vertex: Vec2(370, 370)), (x: 436.0, vertex: Vec2(430, 370))])
    func cornerHitGivesRadialNormal(x: Double, vertex: Vec2) throws {
        let square = ConvexPolygon.rectangle(center: Vec2(400, 400), width: 60, height: 60, rotation: 0)
        let (c, v) = try #require(Self.drop(onto: [Obstacle(shape: .polygon(square))], x: x, y0: 200))
        let radial = c.point - vertex
        #expect(abs(radial.length - 10) < 1e-5)
        #expect(close(c.normal, radial.normalized, 1e-9), "normal \(c.normal), radial \(radial.normalized)")
        #expect(c.normal.x != 0 && c.normal.y < 0)
        #expect((v.x > 0) == (x > 400))
    }

    /// A corner of a turned rectangle: the lowest vertex of a square turned 45 degrees, hit from
    /// below by a ball thrown straight up, sends it straight back down with normal (0, 1).
    @Test func turnedSquareVertexFromBelow() throws {
        let square = ConvexPolygon.rectangle(center: Vec2(400, 300), width: 40, height: 40, rotation: Trig.pi / 4)
        let bottom = square.vertices.max { $0.y < $1.y }!
        var w = PhysicsWorld(config: weightless(), obstacles: [Obstacle(shape: .polygon(square))])
        w.spawnBall(position: Vec2(bottom.x, 500), velocity: Vec2(0, -300))
        let (contacts, _) = run(&w, maxSteps: 120) { $0.time > 1 }
        let c = try #require(contacts.first)
        #expect(c.kind == .obstacle)
        #expect(close(c.normal, Vec2(0, 1), 1e-9))
        #expect(abs(c.point.y - (bottom.y + 10)) < 1e-5)
        #expect(w.balls[0].velocity.y > 0)
    }
}
