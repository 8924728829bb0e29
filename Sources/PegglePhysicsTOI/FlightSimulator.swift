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
/// Deterministic: IEEE arithmetic in a fixed order on the inputs alone, no state between runs
/// besides scratch that never changes a result. Not handled yet: anything that moves or changes
/// (the bucket, turning boards, moving pegs, several balls, pegs lit and removed, every game rule).
public struct FlightSimulator: Sendable {
    public let scene: TOIScene
    public var config: PhysicsConfig { scene.config }
    /// Record every event in `events` (tests and pictures; off for measurements).
    public var recordsEvents = false
    /// Events of the latest `run`, when recorded.
    public private(set) var events: [FlightEvent] = []
    /// Query stamps of the primitives, so a primitive in several cells is tested once a window.
    var circleStamp: [UInt32], edgeStamp: [UInt32]
    var stamp: UInt32 = 0

    public init(obstacles: [Obstacle], config: PhysicsConfig) {
        self.init(scene: TOIScene(obstacles: obstacles, config: config))
    }

    public init(scene: TOIScene) {
        self.scene = scene
        circleStamp = Array(repeating: 0, count: scene.circles.count)
        edgeStamp = Array(repeating: 0, count: scene.edges.count)
    }

    enum Next { case none, circle(Int), edge(Int), wall(Int), exit, slideEnd }

    /// Flies one ball launched at `position` with `velocity` until it leaves the board, rests, or
    /// `timeLimit` seconds pass.
    public mutating func run(position: Vec2, velocity: Vec2, timeLimit: Double) -> FlightOutcome {
        events.removeAll(keepingCapacity: true)
        let cfg = scene.config
        let g = cfg.gravity, r = cfg.ballRadius, h = cfg.timeStep
        let budget = cfg.maxEventsPerSubstep
        guard position.isFinite, velocity.isFinite else {
            return FlightOutcome(end: .nonFinite, position: position, velocity: velocity, time: 0, events: 0)
        }
        var flight = Flight(origin: position, velocity: velocity, acceleration: g)
        var start = 0.0      // launch time of `flight`
        var tau = 0.0        // time into `flight` reached so far
        var count = 0
        var windowIndex = -1.0, windowEvents = 0
        var slide = -1                          // edge slid along, or -1
        var glide = -1                          // circle glided off along its tangent, or -1
        var glideEnd = 0.0                      // time into `flight` at which the glide ends
        var lastRestNormal = Vec2.zero          // normal of the previous event if it was resting
        var lastRestSurface: Int64 = -1         // and what it was with (kind and index)
        while true {
            let now = start + tau
            if !(now < timeLimit) {
                let t = timeLimit - start
                return FlightOutcome(end: .timeLimit, position: flight.position(at: t), velocity: flight.velocity(at: t),
                                     time: timeLimit, events: count)
            }
            let v = flight.velocity(at: tau)
            let speed = v.length + flight.acceleration.length * 0.01
            // A window about one cell long, so its bounding box touches few cells.
            let span = Swift.min(cfg.gridCellSize / Swift.max(speed, 1), 0.1, timeLimit - now)
            var best = tau + span
            // A limit closer than time can resolve at this magnitude: it has been reached.
            guard best > tau else {
                return FlightOutcome(end: .timeLimit, position: flight.position(at: tau), velocity: flight.velocity(at: tau),
                                     time: timeLimit, events: count)
            }
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
            if cfg.leftWall, whole.min.x <= r, let s = Roots.earliestEntry(flight.distance(along: Vec2(1, 0), from: .zero, offset: r), from: tau, to: best) {
                best = s; next = .wall(0)
            }
            if cfg.rightWall, whole.max.x >= cfg.boardWidth - r, let s = Roots.earliestEntry(flight.distance(along: Vec2(-1, 0), from: Vec2(cfg.boardWidth, 0), offset: r),
                                                          from: tau, to: best) {
                best = s; next = .wall(1)
            }
            if cfg.topWall, whole.min.y <= r, let s = Roots.earliestEntry(flight.distance(along: Vec2(0, 1), from: .zero, offset: r), from: tau, to: best) {
                best = s; next = .wall(2)
            }
            if whole.max.y >= cfg.exitY,
               let s = Roots.earliestEntry(flight.distance(along: Vec2(0, -1), from: Vec2(0, cfg.exitY), offset: 0), from: tau, to: best) {
                best = s; next = .exit
            }
            if slide >= 0 {
                let e = scene.edges[slide]
                let hi = flight.distance(along: -e.along, from: e.along * e.t1, offset: 0)
                let lo = flight.distance(along: e.along, from: e.along * e.t0, offset: 0)
                if let s = Roots.earliestEntry(hi, from: tau, to: best) { best = s; next = .slideEnd }
                if let s = Roots.earliestEntry(lo, from: tau, to: best) { best = s; next = .slideEnd }
            }
            if glide >= 0 && glideEnd <= best { best = glideEnd; next = .slideEnd }

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
            scene.forEachCandidate(in: box.min, box.max, circle: { k in
                guard cs[k] != st, k != glide else { return }
                cs[k] = st
                let c = scene.circles[k]
                // Reject by box before solving the quartic.
                guard c.center.x + c.radius >= box.min.x, c.center.x - c.radius <= box.max.x,
                      c.center.y + c.radius >= box.min.y, c.center.y - c.radius <= box.max.y,
                      nearChord(c.center, c.radius) else { return }
                if let s = Roots.earliestEntry(flight.squaredGap(to: c.center, radius: c.radius), from: tau, to: best) {
                    best = s; next = .circle(k)
                }
            }, edge: { k in
                guard es[k] != st, k != slide else { return }
                es[k] = st
                let e = scene.edges[k]
                let gap = flight.distance(along: e.normal, from: .zero, offset: e.offset)
                // A centre already past the moved-out side by more than the ball's radius is
                // inside the polygon's body or beside it, not touching this side (as v1); unlike
                // v1's straight sweep, an arc from there can rise over the side and land on it
                // within the window, so later entries still count.
                guard let s = Roots.earliestEntry(gap, from: tau, to: best, touching: gap(tau) > -r) else { return }
                let along = flight.position(at: s).dot(e.along)
                if along >= e.t0 && along <= e.t1 { best = s; next = .edge(k) }
            })
            circleStamp = cs; edgeStamp = es

            let hit = next
            if isNone(hit) {
                tau = best
                continue
            }
            let p = flight.position(at: best), vb = flight.velocity(at: best)
            let when = start + best
            guard p.isFinite, vb.isFinite else {
                return FlightOutcome(end: .nonFinite, position: p, velocity: vb, time: when, events: count)
            }
            if case .exit = hit {
                return FlightOutcome(end: .fellOut, position: p, velocity: vb, time: when, events: count)
            }

            // The event budget of the fixed step this event falls in.
            let w = (when / h).rounded(.down)
            if w != windowIndex { windowIndex = w; windowEvents = 0 }
            windowEvents += 1
            count += 1

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
            default:
                kind = .slideEnd
                res = Resolve.Result(position: p, velocity: vb, normal: .zero, impactSpeed: 0, rested: false)
            }

            // What the ball does next: rest, slide, or fly.
            var accel = g
            slide = -1
            glide = -1
            if res.rested {
                let surface = Int64(kind.rawValue) << 32 | Int64(other)
                if lastRestNormal != .zero, surface != lastRestSurface, res.velocity.length < cfg.restingSpeed,
                   Resolve.supports(lastRestNormal, res.normal, gravity: g) {
                    record(kind, other, when, res, vb)
                    return FlightOutcome(end: .atRest, position: res.position, velocity: .zero, time: when, events: count)
                }
                if case let .edge(k) = hit, g.dot(res.normal) < 0 {
                    // Sliding: no normal speed, and gravity's part along the side.
                    let n = res.normal
                    res.velocity -= n * res.velocity.dot(n)
                    accel = g - n * g.dot(n)
                    slide = k
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
                    glide = k
                    glideEnd = Swift.max(((when / h).rounded(.down) + 1) * h - when, 0)
                }
                lastRestNormal = res.normal
                lastRestSurface = surface
            } else if kind != .slideEnd {
                lastRestNormal = .zero
            }
            record(kind, other, when, res, vb)
            flight = Flight(origin: res.position, velocity: res.velocity, acceleration: accel)
            start = when
            tau = 0

            if windowEvents >= budget {
                // Parked to the end of this fixed step, as v1 parks a ball past its budget.
                // (`nextUp`: should rounding put the step's end at this very time, time still moves.)
                let end = Swift.max((windowIndex + 1) * h, when.nextUp)
                let parked = FlightEvent(kind: .parked, other: -1, time: end, point: res.position, normal: .zero,
                                         impactSpeed: 0, velocityBefore: res.velocity, velocityAfter: res.velocity)
                if recordsEvents { events.append(parked) }
                flight = Flight(origin: res.position, velocity: res.velocity, acceleration: g)
                start = end
                slide = -1
                glide = -1
                lastRestNormal = .zero
                count += 1
            }
        }
    }

    @inline(__always)
    func isNone(_ n: Next) -> Bool {
        if case .none = n { return true }
        return false
    }

    @inline(__always)
    mutating func record(_ kind: FlightEvent.Kind, _ other: Int32, _ time: Double, _ res: Resolve.Result, _ before: Vec2) {
        guard recordsEvents else { return }
        events.append(FlightEvent(kind: kind, other: other, time: time, point: res.position, normal: res.normal,
                                  impactSpeed: res.impactSpeed, velocityBefore: before, velocityAfter: res.velocity))
    }
}
