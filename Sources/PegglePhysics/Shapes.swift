/// A convex polygon in board units. Vertices in order (either winding); outward normals are
/// derived from the centroid, so callers need not care about orientation.
public struct ConvexPolygon: Sendable, Equatable, Hashable {
    public var vertices: [Vec2]

    public init(vertices: [Vec2]) { self.vertices = vertices }

    /// Rectangle of `width` x `height` centred on `center`, turned by `rotation` radians.
    public static func rectangle(center: Vec2, width: Double, height: Double, rotation: Double) -> ConvexPolygon {
        let hw = width / 2, hh = height / 2
        let c = Trig.cos(rotation), s = Trig.sin(rotation)
        let corners = [Vec2(-hw, -hh), Vec2(hw, -hh), Vec2(hw, hh), Vec2(-hw, hh)]
        return ConvexPolygon(vertices: corners.map { center + $0.rotated(cos: c, sin: s) })
    }

    /// Isosceles triangle inscribed in a `width` x `height` box centred on `center`: apex at the
    /// middle of the top edge, base along the bottom edge; then turned by `rotation` radians.
    public static func triangle(center: Vec2, width: Double, height: Double, rotation: Double) -> ConvexPolygon {
        let hw = width / 2, hh = height / 2
        let c = Trig.cos(rotation), s = Trig.sin(rotation)
        let corners = [Vec2(0, -hh), Vec2(hw, hh), Vec2(-hw, hh)]
        return ConvexPolygon(vertices: corners.map { center + $0.rotated(cos: c, sin: s) })
    }

    /// Mean of the vertices (inside any convex polygon).
    public var centroid: Vec2 {
        var sum = Vec2(0, 0)
        for v in vertices { sum += v }
        return sum / Double(max(1, vertices.count))
    }

    /// Edges as (start, end, outward unit normal).
    public var edges: [(a: Vec2, b: Vec2, normal: Vec2)] {
        let c = centroid
        return vertices.indices.map { edge($0, centroid: c) }
    }

    /// Edge `i` (from vertex i to the next) as (start, end, outward unit normal), given the
    /// `centroid`; for loops on hot paths, which `edges` would make allocate.
    @inlinable public func edge(_ i: Int, centroid c: Vec2) -> (a: Vec2, b: Vec2, normal: Vec2) {
        let a = vertices[i], b = vertices[i + 1 == vertices.count ? 0 : i + 1]
        var n = Vec2(b.y - a.y, a.x - b.x).normalized
        if (a - c).dot(n) < 0 { n = -n }
        return (a, b, n)
    }

    /// Axis-aligned bounds (min, max).
    public var bounds: (min: Vec2, max: Vec2) {
        var lo = vertices[0], hi = vertices[0]
        for v in vertices { lo = pointwiseMin(lo, v); hi = pointwiseMax(hi, v) }
        return (lo, hi)
    }

    /// The polygon mapped through `transform`.
    public func mapped(_ transform: (Vec2) -> Vec2) -> ConvexPolygon {
        ConvexPolygon(vertices: vertices.map(transform))
    }
}

/// The shape of a static obstacle.
public enum Shape: Sendable, Equatable, Hashable {
    /// A circle: centre and radius in board units.
    case circle(center: Vec2, radius: Double)
    /// A convex polygon.
    case polygon(ConvexPolygon)

    /// Axis-aligned bounds (min, max).
    public var bounds: (min: Vec2, max: Vec2) {
        switch self {
        case let .circle(c, r): return (c - Vec2(r, r), c + Vec2(r, r))
        case let .polygon(p): return p.bounds
        }
    }
}

/// A static obstacle: a shape and the restitution of contacts with it.
public struct Obstacle: Sendable, Equatable, Hashable {
    public var shape: Shape
    /// Coefficient of restitution for ball contacts (0.8 by default; springy blocks more).
    public var restitution: Double

    public init(shape: Shape, restitution: Double = 0.8) {
        self.shape = shape
        self.restitution = restitution
    }
}
