import PegglePhysics
import Testing

/// Disabling obstacles (removed pegs), and copy-on-write storage shared between copies.
@Suite("Disabling and copy on write")
struct DisableAndCopyTests {
    static let obstacles = [
        Obstacle(shape: .circle(center: Vec2(300, 300), radius: 12)),
        Obstacle(shape: .polygon(.rectangle(center: Vec2(500, 300), width: 80, height: 20, rotation: 0.2))),
        Obstacle(shape: .circle(center: Vec2(300, 450), radius: 12)),
    ]

    static func drop(_ world: PhysicsWorld, x: Double) -> [Contact] {
        var w = world
        w.spawnBall(position: Vec2(x, 100), velocity: .zero)
        return run(&w, maxSteps: 600).contacts
    }

    /// A disabled peg and a disabled block are passed straight through; the others still collide.
    @Test func disabledObstaclesArePassedThrough() {
        var w = PhysicsWorld(config: PhysicsConfig(), obstacles: Self.obstacles)
        #expect(Self.drop(w, x: 300).first?.other == 0)
        #expect(Self.drop(w, x: 500).first?.other == 1)
        w.store.disable(0)
        w.store.disable(1)
        #expect(!w.store.isEnabled(0) && !w.store.isEnabled(1) && w.store.isEnabled(2))
        let through = Self.drop(w, x: 300)
        #expect(through.first?.kind == .obstacle && through.first?.other == 2, "\(through.map(\.other))")
        #expect(!through.contains { $0.kind == .obstacle && $0.other == 0 })
        #expect(Self.drop(w, x: 500).map(\.kind) == [.fellOut])
        // Disabling twice changes nothing.
        w.store.disable(1)
        #expect(Self.drop(w, x: 500).map(\.kind) == [.fellOut])
        // Sweeps agree: nothing is found where the disabled ones were.
        #expect(w.store.sweep(from: Vec2(300, 200), by: Vec2(0, 300), limit: 1).owner == 2)
        #expect(w.store.sweep(from: Vec2(500, 200), by: Vec2(0, 200), limit: 1).owner == -1)
    }

    /// Disabling in a copy of the world does not touch the original, and the other way round.
    @Test func disablingInACopyLeavesTheOriginal() {
        let original = PhysicsWorld(config: PhysicsConfig(), obstacles: Self.obstacles)
        var copy = original
        copy.store.disable(0)
        #expect(original.store.isEnabled(0))
        #expect(!copy.store.isEnabled(0))
        #expect(Self.drop(original, x: 300).first?.other == 0)
        #expect(Self.drop(copy, x: 300).first?.other == 2)

        var again = original
        let snapshot = again
        again.store.disable(1)
        again.store.disable(2)
        #expect(snapshot.store.isEnabled(1) && snapshot.store.isEnabled(2))
        #expect(original.store.isEnabled(1) && original.store.isEnabled(2))
        #expect(copy.store.isEnabled(2))
        #expect(Self.drop(snapshot, x: 500).first?.other == 1)
    }

    /// The same for bare stores, checked through the narrow phase, across a chain of copies.
    @Test func storeCopiesAreIndependent() {
        let a = ObstacleStore(obstacles: Self.obstacles, config: PhysicsConfig())
        var b = a
        var c = b
        b.disable(0)
        c.disable(2)
        let down = Vec2(0, 400)
        #expect(a.sweep(from: Vec2(300, 100), by: down, limit: 1).owner == 0)
        #expect(b.sweep(from: Vec2(300, 100), by: down, limit: 1).owner == 2)
        #expect(c.sweep(from: Vec2(300, 100), by: down, limit: 1).owner == 0)
        var d = c
        d.disable(0)
        #expect(d.sweep(from: Vec2(300, 100), by: down, limit: 1).owner == -1)
        #expect(c.sweep(from: Vec2(300, 100), by: down, limit: 1).owner == 0)
        #expect((0..<3).map(a.isEnabled) == [true, true, true])
        #expect((0..<3).map(b.isEnabled) == [false, true, true])
        #expect((0..<3).map(c.isEnabled) == [true, true, false])
        #expect((0..<3).map(d.isEnabled) == [false, true, false])
        #expect(a.obstacles == Self.obstacles && d.obstacles == Self.obstacles)
    }

    /// Copies of a world mid-flight evolve identically and independently.
    @Test func worldCopiesEvolveIndependently() {
        var w = PhysicsWorld(config: PhysicsConfig(), obstacles: Self.obstacles)
        w.spawnBall(position: Vec2(303, 100), velocity: .zero)
        for _ in 0..<30 { w.step() }
        var a = w, b = w
        b.store.disable(0)
        var aHit = false, bHit = false
        for _ in 0..<120 {
            a.step(); b.step()
            aHit = aHit || a.contacts.contains { $0.other == 0 && $0.kind == .obstacle }
            bHit = bHit || b.contacts.contains { $0.other == 0 && $0.kind == .obstacle }
        }
        #expect(aHit && !bHit)
        #expect(w.balls[0].position.y < 200)  // the original did not move on
    }
}
