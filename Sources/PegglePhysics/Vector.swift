/// A 2-D vector in board units (x right, y down). A plain SIMD value so arithmetic is vectorised.
public typealias Vec2 = SIMD2<Double>

extension SIMD2 where Scalar == Double {
    /// Dot product.
    @inlinable public func dot(_ o: Vec2) -> Double { x * o.x + y * o.y }
    /// 2-D cross product (z of the 3-D cross): positive when `o` is counter-clockwise from `self`
    /// in a y-up frame (clockwise on screen, since y grows downward).
    @inlinable public func cross(_ o: Vec2) -> Double { x * o.y - y * o.x }
    /// Squared length.
    @inlinable public var lengthSquared: Double { x * x + y * y }
    /// Euclidean length.
    @inlinable public var length: Double { lengthSquared.squareRoot() }
    /// Unit vector in the same direction, or zero for the zero vector.
    @inlinable public var normalized: Vec2 {
        let l = length
        return l > 0 ? self / l : Vec2(0, 0)
    }
    /// The vector turned a quarter turn: (x, y) -> (-y, x).
    @inlinable public var perpendicular: Vec2 { Vec2(-y, x) }
    /// Rotated by `angle` radians (positive turns +x toward +y).
    @inlinable public func rotated(by angle: Double) -> Vec2 {
        let c = Trig.cos(angle), s = Trig.sin(angle)
        return Vec2(x * c - y * s, x * s + y * c)
    }
    /// Rotated by a precomputed (cos, sin) pair.
    @inlinable public func rotated(cos c: Double, sin s: Double) -> Vec2 {
        Vec2(x * c - y * s, x * s + y * c)
    }
    /// True when both components are finite.
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite }
}
