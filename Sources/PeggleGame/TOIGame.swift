import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI
import PeggleUtilities

/// A game on the second physics (issue 51, PegglePhysicsTOI), for the benchmarks and tests that
/// set the two versions side by side: a `GameState` whose rules ask for version 2, and where its
/// latest ball left play. Any game runs on version 2 through its rules (`Rules.physicsVersion`);
/// this wrapper only adds `lastEnd` and the sharing of one scene between a level's games.
///
/// Version 2 plays a shot (`GameState.playTOI`) with version 1's rules: the same `GameState` (its
/// lighting, kaboom, spooky count, roaming purple, scoring, modes and `finish`), its shots flown
/// by `FlightSimulator` instead of `PhysicsWorld.step`. Per shot: the ball launched at the cannon;
/// each peg contact counts an impact (closing speed at or above `restingSpeed`; `stuckImpacts` of
/// them flag the ball stuck) and lights the peg if unlit; a stuck step end removes the lit pegs
/// within `stuckReach` (from the game and the scene) or takes the ball out; leaving the board ends
/// the shot, or (spooky) brings the ball back at the top at the next step, same x and velocity,
/// pushed out of overlaps by v1's own code; the bucket catches it. The shot lasts the steps v1
/// would count (`ceil(t / timeStep)` for a ball gone at `t`), the bucket is moved on by that
/// time, and `finish` removes the lit pegs, which leave the scene too.
///
/// Levels with what v2 does not handle yet are refused whole (`Level.physicsIssues`, a
/// `LevelIssue`), never played wrong. Deterministic: values only, no state shared between games.
public struct TOIGame: Sendable {
    public private(set) var state: GameState
    /// Where the latest shot's ball left play: on the exit line, on the bucket's mouth, or where
    /// the stuck rule or the time limit found it (a spooky ball: its last flight's end).
    public private(set) var lastEnd: Vec2?

    /// A new game on `level`, as `GameState.init` with `rules` under version 2. `scene`, if it is
    /// this level's under these rules (`scene(level:rules:)`), is shared instead of built.
    public init(level: Level, rules: Rules = Rules(), seed: UInt64, scene: TOIScene? = nil) throws(LevelIssue) {
        var v1 = rules
        v1.physicsVersion = .fixedStep
        try self.init(state: GameState(level: level, rules: v1, seed: seed), scene: scene)
    }

    /// The game `state` (between shots) going on under v2: the pegs it removed are off the scene,
    /// the bucket where it is. So both engines can play a shot from one state.
    public init(state: GameState, scene: TOIScene? = nil) throws(LevelIssue) {
        self.state = try state.withPhysics(.timeOfImpact, scene: scene)
    }

    /// The scene of `level` under `rules`, to share between its games.
    public static func scene(level: Level, rules: Rules) -> TOIScene {
        TOIScene(obstacles: GameState.obstacles(level: level, rules: rules), config: rules.physics)
    }

    /// Puts the bucket at `phase` of its cycle, as `GameState.placeBucket` (for a new game).
    public mutating func placeBucket(phase: Double) { state.placeBucket(phase: phase) }

    /// Fires the cannon at `angle` radians from straight down, as `GameState.shoot`.
    public mutating func shoot(angle: Double, recordTrajectory: Bool = false) throws(ShotError) -> ShotResult {
        let (shot, end) = try state.playTOI(angle: angle, recordTrajectory: recordTrajectory, settle: true)
        lastEnd = end
        return shot
    }
}

extension GameState {
    /// Version 2's simulator for a new game on `scene` under `rules`.
    static func simulator(_ scene: TOIScene, _ rules: Rules) -> FlightSimulator {
        var sim = FlightSimulator(scene: scene)
        sim.shotRules = FlightSimulator.ShotRules(stuckDistance: rules.stuckDistance, stuckTime: rules.stuckTime)
        return sim
    }

    /// This game (between shots) going on under physics `version`: the same board, pegs, bucket,
    /// score and random stream, the next shot flown by that version. Throws the level's reason
    /// when the version cannot play it (`Level.physicsIssues`). `scene` (version 2), if it is this
    /// level's under these rules, is shared instead of built; another is not used.
    public func withPhysics(_ version: PhysicsVersion, scene: TOIScene? = nil) throws(LevelIssue) -> GameState {
        var game = self
        game.rules.physicsVersion = version
        if let issue = level.physicsIssues(rules: game.rules).first { throw issue }
        switch version {
        case .fixedStep:
            game.toi = nil
        case .timeOfImpact:
            // The board has not turned: only confusement pegs turn it, and v2 refuses them.
            let fits = scene.map { $0.config == rules.physics && $0.obstacles == Self.obstacles(level: level, rules: rules) } ?? false
            var sim = Self.simulator(fits ? scene! : TOIScene(obstacles: Self.obstacles(level: level, rules: rules), config: rules.physics),
                                     game.rules)
            for i in pegs.indices where pegs[i].isRemoved { sim.removeObstacle(i) }
            game.toi = sim
        }
        return game
    }

    /// One shot on version 2: `play`'s rules, v2's flight; and where the ball left play.
    mutating func playTOI(angle: Double, recordTrajectory: Bool, settle: Bool) throws(ShotError) -> (shot: ShotResult, end: Vec2) {
        guard status == .playing else { throw .gameOver }
        guard angle.isFinite, abs(angle) <= rules.maxAim else { throw .angleOutOfRange(angle: angle, limit: rules.maxAim) }
        // Out of `self` while it flies, so its arrays are not copied on every write.
        guard var sim = toi else { preconditionFailure("playTOI on a version 1 game") }
        toi = nil
        defer { toi = sim }
        if shotsTaken > 0 { roamPurple() }
        var shot = ShotResult(angle: angle)
        if recordTrajectory { shot.trajectory = Trajectory() }
        if case .classic = level.mode { ballsLeft -= 1 }

        let h = rules.physics.timeStep
        var limit = rules.shotTimeLimit
        if let left = timeLeft { limit = min(limit, left) }
        let maxSteps = Int((limit / h).rounded(.up))
        let timeLimit = Double(maxSteps) * h
        ballInfo.removeAll(keepingCapacity: true)
        ballInfo.append(BallInfo(id: 0, spooky: 0, anchor: rules.cannon, anchorTime: 0))
        let path = world.bucket.map(BucketPath.init)
        sim.bucket = path
        sim.recordsStepEnds = recordTrajectory
        sim.launch(position: rules.cannon, velocity: Vec2(Trig.sin(angle), Trig.cos(angle)) * rules.launchSpeed,
                   timeLimit: timeLimit)
        var ball: Int32 = 0
        // A picture's trajectory: the ball at launch, then at every step end (as v1 records it).
        func record(_ point: Vec2, at time: Double, newPath: Bool) {
            guard shot.trajectory != nil else { return }
            if newPath {
                shot.trajectory!.paths.append(.init(ball: ball, start: shot.trajectory!.bucketX.count, points: [point]))
            } else {
                shot.trajectory!.paths[shot.trajectory!.paths.count - 1].points.append(point)
            }
            shot.trajectory!.bucketX.append(path?.bucket(at: time).x ?? 0)
            shot.trajectory!.boardAngles.append(0)
        }
        func recordSteps() {
            guard recordTrajectory else { return }
            for e in sim.takeStepEnds() { record(e.position, at: e.time, newPath: false) }
        }
        record(rules.cannon, at: 0, newPath: true)
        var gone = timeLimit
        var end = rules.cannon
        flying: while true {
            let step = sim.advance()
            recordSteps()
            switch step {
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
                    ball += 1
                    record(p, at: at, newPath: true)
                    continue flying
                }
                break flying
            }
        }
        if shot.trajectory != nil, end != shot.trajectory!.paths.last?.points.last { record(end, at: gone, newPath: false) }
        sim.recordsStepEnds = false
        shot.steps = min(maxSteps, Int(Self.stepsTo(gone, h)))
        shot.duration = Double(shot.steps) * h
        world.bucket = path?.bucket(at: shot.duration)
        finish(&shot, settle: settle)
        // A search's state (`settle` false) is thrown away after the shot, as v1's physics is.
        if settle { for i in pegs.indices where pegs[i].isRemoved && sim.live[i] { sim.removeObstacle(i) } }
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
