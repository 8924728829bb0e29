import PegglePhysics

/// What ended a simulated flight.
public enum FlightEnd: UInt8, Sendable, Equatable {
    /// The centre reached `PhysicsConfig.exitY` (the position is on that line).
    case fellOut
    /// The time limit.
    case timeLimit
    /// Resting on two surfaces that hold it against gravity with no speed left: among static
    /// obstacles nothing will ever move it again, so its end is where it is.
    case atRest
    /// A position or velocity stopped being finite (never seen; the ball is dropped as v1 drops it).
    case nonFinite
    /// The centre crossed the bucket's mouth (the rims' top line between their inner faces), as
    /// v1's `caught` (the position is on that line).
    case caught
}

/// One event of a flight, in time order.
public struct FlightEvent: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        /// A static obstacle; `other` is its index.
        case obstacle
        /// A wall; `other` is 0 left, 1 right, 2 top.
        case wall
        /// A slide along a side came to the side's end, or a glide along a peg's tangent to the
        /// end of its fixed step (the ball flies free again).
        case slideEnd
        /// The event budget of one `timeStep` was spent: the ball stood still to the step's end.
        case parked
        /// A rim of the moving bucket (`other` is -1).
        case bucketRim
    }
    public var kind: Kind
    public var other: Int32
    /// Time since launch, seconds.
    public var time: Double
    /// Centre after the event's response.
    public var point: Vec2
    /// Contact normal toward the ball, zero for slide ends and parking.
    public var normal: Vec2
    /// Closing speed before the response, units/s.
    public var impactSpeed: Double
    /// Velocity just before the event.
    public var velocityBefore: Vec2
    /// Velocity after it.
    public var velocityAfter: Vec2
}

/// How a flight ended.
public struct FlightOutcome: Sendable, Equatable {
    public var end: FlightEnd
    /// Centre at the end.
    public var position: Vec2
    public var velocity: Vec2
    /// Time since launch at the end, seconds.
    public var time: Double
    /// Events (contacts, slide ends, parkings) on the way.
    public var events: Int
}

/// Version 2 of the physics, its first piece: one ball among static obstacles, from launch until
/// it leaves the board, comes to rest or reaches a time limit, by times of impact.
///
/// The ball flies a closed-form parabola (`Flight`). Over a window of its path (about one grid
/// cell long) the broad phase collects the primitives the path's bounding box touches; the next
/// event is the earliest root (`Roots.earliestEntry`) of all their gap polynomials and of the
/// walls, the exit line and a slide's end; with none, the next window. At an event the ball is
/// put at the root and resolved with v1's rules (`Resolve`), and a new flight starts there.
///
/// - Resting contacts (closing speed under `restingSpeed`, no bounce) against a side with gravity
///   pressing into it become a slide: the flight's acceleration is gravity less its part along the
///   normal, so the ball runs along the side in closed form until the side ends or something else
///   is hit (v1 gets the same motion from its fixed step and the resting response).
/// - A resting contact right after another one, on surfaces that together hold gravity, with less
///   than `restingSpeed` left, ends the flight at rest (a ball wedged between two pegs).
/// - A ball may take part in `maxEventsPerSubstep` events per `timeStep` of time (v1's budget per
///   sub-step); past it, it stands still until that step's end as v1 parks it, its velocity
///   unchanged. So events per second are bounded, time always advances, and parking never adds
///   energy (it once added gravity's impulse over the wait without the fall that pays for it: a
///   ball resting on a peg, parked every step, gained speed until it hopped out of a wedge).
///
/// For a shot of a game (`shotRules` set, `bucket` set, `launch` then `advance` until an end):
/// - the bucket is a kinematic body on its known path (`BucketPath`): within one straight piece
///   of it, the ball's flight in the bucket's frame is a parabola too, so its rims (a top cap and
///   two faces each, as v1's) and its mouth are solved as static primitives there, each window
///   cut at the bucket's turns; a rim contact responds with the rim's velocity, as v1's;
/// - every obstacle contact is handed back (`FlightStep.contact`), so the caller lights pegs and
///   counts impacts, and may flag the ball stuck (`flagStuck`);
/// - the stuck rule's anchor is v1's on v1's samples: the ball's position at every step end it
///   passes; a stuck step end is handed back (`FlightStep.stuck`) for the caller to remove pegs
///   (`removeObstacle`: a scene edit, the obstacle's primitives skipped from then on) or the ball;
/// - a ball at rest waits (nothing moves it) until the stuck rule takes its pegs away or the time
///   limit comes, instead of ending the flight.
///
/// Deterministic: IEEE arithmetic in a fixed order on the inputs alone, no state between runs
/// besides scratch that never changes a result. Not handled: turning boards, moving pegs, several
/// balls (multiball, zombie pegs): game drivers refuse levels that have them.
public struct FlightSimulator: Sendable {
    public let scene: TOIScene
    public var config: PhysicsConfig { scene.config }
    /// Record every event in `events` (tests and pictures; off for measurements).
    public var recordsEvents = false
    /// Events since the latest `launch` (or `run`), when recorded.
    public private(set) var events: [FlightEvent] = []
    /// Record the ball's centre at every step end the stuck rule samples (`takeStepEnds`), for
    /// pictures: v1's trajectories are sampled at step ends too. Never changes a flight.
    public var recordsStepEnds = false
    /// Step ends recorded and not yet taken.
    var stepEnds: [StepEnd] = []
    /// The moving bucket, as it is at time 0 of the shot; nil: none.
    public var bucket: BucketPath?
    /// The game's rules for a shot; nil: a bare flight (`run`: obstacle contacts are not handed
    /// back, no stuck rule, a ball at rest ends the flight).
    public var shotRules: ShotRules?
    /// Per obstacle, whether it is still on the board (`removeObstacle`).
    public private(set) var live: [Bool]
    /// Query stamps of the primitives, so a primitive in several cells is tested once a window.
    var circleStamp: [UInt32], edgeStamp: [UInt32]
    var stamp: UInt32 = 0
    /// The flight in progress between `advance` calls.
    var progress = Progress()

    public init(obstacles: [Obstacle], config: PhysicsConfig) {
        self.init(scene: TOIScene(obstacles: obstacles, config: config))
    }

    public init(scene: TOIScene) {
        self.scene = scene
        circleStamp = Array(repeating: 0, count: scene.circles.count)
        edgeStamp = Array(repeating: 0, count: scene.edges.count)
        live = Array(repeating: true, count: scene.obstacles.count)
    }

    /// The stuck-ball rule's physical part (v1's `GameState.checkStuck`): a ball that stays within
    /// `stuckDistance` of its anchor, sampled at step ends, for `stuckTime` is stuck.
    public struct ShotRules: Sendable, Equatable {
        public var stuckDistance: Double
        public var stuckTime: Double
        public init(stuckDistance: Double, stuckTime: Double) {
            self.stuckDistance = stuckDistance
            self.stuckTime = stuckTime
        }
    }

    /// The ball's centre at a step end (`recordsStepEnds`).
    public struct StepEnd: Sendable, Equatable {
        /// Seconds since the shot began: a whole number of `timeStep`s.
        public var time: Double
        public var position: Vec2
    }

    /// The step ends recorded since the last call, oldest first (shot rules only: they are the
    /// stuck rule's samples).
    public mutating func takeStepEnds() -> [StepEnd] {
        defer { stepEnds.removeAll(keepingCapacity: true) }
        return stepEnds
    }

    /// What `advance` stopped at.
    public enum Step: Sendable, Equatable {
        /// A contact with a static obstacle (shot rules only), already resolved: the flight goes
        /// on from it at the next `advance`.
        case contact(FlightEvent)
        /// The ball was stuck at this step end (shot rules only), at this position: the caller
        /// removes obstacles (`removeObstacle`), or the ball (and stops advancing).
        case stuck(time: Double, position: Vec2)
        /// The flight ended.
        case end(FlightOutcome)
    }

    struct Progress: Sendable {
        var flight = Flight(origin: .zero, velocity: .zero, acceleration: .zero)
        var start = 0.0                     // launch time of `flight`, seconds since the shot began
        var tau = 0.0                       // time into `flight` reached so far
        var count = 0
        var windowIndex = -1.0, windowEvents = 0
        var slide = -1                      // edge slid along, or -1
        var glide = -1                      // circle glided off along its tangent, or -1
        var glideEnd = 0.0                  // time into `flight` at which the glide ends
        var lastRestNormal = Vec2.zero      // normal of the previous event if it was resting
        var lastRestSurface: Int64 = -1     // and what it was with (kind and index)
        var timeLimit = 0.0
        var finished = true
        /// At rest (shot rules): still until the stuck rule or the time limit.
        var resting = false
        /// The stuck rule: anchor, its time, the next step end to sample (its index), the flag.
        var anchor = Vec2.zero, anchorTime = 0.0, nextStep = 1.0, stuckFlag = false
    }

    enum Next { case none, circle(Int), edge(Int), wall(Int), exit, slideEnd, rimCap(Int), rimFace(Int, Int), caught }

    /// Takes obstacle `index` off the board (a peg removed): its primitives are skipped from now
    /// on. A flight in progress goes on from where it is, under gravity (its slide or rest may
    /// have been on that obstacle).
    public mutating func removeObstacle(_ index: Int) {
        precondition(index >= 0 && index < live.count, "obstacle \(index) is not in the scene (\(live.count) obstacles)")
        live[index] = false
        guard !progress.finished else { return }
        var s = progress
        let t = Swift.max(s.tau, 0)
        s.flight = Flight(origin: s.flight.position(at: t), velocity: s.flight.velocity(at: t), acceleration: config.gravity)
        s.start += t
        s.tau = 0
        s.slide = -1
        s.glide = -1
        s.lastRestNormal = .zero
        s.resting = false
        progress = s
    }

    /// Puts every obstacle back on the board (a new game on the same scene).
    public mutating func restoreObstacles() {
        for i in live.indices { live[i] = true }
    }

    /// Marks the ball stuck (v1's impact count): the next step end hands it back as stuck.
    public mutating func flagStuck() { progress.stuckFlag = true }

    /// Starts a flight at `time` (seconds since the shot began) from `position` with `velocity`,
    /// to run to `timeLimit` at most; the stuck rule's anchor starts there.
    public mutating func launch(position: Vec2, velocity: Vec2, at time: Double = 0, timeLimit: Double) {
        events.removeAll(keepingCapacity: true)
        var s = Progress()
        s.flight = Flight(origin: position, velocity: velocity, acceleration: config.gravity)
        s.start = time
        s.timeLimit = timeLimit
        s.finished = false
        s.anchor = position
        s.anchorTime = time
        s.nextStep = (time / config.timeStep).rounded(.down) + 1
        progress = s
    }

    /// Flies one ball launched at `position` with `velocity` until it leaves the board, rests, or
    /// `timeLimit` seconds pass. Without shot rules.
    public mutating func run(position: Vec2, velocity: Vec2, timeLimit: Double) -> FlightOutcome {
        precondition(shotRules == nil, "run flies a bare flight; a shot with rules is played by launch and advance")
        launch(position: position, velocity: velocity, timeLimit: timeLimit)
        while true {
            if case let .end(o) = advance() { return o }
        }
    }

    /// Samples the step ends up to `until` for the stuck rule; returns a stuck one.
    @inline(__always)
    static func sample(_ s: inout Progress, through until: Double, rules: ShotRules, h: Double,
                       log: inout [StepEnd], logging: Bool) -> (time: Double, position: Vec2)? {
        let reach = rules.stuckDistance * rules.stuckDistance
        while true {
            let T = s.nextStep * h
            guard T <= until else { return nil }
            s.nextStep += 1
            // A parked ball waits at its flight's origin until the flight starts.
            let p = s.flight.position(at: Swift.max(T - s.start, 0))
            if logging { log.append(StepEnd(time: T, position: p)) }
            if (p - s.anchor).lengthSquared > reach {
                s.anchor = p
                s.anchorTime = T
            } else if T - s.anchorTime >= rules.stuckTime - 1e-9 {
                s.stuckFlag = true
            }
            if s.stuckFlag {
                s.stuckFlag = false
                s.anchorTime = T
                // The flight resumes from this step end (any event found beyond it is found again).
                if T - s.start > s.tau { s.tau = T - s.start }
                return (T, p)
            }
        }
    }

    /// Flies on to the next thing the caller must see: an obstacle contact or a stuck step end
    /// (shot rules only), or the flight's end.
    public mutating func advance() -> Step {
        precondition(!progress.finished, "no flight in progress: launch one first")
        var s = progress
        defer { progress = s }
        // The step-end log moves out of `self` for the loop (as the query stamps do), and only
        // when it is on: a flight recorded nothing otherwise and pays for nothing.
        let logging = recordsStepEnds
        var log: [StepEnd] = []
        if logging { swap(&log, &stepEnds) }
        defer { if logging { swap(&log, &stepEnds) } }
        let cfg = scene.config
        let g = cfg.gravity, r = cfg.ballRadius, h = cfg.timeStep
        let budget = cfg.maxEventsPerSubstep
        let rules = shotRules
        guard s.flight.origin.isFinite, s.flight.velocity.isFinite else {
            return Self.ended(&s, FlightOutcome(end: .nonFinite, position: s.flight.origin, velocity: s.flight.velocity, time: s.start,
                                        events: 0))
        }
        while true {
            let now = s.start + s.tau
            let timeLimit = s.timeLimit
            if s.resting || !(now < timeLimit) {
                // At rest nothing moves the ball until the stuck rule does.
                if let rules, let stuck = Self.sample(&s, through: timeLimit, rules: rules, h: h, log: &log, logging: logging) {
                    return .stuck(time: stuck.time, position: stuck.position)
                }
                let t = timeLimit - s.start
                return Self.ended(&s, FlightOutcome(end: .timeLimit, position: s.flight.position(at: t), velocity: s.flight.velocity(at: t),
                                            time: timeLimit, events: s.count))
            }
            let tau = s.tau
            let flight = s.flight
            let v = flight.velocity(at: tau)
            let speed = v.length + flight.acceleration.length * 0.01
            // A window about one cell long, so its bounding box touches few cells.
            let span = Swift.min(cfg.gridCellSize / Swift.max(speed, 1), 0.1, timeLimit - now)
            var best = tau + span
            // A limit closer than time can resolve at this magnitude: it has been reached.
            guard best > tau else {
                if let rules, let stuck = Self.sample(&s, through: timeLimit, rules: rules, h: h, log: &log, logging: logging) {
                    return .stuck(time: stuck.time, position: stuck.position)
                }
                return Self.ended(&s, FlightOutcome(end: .timeLimit, position: flight.position(at: tau), velocity: flight.velocity(at: tau),
                                            time: timeLimit, events: s.count))
            }
            // The bucket's straight piece now; the window ends where it turns.
            let piece = bucket?.piece(at: now)
            if let piece, piece.end - s.start > tau, piece.end - s.start < best { best = piece.end - s.start }
            var next = Next.none

            // The window's path lies in this box, and within `bulge` of its chord (a parabola
            // leaves its chord by at most |a| T^2 / 8 over a window T long): primitives beyond
            // either are not solved for (most candidates of a window: the polynomials cost far
            // more than these tests).
            let whole = flight.bounds(from: tau, to: best)
            let c0 = flight.position(at: tau), c1 = flight.position(at: best)
            let chord = c1 - c0, chordLength2 = chord.lengthSquared
            let bulge = flight.acceleration.length * (best - tau) * (best - tau) * 0.125
            // Rounding of the positions (relative 1e-15 of the board's size) and the roots.
            let slack = bulge + 1e-6
            /// Whether a circle of radius `rc` at `c` may meet the window's path.
            @inline(__always) func nearChord(_ c: Vec2, _ rc: Double) -> Bool {
                let m = c - c0
                let f = chordLength2 > 0 ? Swift.min(Swift.max(m.dot(chord) / chordLength2, 0), 1) : 0
                let reach = rc + slack
                return (m - chord * f).lengthSquared <= reach * reach
            }

            // Walls and the exit line: gaps that are linear-plus-quadratic in time, solved only
            // when the window's box reaches them.
            if cfg.leftWall, whole.min.x <= r, let t = Roots.earliestEntry(flight.distance(along: Vec2(1, 0), from: .zero, offset: r), from: tau, to: best) {
                best = t; next = .wall(0)
            }
            if cfg.rightWall, whole.max.x >= cfg.boardWidth - r, let t = Roots.earliestEntry(flight.distance(along: Vec2(-1, 0), from: Vec2(cfg.boardWidth, 0), offset: r),
                                                          from: tau, to: best) {
                best = t; next = .wall(1)
            }
            if cfg.topWall, whole.min.y <= r, let t = Roots.earliestEntry(flight.distance(along: Vec2(0, 1), from: .zero, offset: r), from: tau, to: best) {
                best = t; next = .wall(2)
            }
            if whole.max.y >= cfg.exitY,
               let t = Roots.earliestEntry(flight.distance(along: Vec2(0, -1), from: Vec2(0, cfg.exitY), offset: 0), from: tau, to: best) {
                best = t; next = .exit
            }
            if s.slide >= 0 {
                let e = scene.edges[s.slide]
                let hi = flight.distance(along: -e.along, from: e.along * e.t1, offset: 0)
                let lo = flight.distance(along: e.along, from: e.along * e.t0, offset: 0)
                if let t = Roots.earliestEntry(hi, from: tau, to: best) { best = t; next = .slideEnd }
                if let t = Roots.earliestEntry(lo, from: tau, to: best) { best = t; next = .slideEnd }
            }
            if s.glide >= 0 && s.glideEnd <= best { best = s.glideEnd; next = .slideEnd }

            // The bucket, in its own frame (origin at the top of its centre line), where the ball
            // flies the parabola of its velocity less the bucket's.
            var relative = flight
            if let piece, let bk = bucket?.bucket, whole.max.y >= bk.top - bk.rimRadius - r {
                relative = Flight(origin: flight.origin - Vec2(piece.x0 + piece.vx * s.start, bk.top),
                                  velocity: flight.velocity - Vec2(piece.vx, 0), acceleration: flight.acceleration)
                for side in 0..<2 {
                    let xr = (side == 0 ? -0.5 : 0.5) * bk.width
                    if let t = Roots.earliestEntry(relative.squaredGap(to: Vec2(xr, 0), radius: bk.rimRadius + r), from: tau, to: best) {
                        best = t; next = .rimCap(side)
                    }
                    // Outer and inner faces of the rim.
                    for f in 0..<2 {
                        let face: Double = (f == 0) == (side == 0) ? -1 : 1
                        let gap = relative.distance(along: Vec2(face, 0), from: .zero, offset: (xr + face * bk.rimRadius) * face + r)
                        if let t = Roots.earliestEntry(gap, from: tau, to: best, touching: gap(tau) > -r) {
                            let y = relative.position(at: t).y
                            if y >= 0 && y <= bk.depth { best = t; next = .rimFace(side, f) }
                        }
                    }
                }
                // The mouth: the centre crosses the rims' top line, going down, between their inner faces.
                if let t = Roots.earliestEntry(relative.distance(along: Vec2(0, -1), from: .zero, offset: 0), from: tau, to: best,
                                               touching: false),
                   abs(relative.position(at: t).x) < bk.width / 2 - bk.rimRadius {
                    best = t; next = .caught
                }
            }

            // Obstacles the window's path can reach.
            let box = flight.bounds(from: tau, to: best)
            stamp &+= 1
            if stamp == 0 {
                for i in circleStamp.indices { circleStamp[i] = 0 }
                for i in edgeStamp.indices { edgeStamp[i] = 0 }
                stamp = 1
            }
            let st = stamp
            var cs = circleStamp, es = edgeStamp
            circleStamp = []; edgeStamp = []
            let on = live, glide = s.glide, slide = s.slide
            scene.forEachCandidate(in: box.min, box.max, circle: { k in
                guard cs[k] != st, k != glide else { return }
                cs[k] = st
                let c = scene.circles[k]
                // Reject by box before solving the quartic.
                guard c.center.x + c.radius >= box.min.x, c.center.x - c.radius <= box.max.x,
                      c.center.y + c.radius >= box.min.y, c.center.y - c.radius <= box.max.y,
                      nearChord(c.center, c.radius), on[Int(c.owner)] else { return }
                if let t = Roots.earliestEntry(flight.squaredGap(to: c.center, radius: c.radius), from: tau, to: best) {
                    best = t; next = .circle(k)
                }
            }, edge: { k in
                guard es[k] != st, k != slide else { return }
                es[k] = st
                let e = scene.edges[k]
                guard on[Int(e.owner)] else { return }
                let gap = flight.distance(along: e.normal, from: .zero, offset: e.offset)
                // A centre already past the moved-out side by more than the ball's radius is
                // inside the polygon's body or beside it, not touching this side (as v1); unlike
                // v1's straight sweep, an arc from there can rise over the side and land on it
                // within the window, so later entries still count.
                guard let t = Roots.earliestEntry(gap, from: tau, to: best, touching: gap(tau) > -r) else { return }
                let along = flight.position(at: t).dot(e.along)
                if along >= e.t0 && along <= e.t1 { best = t; next = .edge(k) }
            })
            circleStamp = cs; edgeStamp = es

            let hit = next
            if isNone(hit) {
                if let rules, let stuck = Self.sample(&s, through: s.start + best, rules: rules, h: h, log: &log, logging: logging) {
                    return .stuck(time: stuck.time, position: stuck.position)
                }
                s.tau = best
                continue
            }
            let p = flight.position(at: best), vb = flight.velocity(at: best)
            let when = s.start + best
            if let rules, let stuck = Self.sample(&s, through: when, rules: rules, h: h, log: &log, logging: logging) {
                return .stuck(time: stuck.time, position: stuck.position)
            }
            guard p.isFinite, vb.isFinite else {
                return Self.ended(&s, FlightOutcome(end: .nonFinite, position: p, velocity: vb, time: when, events: s.count))
            }
            switch hit {
            case .exit: return Self.ended(&s, FlightOutcome(end: .fellOut, position: p, velocity: vb, time: when, events: s.count))
            case .caught: return Self.ended(&s, FlightOutcome(end: .caught, position: p, velocity: vb, time: when, events: s.count))
            default: break
            }

            // The event budget of the fixed step this event falls in.
            let w = (when / h).rounded(.down)
            if w != s.windowIndex { s.windowIndex = w; s.windowEvents = 0 }
            s.windowEvents += 1
            s.count += 1

            var res: Resolve.Result
            var kind = FlightEvent.Kind.obstacle
            var other: Int32 = -1
            var restitution = 0.0
            switch hit {
            case let .circle(k):
                let c = scene.circles[k]
                other = c.owner
                restitution = scene.obstacles[Int(c.owner)].restitution
                res = Resolve.primitive(Resolve.storeHit(circle: c), point: p, velocity: vb, restitution: restitution, config: cfg)
            case let .edge(k):
                let e = scene.edges[k]
                other = e.owner
                restitution = scene.obstacles[Int(e.owner)].restitution
                res = Resolve.primitive(Resolve.storeHit(edge: e), point: p, velocity: vb, restitution: restitution, config: cfg)
            case let .wall(i):
                kind = .wall
                other = Int32(i)
                res = Resolve.wall(i, point: p, velocity: vb, config: cfg)
            case let .rimCap(side), let .rimFace(side, _):
                // v1's rim primitives in the bucket's frame, with the rim's velocity.
                kind = .bucketRim
                let bk = bucket!.bucket, piece = piece!
                let xr = (side == 0 ? -0.5 : 0.5) * bk.width
                var hitRim = Resolve.storeHit(isEdge: false, p: xr, q: 0, r: bk.rimRadius + r)
                if case let .rimFace(_, f) = hit {
                    let face: Double = (f == 0) == (side == 0) ? -1 : 1
                    hitRim = Resolve.storeHit(isEdge: true, p: face, q: 0, r: (xr + face * bk.rimRadius) * face + r)
                }
                res = Resolve.primitive(hitRim, point: relative.position(at: best), velocity: vb, restitution: bk.restitution,
                                        surface: Vec2(piece.vx, 0), config: cfg)
                res.position += Vec2(piece.x0 + piece.vx * when, bk.top)
            default:
                kind = .slideEnd
                res = Resolve.Result(position: p, velocity: vb, normal: .zero, impactSpeed: 0, rested: false)
            }

            // What the ball does next: rest, slide, or fly.
            var accel = g
            s.slide = -1
            s.glide = -1
            if res.rested && kind != .bucketRim {
                let surface = Int64(kind.rawValue) << 32 | Int64(other)
                if s.lastRestNormal != .zero, surface != s.lastRestSurface, res.velocity.length < cfg.restingSpeed,
                   Resolve.supports(s.lastRestNormal, res.normal, gravity: g) {
                    let rest = FlightEvent(kind: kind, other: other, time: when, point: res.position, normal: res.normal,
                                           impactSpeed: res.impactSpeed, velocityBefore: vb, velocityAfter: res.velocity)
                    if recordsEvents { events.append(rest) }
                    guard rules != nil else {
                        return Self.ended(&s, FlightOutcome(end: .atRest, position: res.position, velocity: .zero, time: when, events: s.count))
                    }
                    // At rest: still from here (the stuck rule decides what comes next).
                    s.flight = Flight(origin: res.position, velocity: .zero, acceleration: .zero)
                    s.start = when
                    s.tau = 0
                    s.lastRestNormal = .zero
                    s.resting = true
                    if kind == .obstacle { return .contact(rest) }
                    continue
                }
                if case let .edge(k) = hit, g.dot(res.normal) < 0 {
                    // Sliding: no normal speed, and gravity's part along the side.
                    let n = res.normal
                    res.velocity -= n * res.velocity.dot(n)
                    accel = g - n * g.dot(n)
                    s.slide = k
                } else if case let .circle(k) = hit, g.dot(res.normal) < 0 {
                    // Gliding off a peg along its tangent to the end of this fixed step, with
                    // gravity's part along the tangent, then flying free onto it again: v1's
                    // motion after a resting contact (a tangential drift to the step's end). The
                    // ball moves away from the peg (the tangent lies outside it) and energy is
                    // kept. Without it, a ball rolling on a peg makes a resting contact, falls
                    // back 7e-5 s later, and spends the event budget every step.
                    let n = res.normal
                    res.velocity -= n * res.velocity.dot(n)
                    accel = g - n * g.dot(n)
                    s.glide = k
                    s.glideEnd = Swift.max(((when / h).rounded(.down) + 1) * h - when, 0)
                }
                s.lastRestNormal = res.normal
                s.lastRestSurface = surface
            } else if kind != .slideEnd {
                s.lastRestNormal = .zero
            }
            let contact = FlightEvent(kind: kind, other: other, time: when, point: res.position, normal: res.normal,
                                      impactSpeed: res.impactSpeed, velocityBefore: vb, velocityAfter: res.velocity)
            if recordsEvents { events.append(contact) }
            s.flight = Flight(origin: res.position, velocity: res.velocity, acceleration: accel)
            s.start = when
            s.tau = 0

            if s.windowEvents >= budget {
                // Parked to the end of this fixed step, as v1 parks a ball past its budget.
                // (`nextUp`: should rounding put the step's end at this very time, time still moves.)
                let end = Swift.max((s.windowIndex + 1) * h, when.nextUp)
                let parked = FlightEvent(kind: .parked, other: -1, time: end, point: res.position, normal: .zero,
                                         impactSpeed: 0, velocityBefore: res.velocity, velocityAfter: res.velocity)
                if recordsEvents { events.append(parked) }
                s.flight = Flight(origin: res.position, velocity: res.velocity, acceleration: g)
                s.start = end
                s.slide = -1
                s.glide = -1
                s.lastRestNormal = .zero
                s.count += 1
            }
            if rules != nil && kind == .obstacle { return .contact(contact) }
        }
    }

    @inline(__always)
    static func ended(_ s: inout Progress, _ o: FlightOutcome) -> Step {
        s.finished = true
        return .end(o)
    }

    @inline(__always)
    func isNone(_ n: Next) -> Bool {
        if case .none = n { return true }
        return false
    }
}
