/// Per-ball bookkeeping within one sub-step.
struct BallScratch: Sendable {
    /// Displacement over the rest of the sub-step at the current drift velocity.
    var d = Vec2.zero
    /// Normal of the last resting contact with a static surface this sub-step, or zero.
    var restNormal = Vec2.zero
    /// Events this ball took part in this sub-step.
    var events: Int32 = 0
}

/// Where a sub-step writes its contacts: the world's contact buffer, as raw memory.
struct ContactSink {
    let base: UnsafeMutablePointer<Contact>
    let capacity: Int
    var count: Int

    /// Appends a contact; the capacity covers every event the per-ball budgets allow.
    @inline(__always)
    mutating func append(_ c: Contact) {
        guard count < capacity else { return }
        base[count] = c
        count += 1
    }
}

/// The fixed step: kick-drift-kick integration with continuous, event-ordered collision.
extension PhysicsWorld {
    /// Advances the simulation by `config.timeStep` seconds. `contacts` then holds this step's events.
    public mutating func step() {
        makeUnique()
        buffers.contactCount = 0
        let h = config.substepDuration
        for _ in 0..<max(1, config.substeps) { substep(h) }
    }

    enum EventKind: UInt8 { case none, wall, obstacle, bucketRim, caught, ball }

    /// The earliest event found so far; small, because it is rewritten on every candidate.
    struct Event {
        var s: Double
        var kind: EventKind = .none
        /// Index of the ball in the sub-step's buffer.
        var ball: Int32 = -1
        /// Wall index, obstacle id, or other ball's index.
        var other: Int32 = -1
    }

    /// Geometry of the earliest primitive hit, written only when one is found.
    struct HitDetail {
        /// Primitive hit (obstacle or bucket rim), in the local or bucket frame.
        var hit: StoreHit = .none(1)
        /// Ball centre at contact, in the frame of `hit`.
        var localPoint: Vec2 = .zero
        /// Frame angle at contact (obstacles).
        var angle: Double = 0
        /// Bucket origin at contact (rims).
        var origin: Vec2 = .zero
    }

    /// Kinematic state over one sub-step: where the frame and bucket start and end.
    struct Kinematics {
        var h: Double
        /// Simulated time at the start of the sub-step, seconds.
        var start: Double
        var frameStart: Double, frameEnd: Double
        var bucketStart: Double, bucketEnd: Double
        /// cos and sin of -frameStart and -frameEnd (unused when the angle is 0).
        var inverseStart: (c: Double, s: Double), inverseEnd: (c: Double, s: Double)
        /// Frame angle and bucket x at time `t` into the sub-step.
        func frameAngle(at t: Double) -> Double { frameStart + (frameEnd - frameStart) * (t / h) }
        func bucketX(at t: Double) -> Double { bucketStart + (bucketEnd - bucketStart) * (t / h) }
    }

    /// One sub-step on buffers this world owns alone (`step()` made sure of that).
    mutating func substep(_ h: Double) {
        let bucketEnd = bucket?.advanced(by: h)
        let frameEnd = frame.advanced(by: h)
        var inverseStart = (c: 1.0, s: 0.0), inverseEnd = (c: 1.0, s: 0.0)
        if frame.angle != 0 { inverseStart = inverseTurns.of(frame.angle) }
        if frameEnd != 0 { inverseEnd = inverseTurns.of(frameEnd) }
        let k = Kinematics(h: h, start: time, frameStart: frame.angle, frameEnd: frameEnd,
                           bucketStart: bucket?.x ?? 0, bucketEnd: bucketEnd?.x ?? 0,
                           inverseStart: inverseStart, inverseEnd: inverseEnd)
        let n = buffers.ballCount
        let b = UnsafeMutableBufferPointer(start: buffers.balls, count: n)
        let sc = UnsafeMutableBufferPointer(start: buffers.scratch, count: n)
        var sink = ContactSink(base: buffers.contacts, capacity: buffers.contactCapacity, count: buffers.contactCount)
        var gone: UInt64 = 0
        // The drift reads the config through a pointer to the buffers' copy: borrowed from
        // `self` in this mutating method, it was copied to the stack (128 bytes) every sub-step.
        let cfg = UnsafePointer(buffers.config)
        if n == 1 {
            gone = Self.driftOne(k, config: cfg, store: store, frame: frame, bucket: bucket, freeFlight: freeFlight,
                                 tally: &freeFlightTally, contacts: &sink, balls: b, scratch: sc)
        } else if n > 1 {
            gone = Self.drift(k, config: cfg, store: store, frame: frame, bucket: bucket, freeFlight: freeFlight,
                              tally: &freeFlightTally, contacts: &sink, balls: b, scratch: sc)
        }

        // Take out caught balls and balls that left the board; keep the others in order.
        var kept = 0
        for i in 0..<n {
            let ball = b[i]
            if gone & (1 << UInt64(i)) != 0 { continue }
            if ball.position.y > config.exitY || !ball.position.isFinite || !ball.velocity.isFinite {
                sink.append(Contact(kind: .fellOut, ball: ball.id, other: -1, point: ball.position, normal: .zero,
                                    impactSpeed: 0, velocityBefore: ball.velocity, time: k.start + h))
                continue
            }
            b[kept] = ball
            kept += 1
        }
        buffers.ballCount = kept
        buffers.contactCount = sink.count

        frame.angle = k.frameEnd
        // At rest, keep the angle reduced so whole turns take the fast path.
        if frame.angle != 0 && !frame.isTurning { completeTurn() }
        if let end = bucketEnd {
            bucket!.x = end.x
            bucket!.direction = end.direction
        }
        time += h
    }

    /// Kick-drift-kick: half of gravity's impulse, a straight drift in which every contact is
    /// found and resolved in time order, then the other half. Free flight lands exactly on the
    /// parabola, and a resting contact leaves a tangential drift, so sliding balls keep moving.
    ///
    /// Each ball may take part in `maxEventsPerSubstep` events per sub-step; a ball past its
    /// budget is parked (it stays put) for the rest of the sub-step while the others go on, so a
    /// wedged ball cannot hold up the rest. Returns a bit mask of balls caught by the bucket.
    /// Static with borrowed inputs so the hot loop never copies the world.
    static func drift(_ k: Kinematics, config: UnsafePointer<PhysicsConfig>, store: borrowing ObstacleStore,
                      frame: RotatingFrame, bucket: KinematicBucket?, freeFlight: FreeFlight,
                      tally: inout FreeFlightTally, contacts: inout ContactSink,
                      balls b: UnsafeMutableBufferPointer<Ball>, scratch sc: UnsafeMutableBufferPointer<BallScratch>)
        -> UInt64 {
        let n = b.count
        let halfKick = config.pointee.gravity * (0.5 * k.h)
        for i in 0..<n {
            b[i].velocity += halfKick
            sc[i] = BallScratch()
        }
        var gone: UInt64 = 0
        var parked: UInt64 = 0
        var t = 0.0
        var detail = HitDetail()
        let budget = Int32(config.pointee.maxEventsPerSubstep)
        while true {
            let rem = k.h - t
            if !(rem > 0) { break }
            let idle = gone | parked
            for i in 0..<n { sc[i].d = idle & (1 << UInt64(i)) == 0 ? b[i].velocity * rem : .zero }
            var best = Event(s: 1)
            for i in 0..<n where idle & (1 << UInt64(i)) == 0 {
                search(ball: i, from: b[i].position, by: sc[i].d, k: k, t: t, config: config, store: store,
                       frame: frame, bucket: bucket, freeFlight: freeFlight, tally: &tally, best: &best, detail: &detail)
            }
            if n > 1 { searchBallPairs(b, sc, radius: config.pointee.ballRadius, gone: gone, best: &best) }

            let s = best.kind == .none ? 1.0 : best.s
            for i in 0..<n { b[i].position += sc[i].d * s }
            t += s * rem
            if best.kind == .none { break }
            resolve(best, detail, k: k, t: t, config: config, store: store, frame: frame, bucket: bucket,
                    contacts: &contacts, balls: b, scratch: sc, gone: &gone)
            let i = Int(best.ball)
            sc[i].events += 1
            if sc[i].events >= budget { parked |= 1 << UInt64(i) }
            if best.kind == .ball {
                let j = Int(best.other)
                sc[j].events += 1
                if sc[j].events >= budget { parked |= 1 << UInt64(j) }
            }
        }
        for i in 0..<n { b[i].velocity += halfKick }
        return gone
    }

    /// `drift` for exactly one ball, the case of most steps of a shot: the same operations on the
    /// same values in the same order (so the same bits), without the loops over balls, the idle
    /// masks and the ball-pair search that one ball never needs.
    static func driftOne(_ k: Kinematics, config: UnsafePointer<PhysicsConfig>, store: borrowing ObstacleStore,
                         frame: RotatingFrame, bucket: KinematicBucket?, freeFlight: FreeFlight,
                         tally: inout FreeFlightTally, contacts: inout ContactSink,
                         balls b: UnsafeMutableBufferPointer<Ball>, scratch sc: UnsafeMutableBufferPointer<BallScratch>)
        -> UInt64 {
        let halfKick = config.pointee.gravity * (0.5 * k.h)
        b[0].velocity += halfKick
        sc[0] = BallScratch()
        var gone: UInt64 = 0
        // Parked (its event budget spent) or caught: it stays put for the rest of the sub-step.
        var idle = false
        var t = 0.0
        var detail = HitDetail()
        let budget = Int32(config.pointee.maxEventsPerSubstep)
        while true {
            let rem = k.h - t
            if !(rem > 0) { break }
            let d = idle ? Vec2.zero : b[0].velocity * rem
            sc[0].d = d
            var best = Event(s: 1)
            if !idle {
                search(ball: 0, from: b[0].position, by: d, k: k, t: t, config: config, store: store,
                       frame: frame, bucket: bucket, freeFlight: freeFlight, tally: &tally, best: &best, detail: &detail)
            }
            let s = best.kind == .none ? 1.0 : best.s
            b[0].position += d * s
            t += s * rem
            if best.kind == .none { break }
            resolve(best, detail, k: k, t: t, config: config, store: store, frame: frame, bucket: bucket,
                    contacts: &contacts, balls: b, scratch: sc, gone: &gone)
            sc[0].events += 1
            if sc[0].events >= budget || gone != 0 { idle = true }
        }
        b[0].velocity += halfKick
        return gone
    }

    /// Earliest event of one ball in the rest of the sub-step, if earlier than `best`.
    @inline(__always)
    static func search(ball i: Int, from p: Vec2, by d: Vec2, k: Kinematics, t: Double,
                       config: UnsafePointer<PhysicsConfig>, store: borrowing ObstacleStore, frame: RotatingFrame,
                       bucket: KinematicBucket?, freeFlight: FreeFlight, tally: inout FreeFlightTally,
                       best: inout Event, detail: inout HitDetail) {
        let r = config.pointee.ballRadius
        let ball = Int32(truncatingIfNeeded: i)

        // Walls (world frame; infinite half-planes).
        if config.pointee.leftWall, d.x < 0 {
            let s = max(p.x - r, 0) / -d.x
            if s < best.s { best = Event(s: s, kind: .wall, ball: ball, other: 0) }
        }
        if config.pointee.rightWall, d.x > 0 {
            let s = max(config.pointee.boardWidth - r - p.x, 0) / d.x
            if s < best.s { best = Event(s: s, kind: .wall, ball: ball, other: 1) }
        }
        if config.pointee.topWall, d.y < 0 {
            let s = max(p.y - r, 0) / -d.y
            if s < best.s { best = Event(s: s, kind: .wall, ball: ball, other: 2) }
        }

        // Obstacles, swept in their own frame.
        let thA = k.frameAngle(at: t), thB = k.frameEnd
        let q0: Vec2, dq: Vec2
        if thA == 0 && thB == 0 {
            q0 = p
            dq = d
        } else {
            // thA is frameStart bit for bit at t = 0 and whenever the frame is at rest
            // (frameStart + 0 * x); thB is frameEnd.
            q0 = t == 0 || k.frameStart == k.frameEnd ? frame.toLocal(p, angle: thA, inverse: k.inverseStart)
                : frame.toLocal(p, angle: thA)
            dq = frame.toLocal(p + d, angle: thB, inverse: k.inverseEnd) - q0
        }
        // The free-flight bound: where the store's own bound proves this very sweep (the same q0
        // and dq) finds nothing, skip it; `best` and `detail` are then what the sweep leaves.
        var hit = StoreHit.none(best.s)
        if freeFlight == .off || !store.freeFlightGrid.clears(from: q0, by: dq) {
            hit = store.sweep(from: q0, by: dq, limit: best.s)
            tally.lastSweepSkipped = false
        } else {
            tally.lastSweepSkipped = true
            if freeFlight == .checked {
                tally.skipped += 1
                if store.sweep(from: q0, by: dq, limit: best.s).owner >= 0 { tally.misses += 1 }
            }
        }
        if hit.owner >= 0 {
            best = Event(s: hit.s, kind: .obstacle, ball: ball, other: hit.owner)
            detail = HitDetail(hit: hit, localPoint: q0 + dq * hit.s, angle: thA + (thB - thA) * hit.s)
        }

        // The bucket, swept in its own frame (origin at the top of its centre line).
        if let bk = bucket, max(p.y, p.y + d.y) + r >= bk.top - bk.rimRadius {
            let oA = Vec2(k.bucketX(at: t), bk.top), oB = Vec2(k.bucketEnd, bk.top)
            let b0 = p - oA
            let db = (p + d - oB) - b0
            for side in 0..<2 {
                let xr = (side == 0 ? -0.5 : 0.5) * bk.width
                // Top cap of the rim.
                let cap = StoreHit(s: 0, owner: -1, isEdge: false, p: xr, q: 0, r: bk.rimRadius + r)
                if let s = Sweep.circle(from: b0, by: db, center: Vec2(xr, 0), radius: cap.r), s < best.s {
                    best = Event(s: s, kind: .bucketRim, ball: ball)
                    detail = HitDetail(hit: cap, localPoint: b0 + db * s, origin: oA + (oB - oA) * s)
                }
                // Outer and inner faces of the rim.
                for f in 0..<2 {
                    let face: Double = (f == 0) == (side == 0) ? -1 : 1
                    let off = (xr + face * bk.rimRadius) * face + r
                    if let s = Sweep.edge(from: b0, by: db, normal: Vec2(face, 0), offset: off, ballRadius: r,
                                          along: Vec2(0, 1), t0: 0, t1: bk.depth), s < best.s {
                        best = Event(s: s, kind: .bucketRim, ball: ball)
                        detail = HitDetail(hit: StoreHit(s: s, owner: -1, isEdge: true, p: face, q: 0, r: off),
                                           localPoint: b0 + db * s, origin: oA + (oB - oA) * s)
                    }
                }
            }
            // The mouth: the centre crosses the rims' top line between their inner faces.
            if b0.y < 0, b0.y + db.y >= 0 {
                let s = -b0.y / db.y
                if s < best.s, abs(b0.x + db.x * s) < bk.width / 2 - bk.rimRadius {
                    best = Event(s: s, kind: .caught, ball: ball)
                }
            }
        }
    }

    /// Earliest ball-ball contact, if earlier than `best`. Balls drift in straight lines within
    /// a sub-step, so relative motion is linear and the test is exact. A parked ball takes part
    /// standing still.
    static func searchBallPairs(_ b: UnsafeMutableBufferPointer<Ball>, _ sc: UnsafeMutableBufferPointer<BallScratch>,
                                radius: Double, gone: UInt64, best: inout Event) {
        let rr = 2 * radius
        for i in 0..<b.count where gone & (1 << UInt64(i)) == 0 {
            for j in (i + 1)..<b.count where gone & (1 << UInt64(j)) == 0 {
                let q0 = b[i].position - b[j].position
                if let s = Sweep.circle(from: q0, by: sc[i].d - sc[j].d, center: .zero, radius: rr), s < best.s {
                    best = Event(s: s, kind: .ball, ball: Int32(i), other: Int32(j))
                }
            }
        }
    }

    /// The response to a contact with normal `n` against a surface moving at `surface`.
    ///
    /// `v` is the drift velocity (the half-kicked one); the ball's true velocity at the moment of
    /// contact is `v + lag`, with `lag` = gravity x (contact time - half the sub-step). The
    /// restitution acts on the true closing speed, so bounces neither gain nor lose energy to
    /// the integrator; the impulse is never less than what stops the drift moving inward, so the
    /// ball cannot sink in. Returns the new drift velocity, the true closing speed, and whether
    /// the contact was resting (closing speed under `resting`, no bounce).
    @inline(__always)
    public static func respond(_ v: Vec2, normal n: Vec2, surface: Vec2, restitution e: Double, resting: Double,
                        lag: Vec2) -> (v: Vec2, speed: Double, rested: Bool) {
        let vnDrift = (v - surface).dot(n)
        guard vnDrift < 0 else { return (v, 0, false) }
        let vnTrue = vnDrift + lag.dot(n)
        let speed = max(-vnTrue, 0)
        let eff = speed < resting ? 0 : e
        let j = max(-(1 + eff) * vnTrue, -vnDrift)
        return (v + n * j, speed, eff == 0)
    }

    /// After a resting contact with a static surface: if the ball also rests against another
    /// static surface this sub-step and now drifts into it, keep it out of both (the closest
    /// velocity in the cone both allow). Without this a ball pinned in a narrow V would trade
    /// tiny projections between the faces until its event budget ran out.
    @inline(__always)
    static func pin(_ v: Vec2, normal n: Vec2, scratch: inout BallScratch) -> Vec2 {
        let prev = scratch.restNormal
        scratch.restNormal = n
        guard prev != .zero, v.dot(prev) < -1e-12, abs(prev.cross(n)) > 1e-6 else { return v }
        let alongPrev = v - prev * v.dot(prev)
        return alongPrev.dot(n) >= -1e-12 ? alongPrev : .zero
    }

    static func resolve(_ ev: Event, _ detail: HitDetail, k: Kinematics, t: Double, config: UnsafePointer<PhysicsConfig>,
                        store: borrowing ObstacleStore, frame: RotatingFrame, bucket: KinematicBucket?,
                        contacts: inout ContactSink, balls b: UnsafeMutableBufferPointer<Ball>,
                        scratch sc: UnsafeMutableBufferPointer<BallScratch>, gone: inout UInt64) {
        let i = Int(ev.ball)
        let v = b[i].velocity
        let id = b[i].id
        let slop = config.pointee.contactSlop
        let lag = config.pointee.gravity * (t - 0.5 * k.h)
        let when = k.start + t
        switch ev.kind {
        case .none:
            return
        case .wall:
            let n = ev.other == 0 ? Vec2(1, 0) : ev.other == 1 ? Vec2(-1, 0) : Vec2(0, 1)
            var r = respond(v, normal: n, surface: .zero, restitution: config.pointee.wallRestitution,
                            resting: config.pointee.restingSpeed, lag: lag)
            if r.rested { r.v = pin(r.v, normal: n, scratch: &sc[i]) }
            var p = b[i].position
            let reach = config.pointee.ballRadius + slop
            switch ev.other {
            case 0: p.x = max(p.x, reach)
            case 1: p.x = min(p.x, config.pointee.boardWidth - reach)
            default: p.y = max(p.y, reach)
            }
            b[i].position = p
            b[i].velocity = r.v
            contacts.append(Contact(kind: .wall, ball: id, other: ev.other, point: p, normal: n,
                                    impactSpeed: r.speed, velocityBefore: v + lag, time: when))
        case .obstacle:
            let q = detail.hit.separated(detail.localPoint, slop: slop)
            let nLocal = detail.hit.normal(at: q)
            let p: Vec2, n: Vec2, surface: Vec2
            if detail.angle == 0 && k.frameStart == k.frameEnd {
                p = q
                n = nLocal
                surface = .zero
            } else {
                p = frame.toWorld(q, angle: detail.angle)
                n = nLocal.rotated(by: detail.angle)
                let omega = (k.frameEnd - k.frameStart) / k.h
                surface = (p - frame.center).perpendicular * omega
            }
            var r = respond(v, normal: n, surface: surface, restitution: store.restitution(of: detail.hit.owner),
                            resting: config.pointee.restingSpeed, lag: lag)
            if r.rested && surface == .zero { r.v = pin(r.v, normal: n, scratch: &sc[i]) }
            b[i].position = p
            b[i].velocity = r.v
            contacts.append(Contact(kind: .obstacle, ball: id, other: ev.other, point: p, normal: n,
                                    impactSpeed: r.speed, velocityBefore: v + lag, time: when))
        case .bucketRim:
            let q = detail.hit.separated(detail.localPoint, slop: slop)
            let n = detail.hit.normal(at: q)
            let p = detail.origin + q
            let surface = Vec2((k.bucketEnd - k.bucketStart) / k.h, 0)
            // A rim event comes only from a bucket.
            let r = respond(v, normal: n, surface: surface, restitution: bucket!.restitution,
                            resting: config.pointee.restingSpeed, lag: lag)
            b[i].position = p
            b[i].velocity = r.v
            contacts.append(Contact(kind: .bucketRim, ball: id, other: -1, point: p, normal: n,
                                    impactSpeed: r.speed, velocityBefore: v + lag, time: when))
        case .caught:
            contacts.append(Contact(kind: .caught, ball: id, other: -1, point: b[i].position,
                                    normal: .zero, impactSpeed: 0, velocityBefore: v + lag, time: when))
            gone |= 1 << UInt64(i)
        case .ball:
            // Both balls feel the same gravity, so the lag cancels in their relative velocity.
            let j = Int(ev.other)
            var n = (b[i].position - b[j].position).normalized
            if n == .zero { n = Vec2(0, -1) }
            let vj = b[j].velocity
            let vn = (v - vj).dot(n)
            guard vn < 0 else { return }
            let e = -vn < config.pointee.restingSpeed ? 0 : config.pointee.ballRestitution
            let impulse = -(1 + e) * vn / 2
            b[i].velocity = v + n * impulse
            b[j].velocity = vj - n * impulse
            let gap = (b[i].position - b[j].position).length
            let push = max(0, 2 * config.pointee.ballRadius + slop - gap) / 2
            b[i].position += n * push
            b[j].position -= n * push
            contacts.append(Contact(kind: .ball, ball: id, other: b[j].id, point: b[i].position,
                                    normal: n, impactSpeed: -vn, velocityBefore: v + lag, time: when))
            contacts.append(Contact(kind: .ball, ball: b[j].id, other: id, point: b[j].position,
                                    normal: -n, impactSpeed: -vn, velocityBefore: vj + lag, time: when))
        }
    }
}
