import PegglePhysics

/// Free flight in closed form: a ball's centre under constant acceleration, a parabola
/// `p(t) = origin + velocity t + acceleration t^2 / 2` in the flight's own time `t` (seconds since
/// the event that started it). Every position of a flight is evaluated from its origin, never
/// accumulated, so a long free fall carries no integration error at all.
///
/// How today's engine (v1, `PhysicsWorld.step`) moves a ball, and how that differs:
/// - v1 has no drag, no damping and no friction (a contact changes only the normal component of
///   the velocity, `PhysicsWorld.respond`), so the exact motion between contacts is this parabola.
/// - v1 integrates kick-drift-kick at the fixed step h = `PhysicsConfig.timeStep` (1/120 s): half
///   of gravity's impulse, a straight drift at that velocity, the other half. At step ends that is
///   `x + v h + g h^2 / 2` and `v + g h`: exactly the parabola, so in free flight v1's step-end
///   positions lie on this curve up to rounding (v1 accumulates step by step, v2 evaluates from the
///   origin; the tests pin the gap below 1e-9 units over a whole fall).
/// - Within a step v1 sweeps the straight chord between step ends, not the arc. The chord lies
///   up to |g| h^2 / 8 = 500 / (8 * 120^2) = 0.0043 units from the arc (on its concave side), so v1
///   finds contacts up to that far from where the parabola meets the obstacle, and grazing contacts
///   of that depth can be found by one engine and missed by the other.
/// - After a contact in the middle of a step, v1's ball drifts on at the half-kicked velocity for
///   the rest of the step and takes the second half kick at its end: its path after a contact is
///   no longer the parabola from the contact point (an O(g h^2) offset). Its bounce itself acts on
///   the true velocity at the contact time (the `lag` of `respond`), as v2's does.
/// - v1 tests the exit line only at step ends (the ball is gone once its centre is below
///   `exitY` after a step), up to one step's travel past the line; v2 stops at the crossing.
public struct Flight: Sendable, Equatable {
    /// Centre at the flight's time 0, board units.
    public var origin: Vec2
    /// Velocity at time 0, units/s.
    public var velocity: Vec2
    /// Constant acceleration, units/s^2: gravity, or its part along a surface the ball slides on.
    public var acceleration: Vec2

    public init(origin: Vec2, velocity: Vec2, acceleration: Vec2) {
        self.origin = origin
        self.velocity = velocity
        self.acceleration = acceleration
    }

    /// Centre at time `t`.
    @inlinable public func position(at t: Double) -> Vec2 {
        origin + velocity * t + acceleration * (0.5 * t * t)
    }

    /// Velocity at time `t`.
    @inlinable public func velocity(at t: Double) -> Vec2 { velocity + acceleration * t }

    /// Time of the highest point (least y, y grows downward), if the ball is still rising at 0
    /// and the acceleration points down.
    public var apexTime: Double? {
        guard acceleration.y > 0, velocity.y < 0 else { return nil }
        return -velocity.y / acceleration.y
    }

    /// `(p(t) - point) . n - offset` as a polynomial in t (degree 2): the signed distance of the
    /// centre from the line `x . n == point . n + offset`, for a unit `n`.
    @inlinable public func distance(along n: Vec2, from point: Vec2, offset: Double) -> Polynomial {
        Polynomial((origin - point).dot(n) - offset, velocity.dot(n), 0.5 * acceleration.dot(n))
    }

    /// `|p(t) - center|^2 - radius^2` as a polynomial in t (degree 4, or 2 without acceleration):
    /// negative exactly while the centre is within `radius` of `center`.
    @inlinable public func squaredGap(to center: Vec2, radius: Double) -> Polynomial {
        let m = origin - center, v = velocity, a = acceleration
        // |m + v t + a t^2/2|^2 = m.m + 2 m.v t + (v.v + m.a) t^2 + (v.a) t^3 + (a.a / 4) t^4.
        return Polynomial(m.lengthSquared - radius * radius, 2 * m.dot(v), v.lengthSquared + m.dot(a), v.dot(a),
                          0.25 * a.lengthSquared)
    }

    /// Axis-aligned bounds of the centre's path over [t0, t1]: each coordinate is a quadratic, so
    /// its extremes are at the ends or at its one turning point.
    public func bounds(from t0: Double, to t1: Double) -> (min: Vec2, max: Vec2) {
        let p0 = position(at: t0), p1 = position(at: t1)
        var lo = pointwiseMin(p0, p1), hi = pointwiseMax(p0, p1)
        for axis in 0..<2 where acceleration[axis] != 0 {
            let tt = -velocity[axis] / acceleration[axis]
            if tt > t0 && tt < t1 {
                let c = position(at: tt)[axis]
                lo[axis] = Swift.min(lo[axis], c)
                hi[axis] = Swift.max(hi[axis], c)
            }
        }
        return (lo, hi)
    }
}
