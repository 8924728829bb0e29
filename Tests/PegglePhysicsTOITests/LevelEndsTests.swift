import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI
import PeggleTestSupport
import Testing

@Suite("v2 on the bundled levels")
struct LevelEndsTests {
    /// The bundled level files (Levels/*.json, not the folders below it).
    static func levelFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Repository.url("Levels").path)
            .filter { $0.hasSuffix(".json") }.sorted().map { "Levels/" + $0 }
    }

    @Test("every event and every end of 200 shots a level is outside every obstacle (static pegs and blocks)")
    func endsOutside() throws {
        let files = try Self.levelFiles()
        #expect(files.count == 15)
        let rules = Rules()
        var shots = 0, events = 0, ends: [FlightEnd: Int] = [:]
        for file in files {
            let level = try LevelCodec.decode(Repository.data(file))
            // As `peggle-bench toi` builds the scene: pegs and blocks, never removed, no bucket.
            let obstacles = GameState.obstacles(level: level, rules: rules)
            var sim = FlightSimulator(obstacles: obstacles, config: rules.physics)
            sim.recordsEvents = true
            for i in 0..<200 {
                let a = -1.3 + 2.6 * Double(i) / 199
                let o = sim.run(position: rules.cannon, velocity: Vec2(Trig.sin(a), Trig.cos(a)) * rules.launchSpeed,
                                timeLimit: rules.shotTimeLimit)
                shots += 1
                events += sim.events.count
                ends[o.end, default: 0] += 1
                let worst = FuzzAndDeterminismTests.penetration(o.position, obstacles, ballRadius: rules.physics.ballRadius)
                #expect(worst < 1e-6, "\(file) aim \(a): ended \(worst) units inside an obstacle at \(o.position) (\(o.end))")
                for e in sim.events {
                    let d = FuzzAndDeterminismTests.penetration(e.point, obstacles, ballRadius: rules.physics.ballRadius)
                    #expect(d < 1e-6, "\(file) aim \(a): \(e.kind) \(d) units inside at \(e.point)")
                }
            }
        }
        #expect(shots == 3000)
        // Every way a flight ends on a real board but the non-finite one.
        #expect(ends[.nonFinite] == nil)
        #expect(ends[.fellOut, default: 0] > 2000 && ends[.atRest, default: 0] > 0 && ends[.timeLimit, default: 0] > 0, "\(ends)")
        #expect(events > 3000)
    }
}
