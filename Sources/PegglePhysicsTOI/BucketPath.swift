import PegglePhysics

/// The bucket (v1's `KinematicBucket`) as a kinematic body on a known path: its centre runs at
/// `speed` back and forth between `minX` and `maxX`, so between two turns its velocity is constant
/// and, in its own frame, a ball still flies a parabola (its velocity less the bucket's). v1 moves
/// the bucket step by step (`KinematicBucket.advanced`, linear within a step, reflected at the
/// ends): the same path sampled at step ends, up to the rounding of adding a step at a time.
///
/// Times are seconds since the shot began, with the bucket as `bucket` at time 0.
public struct BucketPath: Sendable, Equatable {
    public let bucket: KinematicBucket
    /// Distance travelled since the left end moving right, at time 0, in [0, 2 span).
    let phase0: Double
    let span: Double

    public init(_ bucket: KinematicBucket) {
        self.bucket = bucket
        span = bucket.maxX - bucket.minX
        let along = bucket.x - bucket.minX
        phase0 = bucket.direction > 0 || span <= 0 ? along : 2 * span - along
    }

    /// Whether the bucket never moves (no travel or no speed).
    var isStill: Bool { !(span > 0) || bucket.speed == 0 }

    /// The straight piece of the path at time `t`: its centre's x is `x0 + vx t` for t in
    /// [start, end) (end is infinity for a still bucket).
    public func piece(at t: Double) -> (x0: Double, vx: Double, start: Double, end: Double) {
        if isStill { return (bucket.x, 0, -.infinity, .infinity) }
        let s = bucket.speed
        let k = ((phase0 + s * t) / span).rounded(.down)
        let start = (k * span - phase0) / s, end = ((k + 1) * span - phase0) / s
        // Even pieces run right from minX, odd ones left from maxX.
        if Int(k) % 2 == 0 {
            return (bucket.minX + phase0 - k * span, s, start, end)
        }
        return (bucket.maxX - phase0 + k * span, -s, start, end)
    }

    /// The bucket at time `t`: centre x and direction, as v1 keeps them between shots.
    public func bucket(at t: Double) -> KinematicBucket {
        var b = bucket
        if isStill { return b }
        let p = piece(at: t)
        b.x = Swift.min(Swift.max(p.x0 + p.vx * t, b.minX), b.maxX)
        b.direction = p.vx > 0 ? 1 : -1
        return b
    }
}
