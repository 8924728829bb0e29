import PeggleLevel
import PegglePhysics
import PegglePhysicsTOI
import PeggleUtilities

/// Whether the game goes on.
public enum GameStatus: String, Sendable, Equatable, Hashable, Codable {
    case playing, won, lost
}

/// The state of one peg during a game.
public struct PegState: Sendable, Equatable, Hashable, Codable {
    /// Current kind (purple moves between pegs; the others never change).
    public var kind: PegKind
    /// Touched this shot; removed when the shot ends.
    public var isLit = false
    /// Gone from the board.
    public var isRemoved = false
    /// Bounces on this peg in the current shot, for the stuck-ball rule.
    var impacts: Int32 = 0
}

/// A whole game in progress, as a value: copying it is how a search agent tries a shot without
/// touching the real game. Copies share storage until they diverge, so a copy is cheap.
/// Everything random draws from the state's own seeded generator.
public struct GameState: Sendable {
    public let level: Level
    /// Fixed for the game but for `withPhysics`, which moves a game between the physics versions.
    public internal(set) var rules: Rules
    /// The physics: pegs (obstacle ids `0..<pegs.count`), then blocks, balls, bucket, frame.
    public internal(set) var world: PhysicsWorld
    /// One entry per `level.pegs` entry.
    public internal(set) var pegs: [PegState]
    public internal(set) var status: GameStatus = .playing
    public internal(set) var score = 0
    /// Classic: balls left to shoot. Dodge: clean shots still needed. Beat the score: unused (0).
    public internal(set) var ballsLeft: Int
    public internal(set) var shotsTaken = 0
    /// Game time used by shots so far, seconds.
    public internal(set) var elapsed = 0.0
    public let orangeTotal: Int
    /// Orange pegs lit or removed so far (what the multiplier counts).
    public internal(set) var orangeHit = 0
    /// Orange pegs removed so far.
    public internal(set) var orangeCleared = 0
    /// Dodge: shots taken without touching a peg.
    public internal(set) var cleanShots = 0
    /// Dodge: touches the bucket has forgiven in advance.
    public internal(set) var chances = 0
    public internal(set) var rng: SeededGenerator

    /// How many pegs are purple each turn (the designer's count).
    let purpleSlots: Int
    /// Per-ball bookkeeping for the shot in progress.
    var ballInfo: [BallInfo] = []
    /// Green pegs waiting to explode (kaboom chains).
    var pendingExplosions: [Int] = []
    /// Scratch for obstacle queries.
    var scratch: [Int32] = []
    /// Version 2's flight (`rules.physicsVersion == .timeOfImpact`; TOIGame.swift), nil under
    /// version 1. Between shots it holds only what the level and `pegs` fix: its scene and which
    /// obstacles are off it. `world` stays the game's record of the board either way (the bucket,
    /// the store the stuck rule and spooky's re-entry ask).
    var toi: FlightSimulator?

    struct BallInfo: Sendable, Codable, Equatable {
        var id: Int32
        var spooky: Int
        var anchor: Vec2
        var anchorTime: Double
        var stuck = false
    }

    /// A new game on `level`. Throws the level's first problem if it is not valid.
    public init(level: Level, rules: Rules = Rules(), seed: UInt64) throws(LevelIssue) {
        if let issue = level.validate(rules: rules).first { throw issue }
        self.level = level
        self.rules = rules
        let obstacles = Self.obstacles(level: level, rules: rules)
        world = PhysicsWorld(config: rules.physics, obstacles: obstacles, bucket: rules.bucket)
        if rules.physicsVersion == .timeOfImpact { toi = Self.simulator(TOIScene(obstacles: obstacles, config: rules.physics), rules) }
        pegs = level.pegs.map { PegState(kind: $0.kind) }
        orangeTotal = level.count(of: .orange)
        purpleSlots = level.count(of: .purple)
        rng = SeededGenerator(seed: seed)
        switch level.mode {
        case let .classic(c): ballsLeft = c.balls
        case .beatTheScore: ballsLeft = 0
        case let .dodge(d): ballsLeft = d.shots
        }
        ballInfo.reserveCapacity(rules.physics.maxBalls)
        scratch.reserveCapacity(16)
    }

    /// The level's obstacles as the physics sees them: pegs (ids `0..<pegs.count`), then blocks.
    public static func obstacles(level: Level, rules: Rules) -> [Obstacle] {
        level.pegs.map { Obstacle(shape: $0.physicsShape, restitution: rules.restitution) }
            + level.blocks.map { Obstacle(shape: $0.physicsShape, restitution: $0.restitution(rules)) }
    }

    /// Restarts the random stream from `seed` (a copy of a fresh game becomes a new game).
    public mutating func reseed(_ seed: UInt64) { rng = SeededGenerator(seed: seed) }

    /// Whether the physics skips store sweeps the free-flight bound proves empty
    /// (`PhysicsWorld.freeFlight`): never changes a game; `.off` and `.checked` are for tests
    /// and measurements. Copies of the state keep it.
    public var freeFlight: FreeFlight {
        get { world.freeFlight }
        set { world.freeFlight = newValue }
    }

    // MARK: Reading the state

    public var isOver: Bool { status != .playing }

    /// Orange pegs still on the board.
    public var orangeRemaining: Int { orangeTotal - orangeCleared }

    /// The multiplier the next peg hit would score at.
    public var multiplier: Int { rules.multiplier(orangeHit: orangeHit, of: orangeTotal) }

    /// Beat the score: game seconds left; otherwise nil.
    public var timeLeft: Double? {
        if case let .beatTheScore(b) = level.mode { return max(0, b.timeLimit - elapsed) }
        return nil
    }

    /// Centre of peg `i` on the board now (pegs turn with the confusement flip), board units.
    public func pegCenter(_ i: Int) -> Vec2 { world.worldPoint(level.pegs[i].center) }

    /// Orientation of pegs and blocks relative to the level as designed, radians.
    public var boardAngle: Double { world.frame.angle }

    /// Bucket centre x (board units) and direction (+1 right, -1 left).
    public var bucket: (x: Double, direction: Double) { (world.bucket?.x ?? 0, world.bucket?.direction ?? 1) }

    /// Puts the bucket at `phase` of its back-and-forth cycle (0 to 1; a cycle is one trip right
    /// from `minX` to `maxX` and back): phase 0 is the left end moving right, 0.5 the right end
    /// moving left. Phase u maps to x by a triangle wave, so a uniform phase gives a uniform place
    /// and direction. The rules' own start (the board centre, moving right) is phase 0.25.
    /// For a new game: a game in progress is where its shots have left it.
    public mutating func placeBucket(phase: Double) {
        guard var b = world.bucket else { return }
        let span = b.maxX - b.minX
        let d = min(max(phase, 0), 1) * 2 * span
        if d < span {
            b.x = b.minX + d
            b.direction = 1
        } else {
            b.x = b.maxX - (d - span)
            b.direction = -1
        }
        world.bucket = b
    }

    // MARK: Shooting

    /// Fires the cannon at `angle` radians from straight down (positive toward +x) and simulates
    /// until no ball is left in play, the shot time limit, or (beat the score) the game's time
    /// limit. Lit pegs are removed at the end; score, balls and status are updated.
    public mutating func shoot(angle: Double, recordTrajectory: Bool = false) throws(ShotError) -> ShotResult {
        try play(angle: angle, recordTrajectory: recordTrajectory, settle: true)
    }

    /// What `shoot(angle:)` returns and the status it leaves, for a search that throws the state
    /// away: the same shot, except that the pegs removed at its end are not taken out of the
    /// physics (nothing steps this state again), which spares copying the obstacle store.
    public consuming func outcome(ofShooting angle: Double) throws(ShotError) -> (shot: ShotResult, status: GameStatus) {
        let shot = try play(angle: angle, recordTrajectory: false, settle: false)
        return (shot, status)
    }

    /// `shoot`; with `settle` false, the pegs lit at the end leave the game but stay in the physics.
    mutating func play(angle: Double, recordTrajectory: Bool, settle: Bool) throws(ShotError) -> ShotResult {
        if toi != nil { return try playVersion2(angle: angle, recordTrajectory: recordTrajectory, settle: settle).shot }
        return try playFixedStep(angle: angle, recordTrajectory: recordTrajectory, settle: settle)
    }

    /// Version 1's shot.
    @inline(__always)
    mutating func playFixedStep(angle: Double, recordTrajectory: Bool, settle: Bool) throws(ShotError) -> ShotResult {
        guard status == .playing else { throw .gameOver }
        guard angle.isFinite, abs(angle) <= rules.maxAim else { throw .angleOutOfRange(angle: angle, limit: rules.maxAim) }
        if shotsTaken > 0 { roamPurple() }
        var shot = ShotResult(angle: angle)
        if recordTrajectory { shot.trajectory = Trajectory() }
        if case .classic = level.mode { ballsLeft -= 1 }

        let velocity = Vec2(Trig.sin(angle), Trig.cos(angle)) * rules.launchSpeed
        world.removeAllBalls()
        ballInfo.removeAll(keepingCapacity: true)
        if let id = world.spawnBall(position: rules.cannon, velocity: velocity) { track(id) }
        if recordTrajectory { record(&shot) }

        var limit = rules.shotTimeLimit
        if let left = timeLeft { limit = min(limit, left) }
        let maxSteps = Int((limit / rules.physics.timeStep).rounded(.up))
        runSteps(&shot, maxSteps: maxSteps, recordTrajectory: recordTrajectory)
        shot.duration = Double(shot.steps) * rules.physics.timeStep
        finish(&shot, settle: settle)
        return shot
    }

    /// Version 1's steps until no ball is in play or `maxSteps` in all (`shot.steps` counts them).
    @inline(__always)
    mutating func runSteps(_ shot: inout ShotResult, maxSteps: Int, recordTrajectory: Bool) {
        while world.activeBallCount > 0 {
            if shot.steps >= maxSteps {
                shot.timedOut = true
                world.removeAllBalls()
                break
            }
            // Free flight: steps in which the one ball provably touches nothing run in the
            // world's tight loop, which applies the stuck rule's anchor as `checkStuck` would.
            // Tried only after a step whose last sweep the bound skipped (else it would fail).
            if world.freeFlightLikely, world.activeBallCount == 1, ballInfo.count == 1, !ballInfo[0].stuck,
               ballInfo[0].id == world.ball(at: 0).id {
                var entry = ballInfo[0]
                let free = world.flyFree(limit: recordTrajectory ? 1 : maxSteps - shot.steps, anchor: &entry.anchor,
                                         anchorTime: &entry.anchorTime,
                                         stuckDistanceSquared: rules.stuckDistance * rules.stuckDistance)
                if free.steps > 0 {
                    ballInfo[0] = entry
                    shot.steps += free.steps
                    // The last step's anchor did not move: the full check decides (it may unstick).
                    if !free.anchorMoved { checkStuck(&shot) }
                    if recordTrajectory { record(&shot) }
                    continue
                }
            }
            world.step()
            shot.steps += 1
            // Most steps have no contact, and most shots record nothing: skip the calls then.
            if world.contactCount > 0 { handleContacts(&shot) }
            checkStuck(&shot)
            if recordTrajectory { record(&shot) }
        }
    }

    mutating func track(_ id: Int32, spooky: Int = 0) {
        let last = world.activeBallCount - 1
        ballInfo.append(BallInfo(id: id, spooky: spooky, anchor: last >= 0 ? world.ball(at: last).position : .zero,
                                 anchorTime: world.time))
    }

    func info(_ id: Int32) -> Int? { ballInfo.firstIndex { $0.id == id } }

    mutating func record(_ shot: inout ShotResult) {
        guard shot.trajectory != nil else { return }
        for b in world.balls {
            if let k = shot.trajectory!.paths.lastIndex(where: { $0.ball == b.id }) {
                shot.trajectory!.paths[k].points.append(b.position)
            } else {
                shot.trajectory!.paths.append(.init(ball: b.id, start: shot.trajectory!.bucketX.count, points: [b.position]))
            }
        }
        shot.trajectory!.bucketX.append(world.bucket?.x ?? 0)
        shot.trajectory!.boardAngles.append(world.frame.angle)
    }

    mutating func handleContacts(_ shot: inout ShotResult) {
        let count = world.contactCount
        var k = 0
        while k < count {
            let c = world.contact(at: k)
            k += 1
            switch c.kind {
            case .obstacle where Int(c.other) < pegs.count:
                let i = Int(c.other)
                if c.impactSpeed >= rules.physics.restingSpeed {
                    pegs[i].impacts += 1
                    if pegs[i].impacts >= Int32(rules.stuckImpacts), let b = info(c.ball) { ballInfo[b].stuck = true }
                }
                if !pegs[i].isLit && !pegs[i].isRemoved { light(i, contact: c, &shot) }
                drainExplosions(&shot)
            case .caught:
                shot.caught += 1
                if let b = info(c.ball) { ballInfo.remove(at: b) }
            case .fellOut:
                guard let b = info(c.ball) else { break }
                let spooky = ballInfo[b].spooky
                ballInfo.remove(at: b)
                if spooky > 0 {
                    // Spooky: back in at the top, same x, same velocity.
                    let r = rules.physics.ballRadius
                    let x = min(max(c.point.x, r + 1), rules.physics.boardWidth - r - 1)
                    if let id = world.spawnBall(position: Vec2(x, r + 1), velocity: c.velocityBefore) {
                        world.separateBall(id: id)
                        track(id, spooky: spooky - 1)
                    }
                }
            default:
                break
            }
        }
    }

    /// Lights peg `i`: scores it and sets off what its kind does.
    mutating func light(_ i: Int, contact: Contact?, _ shot: inout ShotResult) {
        pegs[i].isLit = true
        let kind = pegs[i].kind
        // The multiplier in force when the peg is touched; an orange peg raises it for later pegs.
        shot.points += rules.points(for: kind) * multiplier
        if kind == .orange { orangeHit += 1 }
        shot.hits[kind] += 1
        shot.trajectory?.litPegs.append(i)
        shot.trajectory?.litAngles.append(world.frame.angle)
        if let step = shot.trajectory?.bucketX.count { shot.trajectory!.litSteps.append(step) }
        switch kind {
        case .green:
            shot.powers += 1
            firePower(i, contact: contact, &shot)
        case .zombie:
            becomeBall(i, contact: contact)
        case .confusement:
            world.startTurn(by: Trig.pi, rate: Trig.pi / rules.flipDuration)
            shot.flips += 1
        case .blue, .orange, .purple:
            break
        }
    }

    mutating func firePower(_ i: Int, contact: Contact?, _ shot: inout ShotResult) {
        switch level.power {
        case .none:
            break
        case .kaboom:
            pendingExplosions.append(i)
        case .spooky:
            if let c = contact, let b = info(c.ball) { ballInfo[b].spooky += rules.spookyReentries }
        case .multiball:
            guard let c = contact, let k = world.index(of: c.ball) else { break }
            let ball = world.ball(at: k)
            let half = rules.multiballSplit / 2
            world.placeBall(id: ball.id, position: ball.position, velocity: ball.velocity.rotated(by: half))
            if let id = world.spawnBall(position: ball.position, velocity: ball.velocity.rotated(by: -half)) {
                track(id)
            }
        }
    }

    /// Kaboom: each pending green peg lights every peg whose surface is within `kaboomRadius` of
    /// its centre; green pegs lit that way explode in turn.
    mutating func drainExplosions(_ shot: inout ShotResult) {
        while let g = pendingExplosions.popLast() {
            let center = level.pegs[g].center
            shot.trajectory?.explosions.append(world.worldPoint(center))
            for j in pegs.indices where !pegs[j].isLit && !pegs[j].isRemoved {
                if ObstacleStore.distance(from: center, to: level.pegs[j].physicsShape) <= rules.kaboomRadius {
                    light(j, contact: nil, &shot)
                }
            }
        }
    }

    /// Zombie: the peg leaves the board at once and a ball takes its place, moving away from the
    /// ball that hit it with that ball's closing speed times the restitution.
    mutating func becomeBall(_ i: Int, contact: Contact?) {
        pegs[i].isRemoved = true
        world.store.disable(i)
        let at = pegCenter(i)
        var velocity = Vec2(0, 0)
        if let c = contact { velocity = c.normal * (c.velocityBefore.dot(c.normal) * rules.restitution) }
        if let id = world.spawnBall(position: at, velocity: velocity) {
            world.separateBall(id: id)
            track(id)
        }
    }

    /// The stuck-ball rule: a ball that stays within `stuckDistance` for `stuckTime`, or that has
    /// bounced `stuckImpacts` times on one peg, has the lit pegs it touches removed early; if it
    /// touches none (wedged on blocks), the ball itself is taken out.
    @inline(__always)
    mutating func checkStuck(_ shot: inout ShotResult) {
        var k = 0
        while k < world.activeBallCount {
            let ball = world.ball(at: k)
            k += 1
            guard let b = info(ball.id) else { continue }
            // One read and at most one write of the entry per step (this runs every step).
            // (The bounce-count rule may have flagged a ball that is still moving.)
            var entry = ballInfo[b]
            if (ball.position - entry.anchor).lengthSquared > rules.stuckDistance * rules.stuckDistance {
                entry.anchor = ball.position
                entry.anchorTime = world.time
            } else if world.time - entry.anchorTime >= rules.stuckTime - 1e-9 {
                entry.stuck = true
            }
            guard entry.stuck else {
                ballInfo[b] = entry
                continue
            }
            entry.stuck = false
            entry.anchorTime = world.time
            ballInfo[b] = entry
            if unstick(ball, info: b, &shot) { k -= 1 }
        }
    }

    /// A stuck ball (rare): removes the lit pegs it touches, or the ball itself if it touches
    /// none. Returns whether the ball was taken out. Out of line, so the per-step check above
    /// stays small.
    @inline(never)
    mutating func unstick(_ ball: Ball, info b: Int, _ shot: inout ShotResult) -> Bool {
        world.store.touching(center: world.localPoint(ball.position), margin: rules.stuckReach, into: &scratch)
        var removed = 0
        for id in scratch where Int(id) < pegs.count {
            let i = Int(id)
            guard pegs[i].isLit, !pegs[i].isRemoved else { continue }
            remove(i, &shot)
            removed += 1
        }
        shot.stuckRemovals += removed
        guard removed == 0 else { return false }
        world.removeBall(id: ball.id)
        ballInfo.remove(at: b)
        shot.stuckBalls += 1
        return true
    }

    mutating func remove(_ i: Int, _ shot: inout ShotResult, fromPhysics: Bool = true) {
        pegs[i].isRemoved = true
        if fromPhysics { world.store.disable(i) }
        if pegs[i].kind == .orange {
            orangeCleared += 1
            shot.orangeCleared += 1
        }
    }

    mutating func finish(_ shot: inout ShotResult, settle: Bool) {
        // A flip still under way completes now: no ball is left for it to push, and the next
        // aim (and any observer) must see the board at rest.
        world.completeTurn()
        for i in pegs.indices {
            pegs[i].impacts = 0
            if pegs[i].isLit && !pegs[i].isRemoved { remove(i, &shot, fromPhysics: settle) }
        }
        score += shot.points
        shot.freeBalls = shot.caught + rules.freeBalls(forShotPoints: shot.points)
        elapsed += shot.duration
        shotsTaken += 1
        switch level.mode {
        case .classic:
            ballsLeft += shot.freeBalls
            if orangeCleared == orangeTotal { status = .won } else if ballsLeft <= 0 { status = .lost }
        case let .beatTheScore(b):
            if score >= b.targetScore { status = .won } else if elapsed >= b.timeLimit - 1e-9 { status = .lost }
        case let .dodge(d):
            let needed = d.shots
            chances += shot.caught
            if shot.hits.total > 0 {
                if chances > 0 { chances -= 1 } else { status = .lost }
            } else {
                cleanShots += 1
            }
            ballsLeft = needed - cleanShots
            if status == .playing && cleanShots >= needed { status = .won }
        }
    }

    /// Original Peggle's roaming purple: at the start of each turn after the first, unlit purple
    /// pegs turn blue and as many random blue pegs (the designer's purple count) turn purple.
    /// A purple peg moves: the pegs that were purple are drawn again only if no other blue is left.
    mutating func roamPurple() {
        guard level.purpleRoams, purpleSlots > 0 else { return }
        scratch.removeAll(keepingCapacity: true)
        for i in pegs.indices where pegs[i].kind == .blue && !pegs[i].isRemoved { scratch.append(Int32(i)) }
        let fresh = scratch.count
        for i in pegs.indices where pegs[i].kind == .purple && !pegs[i].isRemoved {
            pegs[i].kind = .blue
            scratch.append(Int32(i))
        }
        if fresh >= purpleSlots { scratch.removeLast(scratch.count - fresh) }
        for _ in 0..<min(purpleSlots, scratch.count) {
            let k = rng.nextInt(below: scratch.count)
            pegs[Int(scratch[k])].kind = .purple
            scratch.swapAt(k, scratch.count - 1)
            scratch.removeLast()
        }
    }
}
