/// Four circle primitives side by side, so one SIMD instruction tests four at once.
/// A primitive's radius already includes the ball's radius (the Minkowski sum), so the
/// narrow phase sweeps the ball's centre as a point. Unused lanes have `r2 < 0` and never hit.
@frozen public struct CircleGroup: Sendable {
    public var x: SIMD4<Double>
    public var y: SIMD4<Double>
    /// Squared combined radius (obstacle + ball), or negative for a disabled lane.
    public var r2: SIMD4<Double>
    public var owner: SIMD4<Int32>

    /// `r2` of a lane that holds nothing or a removed peg: any negative value keeps the
    /// quadratic from finding a root, so the lane never hits.
    public static let disabled = -1e6
}

/// Four edge primitives (a polygon side moved out by the ball radius along its outward normal).
/// A lane with a zero normal is disabled: its closing speed is zero, so it never hits.
@frozen public struct EdgeGroup: Sendable {
    public var nx: SIMD4<Double>
    public var ny: SIMD4<Double>
    /// `a . n + ballRadius`: the offset line is `p . n == off`.
    public var off: SIMD4<Double>
    public var ux: SIMD4<Double>
    public var uy: SIMD4<Double>
    /// Extent of the side along `u`: a contact point `p` must have `t0 <= p . u <= t1`.
    public var t0: SIMD4<Double>
    public var t1: SIMD4<Double>
    public var owner: SIMD4<Int32>
}

/// The earliest contact a sweep found. `s` is the fraction of the swept displacement.
public struct StoreHit: Sendable, Equatable {
    public var s: Double
    /// Obstacle index, or -1 when nothing was hit before the limit.
    public var owner: Int32
    public var isEdge: Bool
    /// Circle: centre (p, q) and combined radius r. Edge: outward normal (p, q) and offset r.
    public var p: Double, q: Double, r: Double

    public static func none(_ limit: Double) -> StoreHit {
        StoreHit(s: limit, owner: -1, isEdge: false, p: 0, q: 0, r: 0)
    }

    /// Outward contact normal for a ball centre at `point` (local frame).
    public func normal(at point: Vec2) -> Vec2 {
        if isEdge { return Vec2(p, q) }
        let n = (point - Vec2(p, q)).normalized
        return n == Vec2(0, 0) ? Vec2(0, -1) : n
    }

    /// `point` moved out of the primitive so the surfaces are `slop` apart.
    public func separated(_ point: Vec2, slop: Double) -> Vec2 {
        if isEdge {
            let n = Vec2(p, q)
            let dist = point.dot(n) - r
            return dist < slop ? point + n * (slop - dist) : point
        }
        let c = Vec2(p, q)
        let n = normal(at: point)
        return (point - c).lengthSquared < (r + slop) * (r + slop) ? c + n * (r + slop) : point
    }
}

/// The store's hot arrays, in buffers owned by one object. Shared between copies of a store
/// until one of them disables an obstacle (copy on write), so copying a game state is cheap and
/// the narrow phase reads raw memory with no reference counting or bounds checks.
final class StoreStorage: @unchecked Sendable {
    // Mutated only through `ObstacleStore.disable`, which first makes this object unique.
    let circleGroups: UnsafeMutableBufferPointer<CircleGroup>
    let edgeGroups: UnsafeMutableBufferPointer<EdgeGroup>
    let cellCircleStart: UnsafeMutableBufferPointer<Int32>
    let cellEdgeStart: UnsafeMutableBufferPointer<Int32>
    let restitutions: UnsafeMutableBufferPointer<Double>
    let isEnabled: UnsafeMutableBufferPointer<Bool>
    /// Cold: the obstacles as given, and the grid layout.
    let obstacles: [Obstacle]
    let layout: StoreLayout
    /// The free-flight bound of the obstacles as built; immutable, so copies share it.
    let clearance: Clearance

    init(circleGroups: [CircleGroup], edgeGroups: [EdgeGroup], cellCircleStart: [Int32], cellEdgeStart: [Int32],
         restitutions: [Double], isEnabled: [Bool], obstacles: [Obstacle], layout: StoreLayout, clearance: Clearance) {
        self.obstacles = obstacles
        self.layout = layout
        self.clearance = clearance
        func buffer<T>(_ a: [T]) -> UnsafeMutableBufferPointer<T> {
            let b = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, a.count))
            _ = b.initialize(from: a)
            return UnsafeMutableBufferPointer(rebasing: b[0..<a.count])
        }
        self.circleGroups = buffer(circleGroups)
        self.edgeGroups = buffer(edgeGroups)
        self.cellCircleStart = buffer(cellCircleStart)
        self.cellEdgeStart = buffer(cellEdgeStart)
        self.restitutions = buffer(restitutions)
        self.isEnabled = buffer(isEnabled)
    }

    /// An independent copy; it shares the (immutable) free-flight bound, or takes `clearance`.
    func copy(clearance: Clearance? = nil) -> StoreStorage {
        StoreStorage(circleGroups: Array(circleGroups), edgeGroups: Array(edgeGroups),
                     cellCircleStart: Array(cellCircleStart), cellEdgeStart: Array(cellEdgeStart),
                     restitutions: Array(restitutions), isEnabled: Array(isEnabled),
                     obstacles: obstacles, layout: layout, clearance: clearance ?? self.clearance)
    }

    deinit {
        circleGroups.baseAddress?.deallocate()
        edgeGroups.baseAddress?.deallocate()
        cellCircleStart.baseAddress?.deallocate()
        cellEdgeStart.baseAddress?.deallocate()
        restitutions.baseAddress?.deallocate()
        isEnabled.baseAddress?.deallocate()
    }
}

/// Immutable facts about the grid and which lanes belong to which obstacle.
struct StoreLayout: Sendable {
    let originX: Double, originY: Double, invCell: Double
    let cols: Int, rows: Int
    /// Lanes owned by each obstacle, as `group * 4 + lane` (CSR by obstacle id).
    let ownerCircleStart: [Int32], ownerCircleSlots: [Int32]
    let ownerEdgeStart: [Int32], ownerEdgeSlots: [Int32]
}

/// Static obstacles (pegs and blocks) behind a uniform grid. Hot data are SIMD groups packed per
/// cell (an array of structs of SIMD4), so a query walks contiguous memory; cold data (the
/// shapes, which lanes belong to which obstacle) sit apart and are touched only when building or
/// disabling. Geometry never changes after building; removing a peg disables its lanes.
/// A value type: copies are independent, and cost one reference until one of them is changed.
public struct ObstacleStore: Sendable {
    /// Ball radius the primitives were inflated by, board units.
    public let ballRadius: Double
    private(set) var storage: StoreStorage
    /// `storage.clearance`'s grid, held here as a plain value so a step reads it without
    /// reference counting (every storage this store can hold shares the same `Clearance`).
    private(set) var freeFlightGrid: ClearanceGrid

    /// The obstacles as given, indexed by obstacle id.
    public var obstacles: [Obstacle] { storage.obstacles }

    /// Builds the store for balls of `config.ballRadius` on `config`'s board.
    public init(obstacles: [Obstacle], config: PhysicsConfig) {
        let ballR = config.ballRadius
        self.ballRadius = ballR

        let cell = config.gridCellSize
        let margin = 2 * ballR + 16
        let ox = -margin, oy = -margin, inv = 1 / cell
        let cols = max(1, Int(((config.boardWidth + 2 * margin) / cell).rounded(.up)))
        let rows = max(1, Int(((config.boardHeight + 2 * margin) / cell).rounded(.up)))

        // Primitives with the ball radius folded in.
        struct CirclePrim { var c: Vec2; var r: Double; var owner: Int32 }
        struct EdgePrim { var a: Vec2; var b: Vec2; var n: Vec2; var owner: Int32 }
        var circles: [CirclePrim] = []
        var edges: [EdgePrim] = []
        for (i, o) in obstacles.enumerated() {
            switch o.shape {
            case let .circle(c, r):
                circles.append(CirclePrim(c: c, r: r + ballR, owner: Int32(i)))
            case let .polygon(poly):
                for v in poly.vertices { circles.append(CirclePrim(c: v, r: ballR, owner: Int32(i))) }
                for e in poly.edges { edges.append(EdgePrim(a: e.a, b: e.b, n: e.normal, owner: Int32(i))) }
            }
        }

        // Cells each primitive's contact region touches (clamped to the grid, as queries are).
        func cellRange(_ lo: Vec2, _ hi: Vec2) -> (Int, Int, Int, Int) {
            func clampX(_ v: Double) -> Int { Int(min(max((v - ox) * inv, 0), Double(cols - 1))) }
            func clampY(_ v: Double) -> Int { Int(min(max((v - oy) * inv, 0), Double(rows - 1))) }
            return (clampX(lo.x - 1e-9), clampX(hi.x + 1e-9), clampY(lo.y - 1e-9), clampY(hi.y + 1e-9))
        }
        var circleCells = Array(repeating: [Int](), count: cols * rows)
        for (k, p) in circles.enumerated() {
            let (x0, x1, y0, y1) = cellRange(p.c - Vec2(p.r, p.r), p.c + Vec2(p.r, p.r))
            for y in y0...y1 { for x in x0...x1 { circleCells[y * cols + x].append(k) } }
        }
        var edgeCells = Array(repeating: [Int](), count: cols * rows)
        for (k, e) in edges.enumerated() {
            // The ball centre touches the side anywhere in the band between the side and the
            // side moved out by the ball radius.
            let pts = [e.a, e.b, e.a + e.n * ballR, e.b + e.n * ballR]
            var lo = pts[0], hi = pts[0]
            for q in pts { lo = pointwiseMin(lo, q); hi = pointwiseMax(hi, q) }
            let (x0, x1, y0, y1) = cellRange(lo, hi)
            for y in y0...y1 { for x in x0...x1 { edgeCells[y * cols + x].append(k) } }
        }

        // Pack each cell's primitives in groups of four.
        var cg: [CircleGroup] = []
        var cStart: [Int32] = [0]
        var circleSlots = Array(repeating: [Int32](), count: obstacles.count)
        for list in circleCells {
            var i = 0
            while i < list.count {
                var g = CircleGroup(x: .zero, y: .zero, r2: SIMD4(repeating: CircleGroup.disabled), owner: SIMD4(repeating: -1))
                for lane in 0..<4 where i + lane < list.count {
                    let p = circles[list[i + lane]]
                    g.x[lane] = p.c.x
                    g.y[lane] = p.c.y
                    g.r2[lane] = p.r * p.r
                    g.owner[lane] = p.owner
                    circleSlots[Int(p.owner)].append(Int32(cg.count * 4 + lane))
                }
                cg.append(g)
                i += 4
            }
            cStart.append(Int32(cg.count))
        }
        var eg: [EdgeGroup] = []
        var eStart: [Int32] = [0]
        var edgeSlots = Array(repeating: [Int32](), count: obstacles.count)
        for list in edgeCells {
            var i = 0
            while i < list.count {
                var g = EdgeGroup(nx: .zero, ny: .zero, off: .zero, ux: .zero, uy: .zero,
                                  t0: SIMD4(repeating: 1), t1: .zero, owner: SIMD4(repeating: -1))
                for lane in 0..<4 where i + lane < list.count {
                    let e = edges[list[i + lane]]
                    let len = (e.b - e.a).length
                    let u = (e.b - e.a) / len
                    g.nx[lane] = e.n.x
                    g.ny[lane] = e.n.y
                    g.off[lane] = e.a.dot(e.n) + ballR
                    g.ux[lane] = u.x
                    g.uy[lane] = u.y
                    g.t0[lane] = e.a.dot(u)
                    g.t1[lane] = e.a.dot(u) + len
                    g.owner[lane] = e.owner
                    edgeSlots[Int(e.owner)].append(Int32(eg.count * 4 + lane))
                }
                eg.append(g)
                i += 4
            }
            eStart.append(Int32(eg.count))
        }
        func csr(_ lists: [[Int32]]) -> ([Int32], [Int32]) {
            var start: [Int32] = [0], flat: [Int32] = []
            for l in lists { flat += l; start.append(Int32(flat.count)) }
            return (start, flat)
        }
        let (ocs, ocSlots) = csr(circleSlots)
        let (oes, oeSlots) = csr(edgeSlots)
        let layout = StoreLayout(originX: ox, originY: oy, invCell: inv, cols: cols, rows: rows,
                                 ownerCircleStart: ocs, ownerCircleSlots: ocSlots,
                                 ownerEdgeStart: oes, ownerEdgeSlots: oeSlots)
        storage = StoreStorage(circleGroups: cg, edgeGroups: eg, cellCircleStart: cStart, cellEdgeStart: eStart,
                               restitutions: obstacles.map(\.restitution),
                               isEnabled: Array(repeating: true, count: obstacles.count),
                               obstacles: obstacles, layout: layout,
                               clearance: Clearance(obstacles: obstacles, ballRadius: ballR, originX: ox, originY: oy,
                                                    width: config.boardWidth + 2 * margin,
                                                    height: config.boardHeight + 2 * margin))
        freeFlightGrid = storage.clearance.grid
    }

    /// Number of obstacles (enabled or not).
    public var count: Int { storage.obstacles.count }

    /// Restitution of obstacle `id`.
    public func restitution(of id: Int32) -> Double { storage.restitutions[Int(id)] }

    /// Whether obstacle `id` still collides.
    public func isEnabled(_ id: Int) -> Bool { storage.isEnabled[id] }

    /// Gives this store `other`'s free-flight bound: a wrong bound, so a test can show the
    /// checker fails (here because `storage` is set only in this file).
    package mutating func replaceFreeFlightBoundForTesting(with other: ObstacleStore) {
        storage = storage.copy(clearance: other.storage.clearance)
        freeFlightGrid = other.freeFlightGrid
    }

    /// Stops obstacle `id` from colliding (a removed peg). Touches only that obstacle's lanes.
    public mutating func disable(_ id: Int) {
        guard storage.isEnabled[id] else { return }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let st = storage, lay = st.layout
        st.isEnabled[id] = false
        for k in Int(lay.ownerCircleStart[id])..<Int(lay.ownerCircleStart[id + 1]) {
            let slot = Int(lay.ownerCircleSlots[k])
            st.circleGroups[slot >> 2].r2[slot & 3] = CircleGroup.disabled
        }
        for k in Int(lay.ownerEdgeStart[id])..<Int(lay.ownerEdgeStart[id + 1]) {
            let slot = Int(lay.ownerEdgeSlots[k])
            st.edgeGroups[slot >> 2].nx[slot & 3] = 0
            st.edgeGroups[slot >> 2].ny[slot & 3] = 0
        }
    }

    /// Earliest contact of a ball whose centre moves from `p` by `d` (local frame), at a fraction
    /// `s < limit` of `d`. A ball already touching and moving inward hits at `s = 0`.
    ///
    /// Most sweeps of a shot cross only empty cells (free flight between pegs), so that test is
    /// inlined into the caller and the narrow phase (`sweepCells`) is called only when a cell of
    /// the swept box holds a primitive: the free-flight step costs no call and no frame.
    @inline(__always)
    public func sweep(from p: Vec2, by d: Vec2, limit: Double) -> StoreHit {
        let a = d.lengthSquared
        guard a > 0, p.isFinite, a.isFinite else { return .none(limit) }
        let c = cells(from: p, to: p + d)
        // With no primitive in the cells, nothing could hit: return what the narrow phase would.
        if c.empty { return .none(limit) }
        return sweepCells(c, from: p, by: d, a: a, limit: limit)
    }

    /// The grid cells (clamped to the grid) the box from `p` to `end` covers, and whether none of
    /// them holds a primitive. `p` and `end` are finite (the caller checked), so the scalar
    /// comparisons below give exactly `pointwiseMin`/`pointwiseMax` (IEEE minimum and maximum
    /// differ from them only for NaN), without their signalling-NaN tests.
    @inline(__always)
    func cells(from p: Vec2, to end: Vec2) -> (cx0: Int, cx1: Int, cy0: Int, cy1: Int, empty: Bool) {
        let st = storage, lay = st.layout
        let cols = lay.cols
        let loX = p.x <= end.x ? p.x : end.x, hiX = p.x > end.x ? p.x : end.x
        let loY = p.y <= end.y ? p.y : end.y, hiY = p.y > end.y ? p.y : end.y
        let maxCol = Double(cols &- 1), maxRow = Double(lay.rows &- 1)
        let cx0 = Int(min(max((loX - lay.originX) * lay.invCell, 0), maxCol))
        let cx1 = Int(min(max((hiX - lay.originX) * lay.invCell, 0), maxCol))
        let cy0 = Int(min(max((loY - lay.originY) * lay.invCell, 0), maxRow))
        let cy1 = Int(min(max((hiY - lay.originY) * lay.invCell, 0), maxRow))
        // Cells of a row are contiguous, and the per-cell starts are cumulative, so a row's
        // cells hold nothing exactly when its first start equals the start after its last cell.
        var row = cy0
        while row <= cy1 {
            let base = row &* cols
            if st.cellCircleStart[base &+ cx0] != st.cellCircleStart[base &+ cx1 &+ 1]
                || st.cellEdgeStart[base &+ cx0] != st.cellEdgeStart[base &+ cx1 &+ 1] {
                return (cx0, cx1, cy0, cy1, false)
            }
            row &+= 1
        }
        return (cx0, cx1, cy0, cy1, true)
    }

    /// The narrow phase of `sweep` over cells `c`, at least one of which holds a primitive;
    /// `a` is `d.lengthSquared`.
    @inline(never)
    func sweepCells(_ c: (cx0: Int, cx1: Int, cy0: Int, cy1: Int, empty: Bool), from p: Vec2, by d: Vec2, a: Double,
                    limit: Double) -> StoreHit {
        let st = storage, lay = st.layout
        let cols = lay.cols
        let cx0 = c.cx0, cx1 = c.cx1, cy0 = c.cy0, cy1 = c.cy1

        let px = SIMD4<Double>(repeating: p.x), py = SIMD4<Double>(repeating: p.y)
        let dx = SIMD4<Double>(repeating: d.x), dy = SIMD4<Double>(repeating: d.y)
        let a4 = SIMD4<Double>(repeating: a)
        let zero = SIMD4<Double>.zero
        let inf = SIMD4<Double>(repeating: .infinity)

        // Circles: |p + s d - c|^2 = r^2, earliest root, approaching only.
        var bestS = SIMD4<Double>(repeating: limit)
        var bestSlot = SIMD4<Int64>(repeating: -1)
        let lanes = SIMD4<Int64>(0, 1, 2, 3)
        let circleGroups = st.circleGroups, circleStart = st.cellCircleStart
        for row in cy0...cy1 {
            let base = row &* cols
            var g = Int(circleStart[base &+ cx0])
            let g1 = Int(circleStart[base &+ cx1 &+ 1])
            while g < g1 {
                let grp = circleGroups[g]
                let mx = px - grp.x, my = py - grp.y
                let b = mx * dx + my * dy
                let c = mx * mx + my * my - grp.r2
                let disc = b * b - a4 * c
                let candidate = (b .< zero) .& (disc .>= zero)
                if any(candidate) {
                    var s = (-b - disc.replacing(with: zero, where: disc .< zero).squareRoot()) / a4
                    s.replace(with: zero, where: c .<= zero)
                    s.replace(with: inf, where: .!candidate)
                    let better = s .< bestS
                    bestS.replace(with: s, where: better)
                    bestSlot.replace(with: SIMD4<Int64>(repeating: Int64(g &* 4)) &+ lanes, where: better)
                }
                g &+= 1
            }
        }
        var hit = StoreHit.none(limit)
        let cMin = Self.horizontalMin(bestS)
        if cMin < limit {
            for lane in 0..<4 where bestS[lane] == cMin {
                let slot = Int(bestSlot[lane])
                let grp = st.circleGroups[slot >> 2]
                let l = slot & 3
                hit = StoreHit(s: cMin, owner: grp.owner[l], isEdge: false,
                               p: grp.x[l], q: grp.y[l], r: grp.r2[l].squareRoot())
                break
            }
        }

        // Edges: the offset line p . n = off, crossed while closing, inside the side's extent.
        let minusR = SIMD4<Double>(repeating: -ballRadius)
        let closing = SIMD4<Double>(repeating: -1e-12)
        var bestE = SIMD4<Double>(repeating: hit.s)
        var bestESlot = SIMD4<Int64>(repeating: -1)
        let edgeGroups = st.edgeGroups, edgeStart = st.cellEdgeStart
        if !edgeGroups.isEmpty {
            for row in cy0...cy1 {
                let base = row &* cols
                var g = Int(edgeStart[base &+ cx0])
                let g1 = Int(edgeStart[base &+ cx1 &+ 1])
                while g < g1 {
                    let grp = edgeGroups[g]
                    let dist = px * grp.nx + py * grp.ny - grp.off
                    let dn = dx * grp.nx + dy * grp.ny
                    let candidate = (dn .< closing) .& (dist .> minusR)
                    if any(candidate) {
                        var s = dist.replacing(with: zero, where: dist .< zero) / -dn
                        let t = (px + s * dx) * grp.ux + (py + s * dy) * grp.uy
                        let ok = candidate .& (t .>= grp.t0) .& (t .<= grp.t1)
                        s.replace(with: inf, where: .!ok)
                        let better = s .< bestE
                        bestE.replace(with: s, where: better)
                        bestESlot.replace(with: SIMD4<Int64>(repeating: Int64(g &* 4)) &+ lanes, where: better)
                    }
                    g &+= 1
                }
            }
        }
        let eMin = Self.horizontalMin(bestE)
        if eMin < hit.s {
            for lane in 0..<4 where bestE[lane] == eMin {
                let slot = Int(bestESlot[lane])
                let grp = st.edgeGroups[slot >> 2]
                let l = slot & 3
                hit = StoreHit(s: eMin, owner: grp.owner[l], isEdge: true,
                               p: grp.nx[l], q: grp.ny[l], r: grp.off[l])
                break
            }
        }
        return hit
    }

    /// Smallest lane (the generic `SIMD.min()` is not specialised inline). The lanes are never
    /// NaN (finite sweeps give finite or infinite fractions), so `a <= b ? a : b` is exactly
    /// `pointwiseMin`'s IEEE minimum, without its signalling-NaN tests and generic call.
    @inline(__always)
    static func horizontalMin(_ v: SIMD4<Double>) -> Double {
        let m0 = v[0] <= v[2] ? v[0] : v[2]
        let m1 = v[1] <= v[3] ? v[1] : v[3]
        return Swift.min(m0, m1)
    }

    /// Obstacles whose surface is within `margin` of a ball centred at `center` (local frame),
    /// written into `out` (cleared first). Used for overlap repair and the stuck-ball rule.
    public func touching(center: Vec2, margin: Double, into out: inout [Int32]) {
        out.removeAll(keepingCapacity: true)
        for (i, o) in obstacles.enumerated() where storage.isEnabled[i] {
            if Self.distance(from: center, to: o.shape) <= ballRadius + margin { out.append(Int32(i)) }
        }
    }

    /// Distance from `point` to the surface of `shape` (0 inside a polygon, negative inside a circle).
    public static func distance(from point: Vec2, to shape: Shape) -> Double {
        switch shape {
        case let .circle(c, r):
            return (point - c).length - r
        case let .polygon(poly):
            var inside = true
            var best = Double.infinity
            let c = poly.centroid
            for i in poly.vertices.indices {
                let e = poly.edge(i, centroid: c)
                if (point - e.a).dot(e.normal) > 0 { inside = false }
                let ab = e.b - e.a
                let t = min(max((point - e.a).dot(ab) / ab.lengthSquared, 0), 1)
                best = min(best, (point - (e.a + ab * t)).length)
            }
            return inside ? 0 : best
        }
    }
}

extension ObstacleStore {
    /// `center` moved out of every enabled obstacle it overlaps, so a ball there touches nothing
    /// (surfaces at least `slop` apart). Pushing out of each overlap in turn settles most cases;
    /// a ball wedged where pushes cancel (between two close pegs) is moved to the nearest free
    /// spot on rings of growing radius instead. Linear in the number of obstacles: for spawns
    /// and teleports, not for stepping.
    public func pushedOut(_ center: Vec2, slop: Double) -> Vec2 {
        let pushed = pushedEach(center, slop: slop)
        if isFree(pushed, slop: slop) { return pushed }
        for ring in 1...400 {
            let radius = Double(ring) * 0.5
            for k in 0..<32 {
                // Start straight up (out of most pockets), then alternate sides.
                let turn = Double((k + 1) / 2) * (k % 2 == 0 ? 1 : -1) * Trig.pi / 16
                let candidate = center + Vec2(Trig.sin(turn), -Trig.cos(turn)) * radius
                if isFree(candidate, slop: slop) { return candidate }
            }
        }
        return pushed
    }

    /// Whether a ball centred at `p` is at least `slop` clear of every enabled obstacle.
    func isFree(_ p: Vec2, slop: Double) -> Bool {
        for (i, o) in obstacles.enumerated() where storage.isEnabled[i] {
            if Self.distance(from: p, to: o.shape) < ballRadius + slop * 0.5 { return false }
        }
        return true
    }

    func pushedEach(_ center: Vec2, slop: Double) -> Vec2 {
        var p = center
        let need = ballRadius + slop
        for _ in 0..<4 {
            var moved = false
            for (i, o) in obstacles.enumerated() where storage.isEnabled[i] {
                switch o.shape {
                case let .circle(c, r):
                    let v = p - c
                    let dist = v.length
                    if dist < r + need {
                        let n = dist > 0 ? v / dist : Vec2(0, -1)
                        p = c + n * (r + need)
                        moved = true
                    }
                case let .polygon(poly):
                    var deepest = -Double.infinity
                    var face = Vec2(0, -1)
                    var closest = Vec2.zero
                    var closestDist = Double.infinity
                    let centroid = poly.centroid
                    for k in poly.vertices.indices {
                        let e = poly.edge(k, centroid: centroid)
                        let sep = (p - e.a).dot(e.normal)
                        if sep > deepest { deepest = sep; face = e.normal }
                        let ab = e.b - e.a
                        let t = min(max((p - e.a).dot(ab) / ab.lengthSquared, 0), 1)
                        let q = e.a + ab * t
                        let dq = (p - q).length
                        if dq < closestDist { closestDist = dq; closest = q }
                    }
                    if deepest <= 0 {
                        // Inside: leave through the nearest face.
                        p += face * (need - deepest)
                        moved = true
                    } else if closestDist < need {
                        p = closest + (p - closest) / closestDist * need
                        moved = true
                    }
                }
            }
            if !moved { break }
        }
        return p
    }
}
