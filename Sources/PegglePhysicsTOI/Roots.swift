/// A polynomial in t of degree at most 4, coefficients lowest first (`c[0] + c[1] t + ...`).
public struct Polynomial: Sendable, Equatable {
    /// Coefficients c0...c4 in lanes 0...4; lanes 5...7 are zero.
    public var c: SIMD8<Double>

    public init(_ c0: Double, _ c1: Double = 0, _ c2: Double = 0, _ c3: Double = 0, _ c4: Double = 0) {
        c = SIMD8(c0, c1, c2, c3, c4, 0, 0, 0)
    }

    /// Highest power with a non-zero coefficient (0 for a constant, also for zero).
    @inlinable public var degree: Int {
        var d = 4
        while d > 0 && c[d] == 0 { d -= 1 }
        return d
    }

    /// Value at `t` (Horner's rule).
    @inlinable public func callAsFunction(_ t: Double) -> Double {
        (((c[4] * t + c[3]) * t + c[2]) * t + c[1]) * t + c[0]
    }

    /// The derivative.
    @inlinable public var derivative: Polynomial {
        Polynomial(c[1], 2 * c[2], 3 * c[3], 4 * c[4])
    }
}

/// Up to eight ascending times, held inline (no allocation on the hot path).
struct Knots {
    var t = SIMD8<Double>()
    var count = 0
    mutating func append(_ x: Double) {
        t[count] = x
        count += 1
    }
}

/// Roots of low-degree polynomials on an interval, for times of impact.
///
/// The method is exact in structure and safeguarded Newton in its numbers: a polynomial's turning
/// points (the roots of its derivative, found the same way, down to a linear one) cut [a, b] into
/// pieces on which it is monotone, so a piece holds a root only if its ends differ in sign, and at
/// most one. The earliest root is then the root of the first piece whose ends change sign, found
/// by Newton steps inside a bracket that every evaluation narrows: a step that would leave the
/// bracket, or one that does not halve it every other evaluation, is replaced by the bracket's
/// midpoint, and a step shorter than the tolerance is confirmed by evaluating just either side of
/// it. So no earlier root can be skipped and no iteration can leave the bracket (the guarantees of
/// plain bisection, which took about 45 evaluations a bracket; Newton takes 4 to 8). It stops
/// when the bracket is `timeTolerance` wide or cannot be narrowed in floating point.
///
/// Tolerance: an entry time is the bracket's lower end, where the polynomial is still positive
/// (the ball still outside), at most `timeTolerance` (1e-13 s; 6e-11 units at the launch speed)
/// before the true root. A touch shallower than the rounding of the polynomial's value near a
/// turning point (a penetration of about 1e-10 units) may be missed, as may the same touch by v1.
public enum Roots {
    /// Width of the final bracket, seconds.
    public static let timeTolerance = 1e-13

    /// Narrows [lo, hi], where `p(lo) > 0 >= p(hi)` if `falling` (else `p(lo) <= 0 < p(hi)`) and
    /// `p` is monotone, keeping the bracket. Returns the final bracket.
    @inline(__always)
    static func bisect(_ p: Polynomial, _ lo0: Double, _ hi0: Double, falling: Bool, guess: Double = .nan) -> (lo: Double, hi: Double) {
        var lo = lo0, hi = hi0
        let d = p.derivative
        // Narrows the bracket by the sign at x (strictly inside it).
        @inline(__always) func cut(_ x: Double, _ fx: Double) {
            if (fx > 0) == falling { lo = x } else { hi = x }
        }
        var x = guess > lo && guess < hi ? guess : lo + 0.5 * (hi - lo)
        var width = hi - lo, widthBefore = width * 2
        for _ in 0..<200 {
            guard hi - lo > timeTolerance, x > lo, x < hi else { break }
            let fx = p(x)
            cut(x, fx)
            let w = hi - lo
            guard w > timeTolerance else { break }
            let step = fx / d(x)
            let nx = x - step
            if abs(step) < 0.5 * timeTolerance {
                // Converged: confirm with a bracket of the tolerance around the estimate.
                let a = nx - 0.5 * timeTolerance, b = nx + 0.5 * timeTolerance
                if a > lo && a < hi { cut(a, p(a)) }
                if b > lo && b < hi { cut(b, p(b)) }
                x = lo + 0.5 * (hi - lo)
            } else if nx > lo && nx < hi && w <= 0.5 * widthBefore {
                x = nx
            } else {
                x = lo + 0.5 * (hi - lo)
            }
            widthBefore = width
            width = hi - lo
        }
        return (lo, hi)
    }

    enum Shape {
        case positive, unknown
        /// With where the coefficients' control polygon crosses zero, a first guess of the root.
        case oneFall(guess: Double)
    }

    /// What `p`'s Bernstein coefficients on [a, b] prove, for a `p` positive at `a`: all of them
    /// positive, so `p` is positive on all of [a, b] (no root); or one change of sign, from
    /// positive to negative, so `p` has exactly one root in (a, b) and falls through it (Descartes'
    /// rule of signs in the Bernstein basis: the roots in (a, b) are at most the changes and of
    /// the same parity). Otherwise, or when a coefficient is within rounding of zero, nothing:
    /// the caller isolates the roots by turning points. Most windows' candidates are decided
    /// here, without the derivative's roots.
    static func bernsteinSigns(_ p: Polynomial, _ a: Double, _ b: Double) -> Shape {
        let c = p.c, h = b - a
        // Taylor coefficients at a, scaled to the unit interval: p(a + h u) = sum q_k u^k.
        let q0 = p(a)
        let q1 = (((4 * c[4] * a + 3 * c[3]) * a + 2 * c[2]) * a + c[1]) * h
        let q2 = ((6 * c[4] * a + 3 * c[3]) * a + c[2]) * (h * h)
        let q3 = (4 * c[4] * a + c[3]) * (h * h * h)
        let q4 = c[4] * (h * h) * (h * h)
        // Degree-4 Bernstein coefficients (b0 = p(a), b4 = p(b) up to rounding).
        let b1 = q0 + 0.25 * q1
        let b2 = q0 + 0.5 * q1 + q2 * (1.0 / 6)
        let b3 = q0 + 0.75 * q1 + 0.5 * q2 + 0.25 * q3
        let b4 = q0 + q1 + q2 + q3 + q4
        // A coefficient nearer zero than the rounding of these sums proves nothing.
        let margin = 1e-12 * (abs(q0) + abs(q1) + abs(q2) + abs(q3) + abs(q4))
        guard q0 > margin else { return .unknown }
        if b1 > margin && b2 > margin && b3 > margin && b4 > margin { return .positive }
        guard b4 < -margin, p(b) < 0 else { return .unknown }
        // One change of sign: positive, then (after the first non-positive) negative throughout.
        @inline(__always) func clear(_ x: Double) -> Bool { x > margin || x < -margin }
        guard clear(b1), clear(b2), clear(b3) else { return .unknown }
        let (n1, n2, n3) = (b1 < 0, b2 < 0, b3 < 0)
        guard (!n1 || n2) && (!n2 || n3) else { return .unknown }
        // The control polygon (k / 4, b_k) crosses zero between the last positive and the first
        // negative coefficient.
        let (i, u, v) = n1 ? (0.0, q0, b1) : n2 ? (1.0, b1, b2) : n3 ? (2.0, b2, b3) : (3.0, b3, b4)
        return .oneFall(guess: a + h * 0.25 * (i + u / (u - v)))
    }

    /// The roots of `p` strictly inside (a, b) at which it changes sign, ascending (at most 4).
    static func signChanges(_ p: Polynomial, _ a: Double, _ b: Double) -> Knots {
        var out = Knots()
        let d = p.degree
        if d == 0 { return out }
        if d == 1 {
            let r = -p.c[0] / p.c[1]
            if r > a && r < b { out.append(r) }
            return out
        }
        let turns = signChanges(p.derivative, a, b)
        var l = a, pl = p(a)
        for k in 0...turns.count {
            let r = k < turns.count ? turns.t[k] : b
            let pr = p(r)
            if (pl > 0) != (pr > 0) {
                let br = bisect(p, l, r, falling: pl > 0)
                out.append(br.lo + 0.5 * (br.hi - br.lo))
            }
            l = r
            pl = pr
        }
        return out
    }

    /// The earliest time in [a, b] at which `p` goes from positive to zero or below, as the last
    /// time it is still positive (within `timeTolerance` of the root); `a` itself if `p(a) <= 0`
    /// and `p` is falling there (already touching and closing); nil if it never does in [a, b].
    /// For a ball, `p` is a gap that is negative inside the obstacle: the result is the time of
    /// impact, and at that time the ball is still outside.
    /// With `touching` false, a start at or below zero is never a hit: only a later entry from
    /// above zero counts (a centre beyond a side's line, beside the polygon, that may come round).
    public static func earliestEntry(_ p: Polynomial, from a: Double, to b: Double, touching: Bool = true) -> Double? {
        guard b > a else { return nil }
        var pl = p(a)
        if touching && pl <= 0 && p.derivative(a) < 0 { return a }
        let d = p.degree
        if d == 0 { return nil }
        if pl > 0 {
            switch bernsteinSigns(p, a, b) {
            case .positive: return nil
            case let .oneFall(guess): return bisect(p, a, b, falling: true, guess: guess).lo
            case .unknown: break
            }
        }
        let turns = signChanges(p.derivative, a, b)
        var l = a
        for k in 0...turns.count {
            let r = k < turns.count ? turns.t[k] : b
            let pr = p(r)
            if pl > 0 && pr <= 0 { return bisect(p, l, r, falling: true).lo }
            l = r
            pl = pr
        }
        return nil
    }
}
