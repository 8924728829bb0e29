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
/// The method is exact in structure and bisection in its numbers: a polynomial's turning points
/// (the roots of its derivative, found the same way, down to a linear one) cut [a, b] into pieces
/// on which it is monotone, so a piece holds a root only if its ends differ in sign, and at most
/// one. The earliest root is then the root of the first piece whose ends change sign, found by
/// bisection that keeps the bracket: no earlier root can be skipped, whatever the curvature, and
/// no iteration can leave the bracket (Newton's method can do both). Bisection stops when the
/// bracket is `timeTolerance` wide or cannot be halved in floating point.
///
/// Tolerance: an entry time is the bracket's lower end, where the polynomial is still positive
/// (the ball still outside), at most `timeTolerance` (1e-13 s; 6e-11 units at the launch speed)
/// before the true root. A touch shallower than the rounding of the polynomial's value near a
/// turning point (a penetration of about 1e-10 units) may be missed, as may the same touch by v1.
public enum Roots {
    /// Width of the final bracket, seconds.
    public static let timeTolerance = 1e-13

    /// Bisects [lo, hi], where `p(lo) > 0 >= p(hi)` if `fallingRoot` (else `p(lo) <= 0 < p(hi)`),
    /// keeping the bracket. Returns the final bracket.
    @inline(__always)
    static func bisect(_ p: Polynomial, _ lo0: Double, _ hi0: Double, falling: Bool) -> (lo: Double, hi: Double) {
        var lo = lo0, hi = hi0
        for _ in 0..<80 {
            guard hi - lo > timeTolerance else { break }
            let mid = lo + 0.5 * (hi - lo)
            guard mid > lo && mid < hi else { break }
            if (p(mid) > 0) == falling { lo = mid } else { hi = mid }
        }
        return (lo, hi)
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
