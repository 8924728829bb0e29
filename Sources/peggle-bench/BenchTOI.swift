import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleLab
import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI

/// `peggle-bench toi`: the second physics (issue 51: times of impact, PegglePhysicsTOI) against
/// today's on a static scene, as `physics` runs it: the level's pegs and blocks as static
/// obstacles (never removed, no bucket, no game rules), one ball per aim from the cannon until it
/// leaves the board or the shot time limit.
struct BenchTOI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toi",
        abstract: "The second physics (times of impact) against today's on a static scene: shots per second and end positions.",
        discussion: "Speed: v1 is `physics`'s own workload (Benchmarks.physicsSteps, free-flight bound on); v2 is "
            + "FlightSimulator.run on the same shots. Ends: where each shot's centre crosses the exit line (v1: on its last "
            + "step's path) or where it stopped on the board, v1 against v2, and v1 against v1 with the aim moved by --nudge "
            + "radians (the scale of 'the same' in a chaotic system); and each shot's first obstacle contact.")

    @OptionGroup var workload: BenchLevel

    @Option(help: "Shots per run, at aims spread over [-1.3, 1.3].")
    var shots = 2000

    @Option(help: "Aim change of the v1-against-v1 comparison, radians.")
    var nudge = 1e-9

    @OptionGroup var output: BenchOutputOptions

    struct Row: BenchRow {
        struct Columns: Encodable {
            var level: String, shots: Int
            var v1ShotsPerS: Double, v2ShotsPerS: Double, v2OverV1: Double
            var v2EventsPerShot: Double
            var sameEndKind12: Double, sameEndKind11: Double
            var medianEndGap12: Double, p90EndGap12: Double, within1Unit12: Double
            var medianEndGap11: Double, p90EndGap11: Double, within1Unit11: Double
            var sameFirstObstacle12: Double, medianFirstContactGap12: Double, maxFirstContactGap12: Double
        }
        struct Extra: Encodable {
            var `repeat`: Int, nudge: Double, pegs: Int, blocks: Int
            var v1ShotsPerSRuns: [Double], v2ShotsPerSRuns: [Double]
            var v2Ends: [String: Int], v1Ends: [String: Int]
        }
        var columns: Columns
        var extra: Extra
    }

    /// Where a shot ended: off the board (on the exit line) or on it; its first obstacle contact.
    struct End {
        var fellOut: Bool
        var point: Vec2
        var firstObstacle: Int32 = -1
        var firstContact: Vec2 = .zero
    }

    static func launch(_ angle: Double, _ rules: Rules) -> Vec2 { Vec2(Trig.sin(angle), Trig.cos(angle)) * rules.launchSpeed }

    /// v1, step by step (the same steps as the free-flight loop). A ball that left is placed where
    /// its last step's straight drift crossed the exit line.
    static func v1End(_ world: inout PhysicsWorld, angle: Double, rules: Rules) -> End {
        let maxSteps = Int((rules.shotTimeLimit / rules.physics.timeStep).rounded(.up))
        world.spawnBall(position: rules.cannon, velocity: launch(angle, rules))
        var end = End(fellOut: false, point: rules.cannon)
        var steps = 0
        var prev = rules.cannon
        while world.activeBallCount > 0 && steps < maxSteps {
            prev = world.ball(at: 0).position
            world.step()
            steps += 1
            for c in world.contacts where end.firstObstacle < 0 && c.kind == .obstacle {
                end.firstObstacle = c.other
                end.firstContact = c.point
            }
            if world.activeBallCount == 0, let out = world.contacts.first(where: { $0.kind == .fellOut }) {
                let y = rules.physics.exitY
                let f = (y - prev.y) / (out.point.y - prev.y)
                end.fellOut = true
                end.point = prev + (out.point - prev) * f
            }
        }
        if world.activeBallCount > 0 { end.point = world.ball(at: 0).position }
        world.removeAllBalls()
        return end
    }

    static func quantile(_ xs: [Double], _ q: Double) -> Double {
        guard !xs.isEmpty else { return .nan }
        let s = xs.sorted()
        return s[min(s.count - 1, Int((Double(s.count - 1) * q).rounded()))]
    }

    func run() throws {
        guard shots >= 2 else { throw UserError("--shots: \(shots) is too few; give at least 2") }
        let level = try workload.load()
        var out = try BenchOutput<Row>(output)
        let rules = Rules()
        let angles = Benchmarks.gridAngles(shots)
        let obstacles = GameState.obstacles(level: level, rules: rules)
        let round = BenchClock.round

        // Speed, interleaved runs, one thread each.
        var v1: [BenchClock.Run] = [], v2: [BenchClock.Run] = []
        var v2Events = 0
        for _ in 0..<workload.repeat {
            v1.append(try BenchClock.timed(threads: 1, count: angles.count) { range in
                BenchClock.Run(shots: range.count, steps: Benchmarks.physicsSteps(level: level, rules: rules, angles: angles[range]),
                               seconds: 0)
            })
            v2.append(try BenchClock.timed(threads: 1, count: angles.count) { range in
                var sim = FlightSimulator(obstacles: obstacles, config: rules.physics)
                var events = 0
                for a in angles[range] {
                    events += sim.run(position: rules.cannon, velocity: Self.launch(a, rules), timeLimit: rules.shotTimeLimit).events
                }
                return BenchClock.Run(shots: range.count, steps: events, seconds: 0)
            })
            v2Events = v2.last!.steps
        }
        let p1 = BenchClock.median(v1), p2 = BenchClock.median(v2)

        // Ends.
        var world = PhysicsWorld(config: rules.physics, obstacles: obstacles)
        var sim = FlightSimulator(obstacles: obstacles, config: rules.physics)
        sim.recordsEvents = true
        var gaps12: [Double] = [], gaps11: [Double] = [], first12: [Double] = []
        var sameKind12 = 0, sameKind11 = 0, sameFirst = 0, bothFirst = 0
        var v2Ends: [String: Int] = [:], v1Ends: [String: Int] = [:]
        for a in angles {
            let e1 = Self.v1End(&world, angle: a, rules: rules)
            let e1b = Self.v1End(&world, angle: a + nudge, rules: rules)
            let o = sim.run(position: rules.cannon, velocity: Self.launch(a, rules), timeLimit: rules.shotTimeLimit)
            var e2 = End(fellOut: o.end == .fellOut, point: o.position)
            if let c = sim.events.first(where: { $0.kind == .obstacle }) {
                e2.firstObstacle = c.other
                e2.firstContact = c.point
            }
            v2Ends["\(o.end)", default: 0] += 1
            v1Ends[e1.fellOut ? "fellOut" : "onBoard", default: 0] += 1
            if e1.fellOut == e2.fellOut { sameKind12 += 1; gaps12.append((e1.point - e2.point).length) }
            if e1.fellOut == e1b.fellOut { sameKind11 += 1; gaps11.append((e1.point - e1b.point).length) }
            if e1.firstObstacle >= 0 || e2.firstObstacle >= 0 {
                bothFirst += 1
                if e1.firstObstacle == e2.firstObstacle {
                    sameFirst += 1
                    first12.append((e1.firstContact - e2.firstContact).length)
                }
            }
        }
        let n = Double(angles.count)
        func frac(_ k: Int, _ of: Double) -> Double { round(Double(k) / of, 4) }
        let c = Row.Columns(
            level: workload.level, shots: shots,
            v1ShotsPerS: round(Double(shots) / p1.seconds, 1), v2ShotsPerS: round(Double(shots) / p2.seconds, 1),
            v2OverV1: round(p1.seconds / p2.seconds, 3),
            v2EventsPerShot: round(Double(v2Events) / n, 2),
            sameEndKind12: frac(sameKind12, n), sameEndKind11: frac(sameKind11, n),
            medianEndGap12: round(Self.quantile(gaps12, 0.5), 6), p90EndGap12: round(Self.quantile(gaps12, 0.9), 3),
            within1Unit12: frac(gaps12.filter { $0 < 1 }.count, n),
            medianEndGap11: round(Self.quantile(gaps11, 0.5), 6), p90EndGap11: round(Self.quantile(gaps11, 0.9), 3),
            within1Unit11: frac(gaps11.filter { $0 < 1 }.count, n),
            sameFirstObstacle12: frac(sameFirst, Double(max(1, bothFirst))),
            medianFirstContactGap12: round(Self.quantile(first12, 0.5), 6), maxFirstContactGap12: round(first12.max() ?? .nan, 6))
        let row = Row(columns: c, extra: .init(repeat: workload.repeat, nudge: nudge, pegs: level.pegs.count, blocks: level.blocks.count,
                                               v1ShotsPerSRuns: v1.map { round(Double(shots) / $0.seconds, 1) },
                                               v2ShotsPerSRuns: v2.map { round(Double(shots) / $0.seconds, 1) },
                                               v2Ends: v2Ends, v1Ends: v1Ends))
        try out.emit(row, text: "\(c.level): v1 \(c.v1ShotsPerS) shots/s, v2 \(c.v2ShotsPerS) shots/s (v2/v1 \(c.v2OverV1)), "
            + "v2 \(c.v2EventsPerShot) events/shot; ends v1-v2: same kind \(c.sameEndKind12), gap median \(c.medianEndGap12) "
            + "p90 \(c.p90EndGap12), <1 unit \(c.within1Unit12); v1-v1(+\(nudge) rad): same kind \(c.sameEndKind11), "
            + "gap median \(c.medianEndGap11) p90 \(c.p90EndGap11), <1 unit \(c.within1Unit11); first obstacle same "
            + "\(c.sameFirstObstacle12), its contact gap median \(c.medianFirstContactGap12) max \(c.maxFirstContactGap12); "
            + "v1 ends \(v1Ends), v2 ends \(v2Ends)")
        try out.finish()
    }
}
