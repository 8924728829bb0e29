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
/// Where a second ball or a turning board comes in, version 1's steps play the rest of the shot
/// (`GameState.playVersion2`). Deterministic: values only, no state shared between games.
public struct TOIGame: Sendable {
    public private(set) var state: GameState
    /// Where the latest shot's ball left play: on the exit line, on the bucket's mouth, or where
    /// the stuck rule or the time limit found it (a spooky ball: its last flight's end); nil
    /// when version 1 played the shot or its end (`GameState.playVersion2`).
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
        let (shot, end) = try state.playVersion2(angle: angle, recordTrajectory: recordTrajectory, settle: true)
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
            // On a turned board version 1 plays the shots (`playVersion2`); the scene stays the level's.
            let fits = scene.map { $0.config == rules.physics && $0.obstacles == Self.obstacles(level: level, rules: rules) } ?? false
            var sim = Self.simulator(fits ? scene! : TOIScene(obstacles: Self.obstacles(level: level, rules: rules), config: rules.physics),
                                     game.rules)
            for i in pegs.indices where pegs[i].isRemoved { sim.removeObstacle(i) }
            game.toi = sim
        }
        return game
    }

    /// A shot of a game under version 2's rules, and where its ball left play (nil: version 1
    /// played the shot, or its end). Version 2 flies one ball among fixed obstacles; what it
    /// cannot fly it hands to version 1's steps (`runSteps`), in the same game state:
    /// - a shot that starts on a turned board (after a confusement flip) is version 1's whole;
    /// - when a peg's lighting puts a second ball in play (multiball's green peg, a zombie peg,
    ///   also through a kaboom) or starts the board turning (a confusement peg), the ball goes
    ///   into version 1's world where the contact left it, and version 1 plays the rest of the
    ///   shot from the start of the step the contact was in (the ball's clock moves back by less
    ///   than a step; its stuck-rule anchor starts again there); so does a ball a contact leaves
    ///   faster than `fastestBall`.
    /// Afterwards the pegs the shot removed leave version 2's scene too.
    mutating func playVersion2(angle: Double, recordTrajectory: Bool, settle: Bool) throws(ShotError) -> (shot: ShotResult, end: Vec2?) {
        if boardAngle == 0 { return try playTOI(angle: angle, recordTrajectory: recordTrajectory, settle: settle) }
        let shot = try playFixedStep(angle: angle, recordTrajectory: recordTrajectory, settle: settle)
        if settle { syncScene() }
        return (shot, nil)
    }

    /// Takes the pegs removed off version 2's scene.
    mutating func syncScene() {
        guard toi != nil else { return }
        for i in pegs.indices where pegs[i].isRemoved && toi!.live[i] { toi!.removeObstacle(i) }
    }

    /// Whether lighting a peg of `kind` needs version 1 (a second ball, or a turning board).
    func lightingNeedsFixedStep(_ kind: PegKind) -> Bool {
        switch kind {
        case .zombie, .confusement: true
        case .green: level.power == .multiball
        case .blue, .orange, .purple: false
        }
    }

    /// Puts version 2's ball into version 1's world at `point` with `velocity` (a contact at
    /// `time`), with the shot's step count and the bucket at the start of that contact's step,
    /// for `runSteps` to play on. Returns the ball's id in the world.
    mutating func handOff(_ point: Vec2, _ velocity: Vec2, at time: Double, _ shot: inout ShotResult, path: BucketPath?) -> Int32 {
        let h = rules.physics.timeStep
        let done = max(Int(Self.stepsTo(time, h)) - 1, 0)
        shot.steps = done
        world.bucket = path?.bucket(at: Double(done) * h)
        guard let id = world.spawnBall(position: point, velocity: velocity) else { return -1 }
        // Version 2's entry (always the first) becomes the world ball's; a zombie's spawned
        // meanwhile keeps its own.
        ballInfo[0] = BallInfo(id: id, spooky: ballInfo[0].spooky, anchor: point, anchorTime: world.time)
        return id
    }

    /// One shot on version 2 from an unturned board: `play`'s rules, v2's flight.
    mutating func playTOI(angle: Double, recordTrajectory: Bool, settle: Bool) throws(ShotError) -> (shot: ShotResult, end: Vec2?) {
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
        // Version 2's paths count down from -1, apart from version 1's ball ids (a hand-off).
        var ball: Int32 = -1
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
        var handedOff = false
        flying: while true {
            let step = sim.advance()
            recordSteps()
            switch step {
            case let .contact(e):
                let i = Int(e.other)
                // A ball sped up past what version 2's roots resolve: version 1 from here.
                let tooFast = e.velocityAfter.lengthSquared > Self.fastestBall * Self.fastestBall
                guard i < pegs.count else {
                    guard tooFast else { continue }
                    _ = handOff(e.point, e.velocityAfter, at: e.time, &shot, path: path)
                    handedOff = true
                    break flying
                }
                if e.impactSpeed >= rules.physics.restingSpeed {
                    pegs[i].impacts += 1
                    if pegs[i].impacts >= Int32(rules.stuckImpacts) { sim.flagStuck() }
                }
                if !pegs[i].isLit && !pegs[i].isRemoved {
                    // A peg whose lighting needs version 1 gets the ball from its world.
                    handedOff = lightingNeedsFixedStep(pegs[i].kind)
                    let id = handedOff ? handOff(e.point, e.velocityAfter, at: e.time, &shot, path: path) : 0
                    light(i, contact: Contact(kind: .obstacle, ball: id, other: e.other, point: e.point, normal: e.normal,
                                              impactSpeed: e.impactSpeed, velocityBefore: e.velocityBefore, time: e.time), &shot)
                }
                drainExplosions(&shot)
                // A kaboom that lit a zombie or confusement peg, or a ball too fast: version 1 from here too.
                if !handedOff, world.activeBallCount > 0 || world.frame.isTurning || tooFast {
                    _ = handOff(e.point, e.velocityAfter, at: e.time, &shot, path: path)
                    handedOff = true
                }
                if handedOff { break flying }
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
                    ball -= 1
                    record(p, at: at, newPath: true)
                    continue flying
                }
                break flying
            }
        }
        sim.recordsStepEnds = false
        if handedOff {
            if recordTrajectory { self.record(&shot) }
            runSteps(&shot, maxSteps: maxSteps, recordTrajectory: recordTrajectory)
        } else {
            if shot.trajectory != nil, end != shot.trajectory!.paths.last?.points.last { record(end, at: gone, newPath: false) }
            shot.steps = min(maxSteps, Int(Self.stepsTo(gone, h)))
            world.bucket = path?.bucket(at: Double(shot.steps) * h)
        }
        shot.duration = Double(shot.steps) * h
        finish(&shot, settle: settle)
        // A search's state (`settle` false) is thrown away after the shot, as v1's physics is.
        if settle { for i in pegs.indices where pegs[i].isRemoved && sim.live[i] { sim.removeObstacle(i) } }
        return (shot, handedOff ? nil : end)
    }

    /// The speed (units/s) past which version 2 hands a ball to version 1's steps. Bounces keep or
    /// lose speed at restitution up to 1, so no shot comes near it (the launch is 600 units/s, a fall
    /// down the whole board adds under 800); only restitution above 1 on both sides of a pocket
    /// speeds a ball up without bound, 10% a bounce (generated levels' bouncy blocks). There
    /// version 2's roots, whose time tolerance is fixed, lose the contact slop at some 1e150
    /// units/s and the ball leaves through a wall (the whole-game fuzz found it in 103 shots of a
    /// million); version 1's sweeps hold at any speed and its stuck rule ends such a ball.
    static let fastestBall = 100_000.0

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
