import ArgumentParser
import Foundation
import PeggleCommandLine
import PegglePhysics
import PegglePhysicsTOI

/// `peggle-bench toi-fidelity`: both physics against answers known in closed form (issue 51's
/// "physical fidelity"): free flight's apex and landing point, the energy across a bounce at
/// restitution 1 and the height the ball climbs back to, and where a ball comes to rest on a
/// floor and in a wedge of two pegs. Gravity (0, 500) units/s^2, y down, ball radius 10.
///
/// Version 1 is read as a game reads it, at its step ends (1/120 s): its apex is the highest
/// step end, its landing the last step's chord carried to the line. Version 2 is read at its
/// events and from its closed-form flight between them.
struct BenchTOIFidelity: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toi-fidelity",
        abstract: "Both physics against closed-form answers: apex, landing point, a bounce at restitution 1, rest on a floor and in a wedge.",
        discussion: "One row per measure: the exact value, version 1's and version 2's, and each one's error (units, or "
            + "relative for energy). Deterministic: no timing.")

    @OptionGroup var output: BenchOutputOptions

    struct Row: BenchRow {
        struct Columns: Encodable {
            var measure: String, exact: Double, v1: Double, v2: Double, v1Error: Double, v2Error: Double
        }
        struct Extra: Encodable { var unit: String }
        var columns: Columns
        var extra: Extra
    }

    static let config = PhysicsConfig()
    static var g: Vec2 { config.gravity }

    /// Version 1's step-end positions and velocities of one ball until it leaves or `seconds` pass.
    static func v1Path(_ obstacles: [Obstacle], from p: Vec2, velocity v: Vec2, seconds: Double) -> [(p: Vec2, v: Vec2)] {
        var world = PhysicsWorld(config: config, obstacles: obstacles)
        _ = world.spawnBall(position: p, velocity: v)
        var path = [(p, v)]
        for _ in 0..<Int((seconds / config.timeStep).rounded(.up)) {
            world.step()
            guard world.activeBallCount > 0 else { break }
            let b = world.ball(at: 0)
            path.append((b.position, b.velocity))
        }
        return path
    }

    func run() throws {
        var out = try BenchOutput<Row>(output)
        func emit(_ measure: String, _ exact: Double, _ v1: Double, _ v2: Double, unit: String, relative: Bool = false) throws {
            let e1 = relative ? (v1 - exact) / exact : v1 - exact, e2 = relative ? (v2 - exact) / exact : v2 - exact
            try out.emit(Row(columns: .init(measure: measure, exact: exact, v1: v1, v2: v2, v1Error: e1, v2Error: e2),
                             extra: .init(unit: unit)),
                         text: "\(measure): exact \(exact), v1 \(v1) (error \(e1)), v2 \(v2) (error \(e2)) \(unit)")
        }
        let config = Self.config, g = Self.g

        // Free flight from (400, 300) at (100, -300): apex at t = 0.6 s, y = 210, x = 460; the
        // exit line y = 620 at t = (300 + sqrt(410000)) / 500, x = 400 + 100 t.
        let start = Vec2(400, 300), launch = Vec2(100, -300)
        let flight = Flight(origin: start, velocity: launch, acceleration: g)
        let path1 = Self.v1Path([], from: start, velocity: launch, seconds: 5)
        let top1 = path1.min { $0.p.y < $1.p.y }!.p
        let apex2 = flight.position(at: flight.apexTime ?? 0)
        try emit("free flight: apex height (y)", 210, top1.y, apex2.y, unit: "units")
        try emit("free flight: apex x", 460, top1.x, apex2.x, unit: "units")
        let tExit = (300 + 410_000.0.squareRoot()) / 500
        let (a, b) = (path1[path1.count - 2].p, path1[path1.count - 1].p)
        let land1 = b.x + (b.x - a.x) * ((config.exitY - b.y) / (b.y - a.y))
        var sim = FlightSimulator(obstacles: [], config: config)
        let o = sim.run(position: start, velocity: launch, timeLimit: 30)
        try emit("free flight: landing x on the exit line", 400 + 100 * tExit, land1, o.position.x, unit: "units")

        // Restitution 1 on a flat top (a block whose top is y = 400): dropped from rest at y = 100,
        // the centre touches at y = 390 at sqrt(2 * 500 * 290) units/s, leaves at that speed and
        // climbs back to y = 100.
        let block = Obstacle(shape: .polygon(.rectangle(center: Vec2(400, 420), width: 200, height: 40, rotation: 0)), restitution: 1)
        let drop = Vec2(400.5, 100)
        func energy(_ p: Vec2, _ v: Vec2) -> Double { 0.5 * v.lengthSquared - g.dot(p) }
        let e0 = energy(drop, .zero)
        let bounce1 = Self.v1Path([block], from: drop, velocity: .zero, seconds: 2.154)
        let up1 = bounce1.firstIndex { $0.v.y < 0 }!
        let after1 = bounce1[up1]
        let climb1 = bounce1[up1...].min { $0.p.y < $1.p.y }!.p.y
        var sim2 = FlightSimulator(obstacles: [block], config: config)
        sim2.recordsEvents = true
        _ = sim2.run(position: drop, velocity: .zero, timeLimit: 2)
        let hit = sim2.events.first { $0.kind == .obstacle }!
        let upFlight = Flight(origin: hit.point, velocity: hit.velocityAfter, acceleration: g)
        let climb2 = upFlight.position(at: upFlight.apexTime ?? 0).y
        let speed = 290_000.0.squareRoot()
        try emit("restitution 1: speed after the bounce", speed, after1.v.length, hit.velocityAfter.length, unit: "units/s")
        try emit("restitution 1: energy after the bounce", e0, energy(after1.p, after1.v), energy(hit.point, hit.velocityAfter),
                 unit: "relative", relative: true)
        try emit("restitution 1: height climbed back to (y)", 100, climb1, climb2, unit: "units")

        // At rest on a floor: the block at restitution 0.8, dropped 14 units above the rest
        // height y = 390; after 10 s the centre should be there, still.
        let floor = Obstacle(shape: .polygon(.rectangle(center: Vec2(400, 420), width: 200, height: 40, rotation: 0)), restitution: 0.8)
        let settle1 = Self.v1Path([floor], from: Vec2(400.5, 376), velocity: .zero, seconds: 10).last!
        var sim3 = FlightSimulator(obstacles: [floor], config: config)
        let rest3 = sim3.run(position: Vec2(400.5, 376), velocity: .zero, timeLimit: 10)
        try emit("rest on a floor: centre height (y)", 390, settle1.p.y, rest3.position.y, unit: "units")
        try emit("rest on a floor: speed left", 0, settle1.v.length, rest3.velocity.length, unit: "units/s")

        // In a wedge: pegs of radius 12 at (385, 300) and (415, 300); the centre rests 22 from
        // both, at (400, 300 - sqrt(259)).
        let pegs = [Obstacle(shape: .circle(center: Vec2(385, 300), radius: 12), restitution: 0.8),
                    Obstacle(shape: .circle(center: Vec2(415, 300), radius: 12), restitution: 0.8)]
        let wedge1 = Self.v1Path(pegs, from: Vec2(400.3, 270), velocity: .zero, seconds: 10).last!
        var sim4 = FlightSimulator(obstacles: pegs, config: config)
        let rest4 = sim4.run(position: Vec2(400.3, 270), velocity: .zero, timeLimit: 10)
        let restPoint = Vec2(400, 300 - 259.0.squareRoot())
        try emit("rest in a wedge: distance from the rest point", 0, (wedge1.p - restPoint).length, (rest4.position - restPoint).length,
                 unit: "units")
        try out.finish()
    }
}
