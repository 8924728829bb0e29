import PegglePhysics

/// A contact resolved at its time of impact, with today's rules: v1's own `PhysicsWorld.respond`
/// (restitution on the closing speed, no bounce under `PhysicsConfig.restingSpeed`, no friction:
/// the tangential velocity is kept) and v1's own separation (`StoreHit.separated`: the centre
/// put `contactSlop` outside the surface). v2 knows the true velocity at the contact time, so
/// v1's `lag` (the true velocity less the half-kicked drift velocity) is zero here.
public enum Resolve {
    /// What a contact left: the centre, the velocity, the contact normal (toward the ball), the
    /// closing speed before the response, and whether it was resting (no bounce).
    public struct Result: Sendable, Equatable {
        public var position: Vec2
        public var velocity: Vec2
        public var normal: Vec2
        public var impactSpeed: Double
        public var rested: Bool
    }

    /// v1's store hit describing a primitive, so its separation and normal are v1's code.
    static func storeHit(circle c: TOIScene.Circle) -> StoreHit {
        var h = StoreHit.none(0)
        h.owner = c.owner
        h.isEdge = false
        (h.p, h.q, h.r) = (c.center.x, c.center.y, c.radius)
        return h
    }

    static func storeHit(edge e: TOIScene.Edge) -> StoreHit {
        var h = StoreHit.none(0)
        h.owner = e.owner
        h.isEdge = true
        (h.p, h.q, h.r) = (e.normal.x, e.normal.y, e.offset)
        return h
    }

    /// A primitive of no obstacle (a bucket rim's cap or face, in the bucket's frame), as v1's
    /// `StoreHit`: a circle (centre p, q; radius r) or a side (normal p, q; offset r).
    static func storeHit(isEdge: Bool, p: Double, q: Double, r: Double) -> StoreHit {
        var h = StoreHit.none(0)
        h.owner = -1
        h.isEdge = isEdge
        (h.p, h.q, h.r) = (p, q, r)
        return h
    }

    /// A primitive hit with the ball's centre at `point` and velocity `v`, in the primitive's
    /// frame; a moving one (a bucket rim) moves at `surface`, as v1's response takes it.
    public static func primitive(_ hit: StoreHit, point: Vec2, velocity v: Vec2, restitution: Double,
                                 surface: Vec2 = .zero, config: PhysicsConfig) -> Result {
        let q = hit.separated(point, slop: config.contactSlop)
        let n = hit.normal(at: q)
        let r = PhysicsWorld.respond(v, normal: n, surface: surface, restitution: restitution,
                                     resting: config.restingSpeed, lag: .zero)
        return Result(position: q, velocity: r.v, normal: n, impactSpeed: r.speed, rested: r.rested)
    }

    /// Wall `index` (0 left, 1 right, 2 top) hit with the centre at `point`: v1's response, and the
    /// centre put `contactSlop` inside the board as v1 puts it.
    public static func wall(_ index: Int, point: Vec2, velocity v: Vec2, config: PhysicsConfig) -> Result {
        let n = index == 0 ? Vec2(1, 0) : index == 1 ? Vec2(-1, 0) : Vec2(0, 1)
        let r = PhysicsWorld.respond(v, normal: n, surface: .zero, restitution: config.wallRestitution,
                                     resting: config.restingSpeed, lag: .zero)
        var p = point
        let reach = config.ballRadius + config.contactSlop
        switch index {
        case 0: p.x = Swift.max(p.x, reach)
        case 1: p.x = Swift.min(p.x, config.boardWidth - reach)
        default: p.y = Swift.max(p.y, reach)
        }
        return Result(position: p, velocity: r.v, normal: n, impactSpeed: r.speed, rested: r.rested)
    }

    /// Whether gravity `g` is held by two surfaces with unit normals `n1`, `n2` (toward the ball):
    /// `-g` is a non-negative combination of them, so a ball touching both with no speed stays.
    public static func supports(_ n1: Vec2, _ n2: Vec2, gravity g: Vec2) -> Bool {
        let det = n1.cross(n2)
        // Parallel normals (one surface, or two facing each other) hold nothing sideways.
        guard abs(det) > 1e-6 else { return false }
        let alpha = (-g).cross(n2) / det, beta = n1.cross(-g) / det
        return alpha >= 0 && beta >= 0
    }
}
