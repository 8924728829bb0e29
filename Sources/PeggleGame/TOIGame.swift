import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI
import PeggleUtilities

/// Why the second physics cannot play a level yet: what it has that v2 does not handle.
public struct TOIRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The level's name.
    public var level: String
    /// One reason a line, each naming the level's pegs, power or rule.
    public var reasons: [String]

    public init(level: String, reasons: [String]) {
        self.level = level
        self.reasons = reasons
    }

    public var description: String {
        "physics 2 cannot play level '\(level)' yet: " + reasons.joined(separator: "; ")
    }

    /// What in `level` under `rules` v2 does not handle yet (empty: it plays it).
    public static func reasons(_ level: Level, _ rules: Rules) -> [String] {
        var out: [String] = []
        let confusement = level.count(of: .confusement), zombie = level.count(of: .zombie), green = level.count(of: .green)
        if confusement > 0 { out.append("\(confusement) confusement peg(s) turn the board (every obstacle moves)") }
        if zombie > 0 { out.append("\(zombie) zombie peg(s) become balls (several balls in play)") }
        if level.power == .multiball && green > 0 { out.append("power multiball with \(green) green peg(s) splits the ball (several balls in play)") }
        if rules.physics.substeps != 1 {
            out.append("physics substeps \(rules.physics.substeps): v2 budgets events per timeStep, as v1 with substeps 1")
        }
        return out
    }
}

/// A game played on the second physics (issue 51, PegglePhysicsTOI), with v1's shot rules: the
/// same `GameState` (its lighting, kaboom, spooky count, roaming purple, scoring, modes and
/// `finish`), its shots flown by `FlightSimulator` instead of `PhysicsWorld.step`. `GameState.play`
/// (v1's loop) is not touched: this file only adds a second driver beside it.
///
/// Per shot: the ball launched at the cannon; each peg contact counts an impact (closing speed at
/// or above `restingSpeed`; `stuckImpacts` of them flag the ball stuck) and lights the peg if unlit;
/// a stuck step end removes the lit pegs within `stuckReach` (from the game and the scene) or takes
/// the ball out; leaving the board ends the shot, or (spooky) brings the ball back at the top at
/// the next step, same x and velocity, pushed out of overlaps by v1's own code; the bucket catches
/// it. The shot lasts the steps v1 would count (`ceil(t / timeStep)` for a ball gone at `t`), the
/// bucket is moved on by that time, and `finish` removes the lit pegs, which leave the scene too.
///
/// Levels with what v2 does not handle yet are refused whole at `init` (`TOIRefusal`), never played
/// wrong. Deterministic: values only, no state shared between games.
public struct TOIGame: Sendable {
    public private(set) var state: GameState
    var simulator: FlightSimulator
    /// Where the latest shot's ball left play: on the exit line, on the bucket's mouth, or where
    /// the stuck rule or the time limit found it (a spooky ball: its last flight's end).
    public private(set) var lastEnd: Vec2?

    /// A new game on `level`, as `GameState.init`; refused (`TOIRefusal`) for a level v2 does not
    /// handle yet. `scene`, if given, must be this level's (`scene(level:rules:)`): games of one
    /// level can share it.
    public init(level: Level, rules: Rules = Rules(), seed: UInt64, scene: TOIScene? = nil) throws {
        let reasons = TOIRefusal.reasons(level, rules)
        guard reasons.isEmpty else { throw TOIRefusal(level: level.name, reasons: reasons) }
        try self.init(state: GameState(level: level, rules: rules, seed: seed), scene: scene)
    }

    /// The game `state` (a v1 game between shots, on a level v2 plays) going on under v2: the
    /// pegs it removed are off the scene, the bucket where it is. So both engines can play a
    /// shot from one state.
    public init(state: GameState, scene: TOIScene? = nil) throws {
        let reasons = TOIRefusal.reasons(state.level, state.rules)
        guard reasons.isEmpty else { throw TOIRefusal(level: state.level.name, reasons: reasons) }
        precondition(state.boardAngle == 0, "v2 plays unturned boards only")
        self.state = state
        let scene = scene ?? TOIScene(obstacles: state.world.store.obstacles, config: state.rules.physics)
        precondition(scene.obstacles.count == state.world.store.count && scene.config == state.rules.physics,
                     "the scene given is not this level's under these rules")
        simulator = FlightSimulator(scene: scene)
        simulator.shotRules = FlightSimulator.ShotRules(stuckDistance: state.rules.stuckDistance, stuckTime: state.rules.stuckTime)
        for i in state.pegs.indices where state.pegs[i].isRemoved { simulator.removeObstacle(i) }
    }

    /// The scene of `level` under `rules`, to share between its games.
    public static func scene(level: Level, rules: Rules) -> TOIScene {
        TOIScene(obstacles: GameState.obstacles(level: level, rules: rules), config: rules.physics)
    }

    /// Puts the bucket at `phase` of its cycle, as `GameState.placeBucket` (for a new game).
    public mutating func placeBucket(phase: Double) { state.placeBucket(phase: phase) }

    /// Fires the cannon at `angle` radians from straight down, as `GameState.shoot`.
    public mutating func shoot(angle: Double) throws(ShotError) -> ShotResult {
        let (shot, end) = try state.playTOI(angle: angle, simulator: &simulator)
        lastEnd = end
        return shot
    }
}

extension GameState {
    /// One shot on v2 (`TOIGame`): `play`'s rules, v2's flight.
    mutating func playTOI(angle: Double, simulator sim: inout FlightSimulator) throws(ShotError) -> (ShotResult, end: Vec2) {
        guard status == .playing else { throw .gameOver }
        guard angle.isFinite, abs(angle) <= rules.maxAim else { throw .angleOutOfRange(angle: angle, limit: rules.maxAim) }
        if shotsTaken > 0 { roamPurple() }
        var shot = ShotResult(angle: angle)
        if case .classic = level.mode { ballsLeft -= 1 }

        let h = rules.physics.timeStep
        var limit = rules.shotTimeLimit
        if let left = timeLeft { limit = min(limit, left) }
        let maxSteps = Int((limit / h).rounded(.up))
        let timeLimit = Double(maxSteps) * h
        ballInfo.removeAll(keepingCapacity: true)
        ballInfo.append(BallInfo(id: 0, spooky: 0, anchor: rules.cannon, anchorTime: 0))
        sim.bucket = world.bucket.map(BucketPath.init)
        sim.launch(position: rules.cannon, velocity: Vec2(Trig.sin(angle), Trig.cos(angle)) * rules.launchSpeed,
                   timeLimit: timeLimit)
        var gone = timeLimit
        var end = rules.cannon
        flying: while true {
            switch sim.advance() {
            case let .contact(e):
                let i = Int(e.other)
                guard i < pegs.count else { continue }
                if e.impactSpeed >= rules.physics.restingSpeed {
                    pegs[i].impacts += 1
                    if pegs[i].impacts >= Int32(rules.stuckImpacts) { sim.flagStuck() }
                }
                if !pegs[i].isLit && !pegs[i].isRemoved {
                    light(i, contact: Contact(kind: .obstacle, ball: 0, other: e.other, point: e.point, normal: e.normal,
                                              impactSpeed: e.impactSpeed, velocityBefore: e.velocityBefore, time: e.time), &shot)
                }
                drainExplosions(&shot)
            case let .stuck(time, position):
                // `unstick`'s rule: the lit pegs it touches go now; with none, the ball goes.
                world.store.touching(center: position, margin: rules.stuckReach, into: &scratch)
                var removed = 0
                for id in scratch where Int(id) < pegs.count && pegs[Int(id)].isLit && !pegs[Int(id)].isRemoved {
                    remove(Int(id), &shot)
                    sim.removeObstacle(Int(id))
                    removed += 1
                }
                shot.stuckRemovals += removed
                if removed == 0 {
                    shot.stuckBalls += 1
                    gone = time
                    end = position
                    break flying
                }
            case let .end(o):
                gone = o.time
                end = o.position
                switch o.end {
                case .caught:
                    shot.caught += 1
                case .timeLimit:
                    shot.timedOut = true
                case .fellOut, .nonFinite, .atRest:
                    // Spooky: back in at the top after the step it left in, same x, same velocity.
                    guard o.end == .fellOut, ballInfo[0].spooky > 0 else { break }
                    ballInfo[0].spooky -= 1
                    let r = rules.physics.ballRadius
                    let x = min(max(o.position.x, r + 1), rules.physics.boardWidth - r - 1)
                    let at = Self.stepsTo(o.time, h) * h
                    // v1 spawns it, then stops at the step limit with a ball in play.
                    guard at < timeLimit else { shot.timedOut = true; break }
                    guard let p = separated(Vec2(x, r + 1)) else { break }
                    sim.launch(position: p, velocity: o.velocity, at: at, timeLimit: timeLimit)
                    continue flying
                }
                break flying
            }
        }
        shot.steps = min(maxSteps, Int(Self.stepsTo(gone, h)))
        shot.duration = Double(shot.steps) * h
        world.bucket = sim.bucket?.bucket(at: shot.duration)
        finish(&shot, settle: true)
        for i in pegs.indices where pegs[i].isRemoved && sim.live[i] { sim.removeObstacle(i) }
        return (shot, end)
    }

    /// The steps v1 has taken when a ball leaves play at `time`: the step it left in counts. A
    /// step end (the stuck rule's times, k h) counts k, whatever the rounding of k h / h.
    static func stepsTo(_ time: Double, _ h: Double) -> Double { (time / h - 1e-9).rounded(.up) }

    /// Where v1 puts a ball spawned at `point` (`PhysicsWorld.separateBall`: out of every
    /// obstacle, inside the walls), by v1's own code on a ball spawned and taken out again.
    mutating func separated(_ point: Vec2) -> Vec2? {
        guard let id = world.spawnBall(position: point, velocity: .zero) else { return nil }
        world.separateBall(id: id)
        let p = world.index(of: id).map { world.ball(at: $0).position }
        world.removeBall(id: id)
        return p
    }
}
