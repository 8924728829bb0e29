import PeggleLevel
import PegglePhysics

/// The `aim` feature encoder: for each of `bins` aim angles it traces the ball's flight from the
/// cannon and describes what that shot would do, as `featureCount` numbers in [0, 1]. A linear
/// policy scores every bin with one shared weight vector, so a weight means the same thing on
/// every level ("hitting an orange peg first is worth w0"), which is what lets a few dozen
/// weights learned in minutes play levels they were never tuned on.
///
/// The trace repeats the physics' own integration (kick-drift-kick steps of 1/120 s from the
/// cannon at the launch speed, swept against walls, pegs and blocks inflated by the ball radius),
/// so the first contact is where the real ball first touches something, to rounding. After it the
/// trace goes on with a plain reflection (restitution 0.8, no spin, no powers, no other balls)
/// for up to `maxContacts` contacts: an approximation that still says which pegs lie downstream.
public struct AimEncoder: Sendable, Equatable {
    /// Name and version written into weights files; a change to any feature bumps the version.
    public static let name = "aim"
    public static let version = 1

    /// One name per feature, in row order.
    public static let featureNames: [String] = AimFeature.allCases.map(\.name)
    /// Features per bin.
    public static let featureCount = AimFeature.allCases.count

    /// Aim angles scored per decision, evenly spaced over `±maxAim`.
    public let bins: Int
    /// Largest aim scored, radians (inside the rules' 1.5 so a jittered aim stays legal).
    public let maxAim: Double
    /// Contacts the trace follows (the first is exact, later ones approximate).
    public let maxContacts: Int

    public init(bins: Int = 61, maxAim: Double = 1.45, maxContacts: Int = 4) {
        precondition(bins >= 2 && maxAim > 0 && maxContacts >= 1)
        self.bins = bins
        self.maxAim = maxAim
        self.maxContacts = maxContacts
    }

    /// Radians between neighbouring bins.
    public var binWidth: Double { 2 * maxAim / Double(bins - 1) }

    /// Aim of bin `b`, radians from straight down.
    public func angle(bin b: Int) -> Double { -maxAim + Double(b) * binWidth }

    /// Floats in one encoded observation: `bins` rows of `featureCount`.
    public var size: Int { bins * Self.featureCount }

    /// Writes `bins` rows of `featureCount` features for `game` into `out` (row-major).
    public func encode(_ game: GameState, into out: UnsafeMutableBufferPointer<Float>) {
        var scene = AimScene()
        encode(game, scene: &scene, into: out)
    }

    /// The same, in `scene`, whose buffers are kept from call to call. With `keepTraces`, a
    /// bin's trace from an earlier call is used again while it still holds (`AimScene.Trace`):
    /// the caller promises that every call since the scene's last `forgetTraces()` was on one
    /// game, played on (an environment's episode). The rows are the same bits either way.
    public func encode(_ game: GameState, scene: inout AimScene, keepTraces: Bool = false,
                       into out: UnsafeMutableBufferPointer<Float>) {
        precondition(out.count >= size, "feature buffer too small")
        if !keepTraces || scene.tracedAngle != game.boardAngle { scene.forgetTraces() }
        // A later state of the game the scene holds, at the same board angle, differs from it
        // only by pegs removed: the scene drops those instead of being rebuilt.
        if scene.loadedGame { scene.update(game) } else { scene.load(game) }
        scene.loadedGame = keepTraces
        scene.tracedAngle = game.boardAngle
        if scene.traces.count != bins { scene.traces = Array(repeating: AimScene.Trace(), count: bins) }
        var trace = AimScene.Trace()
        for b in 0..<bins {
            // Moved out and back (not copied), so its buffers are reused.
            swap(&trace, &scene.traces[b])
            if !trace.valid {
                scene.trace(angle: angle(bin: b), maxContacts: maxContacts, into: &trace)
            } else if let k = trace.touched.firstIndex(where: { game.pegs[Int($0)].isRemoved }) {
                scene.trace(angle: angle(bin: b), maxContacts: maxContacts, into: &trace, resumingAt: k)
            }
            let row = UnsafeMutableBufferPointer(rebasing: out[(b * Self.featureCount)..<((b + 1) * Self.featureCount)])
            scene.describe(trace, of: game, angle: angle(bin: b), maxAim: maxAim, into: row)
            swap(&trace, &scene.traces[b])
        }
        scene.unload()
    }

    /// Every bin's trace in `scene` after it encoded a game that had taken no shot, to start
    /// later games of the same level from (`AimScene.start(from:)`); nil unless every bin holds
    /// a trace of this encoder.
    public func startTraces(in scene: AimScene) -> AimStartTraces? {
        guard scene.traces.count == bins, scene.traces.allSatisfy(\.valid) else { return nil }
        return AimStartTraces(boardAngle: scene.tracedAngle, traces: scene.traces)
    }

    /// Convenience: the features of `game` as a new array (tests, one-off use).
    public func encode(_ game: GameState) -> [Float] {
        var out = [Float](repeating: 0, count: size)
        out.withUnsafeMutableBufferPointer { encode(game, into: $0) }
        return out
    }
}

/// Every bin's trace on a level's board before the first shot (`AimEncoder.startTraces(in:)`),
/// kept with an environment's level so that later episodes on it start without tracing.
public struct AimStartTraces: Sendable {
    let boardAngle: Double
    let traces: [AimScene.Trace]
}

/// The board of one decision in world coordinates, with a uniform grid over the obstacles so a
/// trace step tests only the few objects near it.
public struct AimScene: Sendable {
    /// What an obstacle is: a peg index, -1 for a block, or `removedPeg` (its peg is gone).
    struct Item {
        var peg: Int
        var kind: PegKind?
        var isCircle: Bool
        /// Circle: centre and radius inflated by the ball radius. Polygon: its edges' range.
        var center: Vec2
        var radius: Double
        var firstEdge: Int, edgeCount: Int
    }
    struct Edge {
        var a: Vec2, normal: Vec2, u: Vec2
        var offset: Double, t0: Double, t1: Double
    }

    var rules = Rules()
    var game: GameState?
    /// The physics' free-flight bound over the same obstacles at the board's angle (`.never`:
    /// every trace step sweeps, as before the bound; `usesBound` false, for the test that
    /// compares). It holds no reference: `game` keeps the world whose store owns the grid.
    var probe = ClearanceProbe.never
    package var usesBound = true
    var items: [Item] = []
    var edges: [Edge] = []
    /// Grid cells (row-major) listing item indices: `cellStart[c]..<cellEnd[c]` in `cellItems`
    /// (a new scene's lists are contiguous, `cellEnd[c] == cellStart[c + 1]`; `update` shortens them).
    var cellStart: [Int32] = []
    var cellEnd: [Int32] = []
    var cellItems: [Int32] = []
    /// The same grid holding only the orange pegs (in the same order), which is all `graze`
    /// looks at: most cells hold none, so a trace step's graze test is usually one comparison.
    var orangeStart: [Int32] = []
    var orangeEnd: [Int32] = []
    var orangeItems: [Int32] = []
    static let cell = 40.0, cols = 20, rows = 16
    /// Remaining orange pegs: index and centre.
    var orange: [(peg: Int, center: Vec2, radius: Double)] = []
    /// Scratch marks per peg for one trace (distinct pegs contacted, oranges grazed).
    var touched: [Bool] = []
    var grazed: [Bool] = []
    var touchedList: [Int] = []
    var grazedList: [Int] = []
    /// Green pegs contacted by one trace.
    var greens: [Int] = []
    /// Each bin's trace, kept between calls of one game (`AimEncoder.encode`'s `keepTraces`),
    /// and the board's turn they were traced on.
    package var traces: [Trace] = []
    var tracedAngle = 0.0
    /// Whether the scene holds an earlier observation of the game being played, at
    /// `tracedAngle` (kept traces); cleared with the traces.
    var loadedGame = false
    /// Scratch of `load`: each item's grid bounds, and the counting sort's counters.
    var bounds: [(Vec2, Vec2)] = []
    var fill: [Int32] = []

    /// An empty scene; `load` fills it.
    public init() {}

    /// Drops the kept traces (a new game starts).
    public mutating func forgetTraces() {
        for b in traces.indices { traces[b].valid = false }
        loadedGame = false
    }

    /// Starts a new game of a level from the traces an encoder left on an earlier new game of the
    /// same level (`AimEncoder.startTraces(in:)`): the caller promises that the next `encode`,
    /// with `keepTraces`, is of such a game (every peg in play, the same board). A trace depends
    /// only on the board, so they are the traces that encode would make; copied into this
    /// scene's buffers, so a later retrace writes its own memory.
    public mutating func start(from kept: AimStartTraces) {
        if traces.count != kept.traces.count { traces = Array(repeating: Trace(), count: kept.traces.count) }
        for b in traces.indices { traces[b].assign(kept.traces[b]) }
        tracedAngle = kept.boardAngle
        loadedGame = false
    }

    /// The scene of `game`.
    init(_ game: GameState) { load(game) }

    /// Lets go of the game `load` kept (and the probe into its store's grid, which the game kept
    /// alive). A scene that held on to it between observations shared the environment's game,
    /// so the next shot, played in place, copied every array it wrote.
    mutating func unload() {
        game = nil
        probe = .never
    }

    /// Makes this the scene of `game`, keeping the buffers' capacity.
    mutating func load(_ game: GameState) {
        self.game = game
        rules = game.rules
        probe = usesBound ? game.world.clearanceProbe : .never
        touched.removeAll(keepingCapacity: true)
        touched.append(contentsOf: repeatElement(false, count: game.pegs.count))
        grazed.removeAll(keepingCapacity: true)
        grazed.append(contentsOf: repeatElement(false, count: game.pegs.count))
        touchedList.removeAll(keepingCapacity: true)
        grazedList.removeAll(keepingCapacity: true)
        items.removeAll(keepingCapacity: true)
        edges.removeAll(keepingCapacity: true)
        orange.removeAll(keepingCapacity: true)
        bounds.removeAll(keepingCapacity: true)
        let r = rules.physics.ballRadius
        func addPolygon(_ poly: ConvexPolygon, peg: Int, kind: PegKind?) {
            let world = poly.mapped { game.world.worldPoint($0) }
            let first = edges.count
            for e in world.edges {
                let d = e.b - e.a, len = d.length
                let u = d / len
                edges.append(Edge(a: e.a, normal: e.normal, u: u, offset: e.a.dot(e.normal) + r, t0: e.a.dot(u), t1: e.a.dot(u) + len))
            }
            let bb = world.bounds
            items.append(Item(peg: peg, kind: kind, isCircle: false, center: world.centroid, radius: 0,
                              firstEdge: first, edgeCount: world.vertices.count))
            bounds.append((bb.min - Vec2(r, r), bb.max + Vec2(r, r)))
        }
        for i in game.pegs.indices where !game.pegs[i].isRemoved {
            let kind = game.pegs[i].kind
            switch game.level.pegs[i].shape {
            case let .circle(radius):
                let c = game.pegCenter(i)
                items.append(Item(peg: i, kind: kind, isCircle: true, center: c, radius: radius + r, firstEdge: 0, edgeCount: 0))
                bounds.append((c - Vec2(radius + r, radius + r), c + Vec2(radius + r, radius + r)))
                if kind == .orange { orange.append((i, c, radius)) }
            case .brick:
                guard case let .polygon(poly) = game.level.pegs[i].physicsShape else { continue }
                addPolygon(poly, peg: i, kind: kind)
                if kind == .orange { orange.append((i, items[items.count - 1].center, 0)) }
            }
        }
        for block in game.level.blocks { addPolygon(block.polygon, peg: -1, kind: nil) }
        // Counting sort of (cell, item) pairs into the grid.
        let n = Self.cols * Self.rows
        cellStart.removeAll(keepingCapacity: true)
        cellStart.append(contentsOf: repeatElement(0, count: n + 1))
        for b in bounds {
            let (c0, c1, r0, r1) = Self.cells(b)
            for y in r0...r1 { for x in c0...c1 { cellStart[y * Self.cols + x + 1] += 1 } }
        }
        for c in 0..<n { cellStart[c + 1] += cellStart[c] }
        cellItems.removeAll(keepingCapacity: true)
        cellItems.append(contentsOf: repeatElement(0, count: Int(cellStart[n])))
        fill.removeAll(keepingCapacity: true)
        fill.append(contentsOf: cellStart)
        for (k, b) in bounds.enumerated() {
            let (c0, c1, r0, r1) = Self.cells(b)
            for y in r0...r1 {
                for x in c0...c1 {
                    let c = y * Self.cols + x
                    cellItems[Int(fill[c])] = Int32(k)
                    fill[c] += 1
                }
            }
        }
        orangeStart.removeAll(keepingCapacity: true)
        orangeItems.removeAll(keepingCapacity: true)
        for c in 0..<n {
            orangeStart.append(Int32(orangeItems.count))
            for k in Int(cellStart[c])..<Int(cellStart[c + 1]) where items[Int(cellItems[k])].kind == .orange {
                orangeItems.append(cellItems[k])
            }
        }
        orangeStart.append(Int32(orangeItems.count))
        cellEnd.removeAll(keepingCapacity: true)
        cellEnd.append(contentsOf: cellStart[1...])
        orangeEnd.removeAll(keepingCapacity: true)
        orangeEnd.append(contentsOf: orangeStart[1...])
    }

    /// Makes this the scene of `game`, a later state of the game it was loaded with at the same
    /// board angle: pegs are only ever removed (never added, moved or turned orange), so the
    /// scene of `game` is this one without the removed pegs. Each leaves the cell lists and
    /// orange lists of its cells, which keep their order (so every sweep visits what a new
    /// scene's would, in the same order), and its item is marked `removedPeg`.
    mutating func update(_ game: GameState) {
        self.game = game
        probe = usesBound ? game.world.clearanceProbe : .never
        var orangeGone = false
        for i in items.indices where items[i].peg >= 0 && game.pegs[items[i].peg].isRemoved {
            items[i].peg = Self.removedPeg
            let isOrange = items[i].kind == .orange
            orangeGone = orangeGone || isOrange
            let (c0, c1, r0, r1) = Self.cells(bounds[i])
            for y in r0...r1 {
                for x in c0...c1 {
                    let c = y * Self.cols + x
                    Self.remove(Int32(i), from: &cellItems, Int(cellStart[c]), &cellEnd[c])
                    if isOrange { Self.remove(Int32(i), from: &orangeItems, Int(orangeStart[c]), &orangeEnd[c]) }
                }
            }
        }
        if orangeGone { orange.removeAll { game.pegs[$0.peg].isRemoved } }
    }

    /// An item whose peg has been removed (`update`): in no list, and skipped like a block.
    static let removedPeg = -2

    /// Takes `item` out of the list `list[start..<end]`, keeping the others' order.
    static func remove(_ item: Int32, from list: inout [Int32], _ start: Int, _ end: inout Int32) {
        guard let j = list[start..<Int(end)].firstIndex(of: item) else { return }
        for k in j..<(Int(end) - 1) { list[k] = list[k + 1] }
        end -= 1
    }

    /// The grid cells an item's bounds cover: columns c0...c1, rows r0...r1.
    static func cells(_ b: (Vec2, Vec2)) -> (Int, Int, Int, Int) {
        (col(b.0.x), col(b.1.x), row(b.0.y), row(b.1.y))
    }

    static func col(_ x: Double) -> Int { min(max(Int((x / cell).rounded(.down)), 0), cols - 1) }
    static func row(_ y: Double) -> Int { min(max(Int((y / cell).rounded(.down)), 0), rows - 1) }

    /// Earliest contact of a point moving from `p` by `dq` with any obstacle whose grid cells the
    /// move touches, excluding none: (fraction of the move, item, outward normal).
    /// It changes nothing; it is `mutating` only so that the call from `features` (mutating) passes
    /// the scene in place: a non-mutating call from there copied all 1.6 KB of it every step.
    mutating func sweep(from p: Vec2, by dq: Vec2) -> (s: Double, item: Int, normal: Vec2)? {
        let q = p + dq
        let c0 = Self.col(min(p.x, q.x)), c1 = Self.col(max(p.x, q.x))
        let r0 = Self.row(min(p.y, q.y)), r1 = Self.row(max(p.y, q.y))
        // The best contact so far; a fraction below 2 replaces "none" (every hit's is below 1).
        var bestS = 2.0, bestItem = -1, bestNormal = Vec2(0, 0)
        let rb = rules.physics.ballRadius
        // Raw buffers: this is the trace's innermost loop (bounds checks cost a third of it).
        items.withUnsafeBufferPointer { items in
            edges.withUnsafeBufferPointer { edges in
                cellStart.withUnsafeBufferPointer { cellStart in
                    cellEnd.withUnsafeBufferPointer { cellEnd in
                        cellItems.withUnsafeBufferPointer { cellItems in
                            for y in r0...r1 {
                                for x in c0...c1 {
                                    let c = y * Self.cols + x
                                    for k in Int(cellStart[c])..<Int(cellEnd[c]) {
                                        let i = Int(cellItems[k])
                                        let item = items[i]
                                        if item.isCircle {
                                            if let s = Sweep.circle(from: p, by: dq, center: item.center, radius: item.radius), s < bestS {
                                                (bestS, bestItem, bestNormal) = (s, i, (p + dq * s - item.center).normalized)
                                            }
                                            continue
                                        }
                                        for e in item.firstEdge..<(item.firstEdge + item.edgeCount) {
                                            let edge = edges[e]
                                            if let s = Sweep.edge(from: p, by: dq, normal: edge.normal, offset: edge.offset, ballRadius: rb,
                                                                  along: edge.u, t0: edge.t0, t1: edge.t1), s < bestS {
                                                (bestS, bestItem, bestNormal) = (s, i, edge.normal)
                                            }
                                            if let s = Sweep.circle(from: p, by: dq, center: edge.a, radius: rb), s < bestS {
                                                (bestS, bestItem, bestNormal) = (s, i, (p + dq * s - edge.a).normalized)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return bestItem >= 0 ? (bestS, bestItem, bestNormal) : nil
    }

    /// Marks orange pegs whose surface passes within 15 units of the ball's surface at `p`.
    /// Called on every trace step, and most cells hold no orange: inlined, so that case is a
    /// cell's two loads and a compare, without a call.
    @inline(__always)
    mutating func graze(_ p: Vec2) {
        let c = Self.row(p.y) * Self.cols + Self.col(p.x)
        let start = orangeStart.withUnsafeBufferPointer { Int($0[c]) }, end = orangeEnd.withUnsafeBufferPointer { Int($0[c]) }
        guard start < end else { return }
        for k in start..<end {
            let item = items[Int(orangeItems[k])]
            guard item.peg >= 0, !grazed[item.peg] else { continue }
            let reach = (item.isCircle ? item.radius : rules.physics.ballRadius + 12) + 15
            if (p - item.center).lengthSquared <= reach * reach {
                grazed[item.peg] = true
                grazedList.append(item.peg)
            }
        }
    }

    /// What one bin's trace found: all its features need of the path. Between observations of
    /// one game it stays true while the board's geometry is the same (no flip) and no peg it
    /// touched has been removed: a removed peg that was never the nearest contact of a sweep
    /// cannot change the path, and oranges are only ever removed, never made (`AimEncoder.encode`
    /// with a kept scene).
    package struct Trace: Sendable {
        package var valid = false
        /// The first contact's peg, -1 for a block, nil for none.
        var firstPeg: Int?
        var firstPoint = Vec2(0, 0)
        /// Pegs contacted, in order, each once (at most `maxContacts`).
        package var touched: [Int32] = []
        /// Orange pegs the path passed within reach of, touched or not, each once.
        var grazed: [Int32] = []
        /// Game time at which the ball reached the lane, and where.
        var laneTime: Double?
        var laneX = 0.0
        /// Per peg of `touched` (same order), the trace's state at the start of the step in
        /// which it first touched that peg. When that peg is removed, the path up to that step
        /// is still the path (the peg was never an earlier sweep's nearest contact), so the
        /// trace goes on from there: the same steps on the same values as a trace from the
        /// cannon, which would only repeat the earlier ones.
        package var resumes: [Resume] = []

        /// Becomes a copy of `other`, in its own buffers (their capacity kept).
        mutating func assign(_ other: Trace) {
            valid = other.valid
            (firstPeg, firstPoint) = (other.firstPeg, other.firstPoint)
            touched.removeAll(keepingCapacity: true)
            touched.append(contentsOf: other.touched)
            grazed.removeAll(keepingCapacity: true)
            grazed.append(contentsOf: other.grazed)
            (laneTime, laneX) = (other.laneTime, other.laneX)
            resumes.removeAll(keepingCapacity: true)
            resumes.append(contentsOf: other.resumes)
        }
    }

    /// A trace's state at the start of a step (see `Trace.resumes`).
    package struct Resume: Sendable {
        var p: Vec2, v: Vec2
        package var t: Double
        var contacts: Int
        var firstPeg: Int?
        var firstPoint: Vec2
        /// Length of the grazed list then.
        var grazed: Int
    }

    /// Traces a shot at `angle` into `trace`: from the cannon, or with `resumingAt` k from the
    /// start of the step in which the kept `trace` first touched its k-th peg (`Trace.resumes`;
    /// every peg before it must still be in play).
    mutating func trace(angle: Double, maxContacts: Int, into trace: inout Trace, resumingAt k: Int? = nil) {
        for i in touchedList { touched[i] = false }
        for i in grazedList { grazed[i] = false }
        touchedList.removeAll(keepingCapacity: true)
        grazedList.removeAll(keepingCapacity: true)

        let phys = rules.physics
        let dt = phys.timeStep, g = phys.gravity, rb = phys.ballRadius, e = rules.restitution
        var p: Vec2, v: Vec2, t: Double, contacts: Int
        if let k {
            let r = trace.resumes[k]
            (p, v, t, contacts) = (r.p, r.v, r.t, r.contacts)
            (trace.firstPeg, trace.firstPoint) = (r.firstPeg, r.firstPoint)
            trace.touched.removeSubrange(k...)
            trace.resumes.removeSubrange(k...)
            // The marks the steps before had set; a removed orange among the grazed stays
            // listed, as in a kept trace (`describe` skips removed pegs).
            for peg in trace.touched.lazy.map(Int.init) { touched[peg] = true; touchedList.append(peg) }
            for peg in trace.grazed.prefix(r.grazed).lazy.map(Int.init) { grazed[peg] = true; grazedList.append(peg) }
        } else {
            trace.firstPeg = nil
            trace.firstPoint = Vec2(0, 0)
            trace.touched.removeAll(keepingCapacity: true)
            trace.resumes.removeAll(keepingCapacity: true)
            p = rules.cannon
            v = Vec2(Trig.sin(angle), Trig.cos(angle)) * rules.launchSpeed
            t = 0
            contacts = 0
        }
        trace.valid = true
        trace.grazed.removeAll(keepingCapacity: true)
        trace.laneTime = nil
        trace.laneX = 0
        let laneY = rules.laneTop
        let probe = self.probe
        // Flight time cap: a shot that has not reached the lane by then is trapped bouncing.
        while t < 4 && contacts < maxContacts {
            let start = Resume(p: p, v: v, t: t, contacts: contacts, firstPeg: trace.firstPeg, firstPoint: trace.firstPoint,
                               grazed: grazedList.count)
            v += g * (dt / 2)
            var dq = v * dt
            var events = 0
            while events < 4 {
                // Walls first (left, right, top), then obstacles; the earliest wins.
                var best: (s: Double, item: Int, normal: Vec2)? = nil
                // A wall is hit when gap / speed < 1, which needs gap < speed: only then divide.
                if dq.x < 0, max(p.x - rb, 0) < -dq.x { let s = max(p.x - rb, 0) / -dq.x; if s < 1 { best = (s, -1, Vec2(1, 0)) } }
                if dq.x > 0, max(phys.boardWidth - rb - p.x, 0) < dq.x {
                    let s = max(phys.boardWidth - rb - p.x, 0) / dq.x
                    if s < 1 { best = (s, -1, Vec2(-1, 0)) }
                }
                if dq.y < 0, max(p.y - rb, 0) < -dq.y {
                    let s = max(p.y - rb, 0) / -dq.y
                    if s < 1 && s < (best?.s ?? 2) { best = (s, -1, Vec2(0, 1)) }
                }
                // Where the physics' free-flight bound proves the move touches no obstacle, the
                // sweep would find none: skip it (most steps of a trace).
                if !probe.clears(from: p, by: dq), let hit = sweep(from: p, by: dq), hit.s < (best?.s ?? 2) { best = hit }
                guard let hit = best else {
                    p += dq
                    break
                }
                p += dq * hit.s
                let vn = v.dot(hit.normal)
                if vn < 0 { v -= hit.normal * ((1 + e) * vn) }
                dq = v * (dt * (1 - hit.s))
                events += 1
                if hit.item >= 0 {
                    contacts += 1
                    let peg = items[hit.item].peg
                    if trace.firstPeg == nil {
                        trace.firstPeg = peg
                        trace.firstPoint = p
                    }
                    if peg >= 0 && !touched[peg] {
                        touched[peg] = true
                        touchedList.append(peg)
                        trace.touched.append(Int32(peg))
                        trace.resumes.append(start)
                    }
                    if contacts >= maxContacts { break }
                }
            }
            v += g * (dt / 2)
            t += dt
            graze(p)
            if p.y >= laneY {
                trace.laneTime = t
                trace.laneX = p.x
                break
            }
        }
        for peg in grazedList { trace.grazed.append(Int32(peg)) }
    }

    /// Writes the features of `trace`, a shot at `angle`, on `game` (the scene's) into `row`.
    /// The game is the caller's, borrowed: a copy of the scene's own (`let game = self.game!`)
    /// cost a copy of the whole state and a retain of each of its arrays on every call.
    mutating func describe(_ trace: Trace, of game: borrowing GameState, angle: Double, maxAim: Double,
                           into row: UnsafeMutableBufferPointer<Float>) {
        for k in row.indices { row[k] = 0 }
        let rb = rules.physics.ballRadius
        for i in touchedList { touched[i] = false }
        touchedList.removeAll(keepingCapacity: true)
        greens.removeAll(keepingCapacity: true)
        for peg in trace.touched.lazy.map(Int.init) {
            touched[peg] = true
            touchedList.append(peg)
            if game.pegs[peg].kind == .green { greens.append(peg) }
        }
        // First contact.
        if let peg = trace.firstPeg {
            switch peg >= 0 ? game.pegs[peg].kind : nil {
            case .orange?: row[.firstOrange] = 1
            case .blue?: row[.firstBlue] = 1
            case .green?: row[.firstGreen] = 1
            case .purple?: row[.firstPurple] = 1
            case .zombie?, .confusement?: row[.firstSpecial] = 1
            case nil: row[.firstBlock] = 1
            }
        } else {
            row[.firstNone] = 1
        }
        // The traced chain.
        var chainOrange = 0
        for peg in touchedList where game.pegs[peg].kind == .orange { chainOrange += 1 }
        row[.chainOrange] = Float(min(Double(chainOrange) / 2, 1))
        row[.chainPegs] = Float(min(Double(touchedList.count) / 4, 1))
        if !greens.isEmpty && game.level.power != .none { row[.chainGreenPower] = 1 }
        if game.level.power == .kaboom && !greens.isEmpty {
            var n = 0
            for o in orange where !touched[o.peg] {
                for gi in greens where (o.center - game.pegCenter(gi)).length - o.radius <= rules.kaboomRadius {
                    n += 1
                    break
                }
            }
            row[.kaboomOrange] = Float(min(Double(n) / 3, 1))
        }
        // Oranges around and below the first contact, and along the path.
        if trace.firstPeg != nil {
            let point = trace.firstPoint
            var near = 0, below = 0, nearPegs = 0
            // A centre farther than 61 units past the radius cannot pass `length - radius <= 60`
            // whatever the rounding, so most pegs are settled without the square root.
            for o in orange where !touched[o.peg] {
                let d = o.center - point
                let reach = 61 + o.radius + rb
                if d.lengthSquared <= reach * reach && d.length - o.radius - rb <= 60 { near += 1 }
                if d.y > 0 && d.y <= 250 && abs(d.x) <= 30 + 0.5 * d.y { below += 1 }
            }
            for item in items where item.peg >= 0 && !touched[item.peg] {
                let d = item.center - point, reach = 61 + item.radius
                if d.lengthSquared <= reach * reach && d.length - item.radius <= 60 { nearPegs += 1 }
            }
            row[.nearOrange] = Float(min(Double(near) / 3, 1))
            row[.nearPegs] = Float(min(Double(nearPegs) / 6, 1))
            row[.belowOrange] = Float(min(Double(below) / 6, 1))
        }
        var grazedOrange = 0
        // A kept trace may list oranges removed since; a new one lists none.
        for peg in trace.grazed.lazy.map(Int.init) where !touched[peg] && !game.pegs[peg].isRemoved { grazedOrange += 1 }
        row[.grazeOrange] = Float(min(Double(grazedOrange) / 4, 1))
        // The bucket: where it will be when the traced ball reaches the lane.
        if let tl = trace.laneTime {
            row[.laneReached] = 1
            if var bucket = game.world.bucket {
                var left = tl
                while left > 0 {
                    let step = min(left, 0.5)
                    let moved = bucket.advanced(by: step)
                    bucket.x = moved.x
                    bucket.direction = moved.direction
                    left -= step
                }
                let dx = (trace.laneX - bucket.x) / 50
                // A Cauchy bump rather than exp: no libm, so the same bits on every machine.
                row[.bucket] = Float(1 / (1 + dx * dx))
            }
        }
        row[.aimAbs] = Float(min(abs(angle) / maxAim, 1))
        // Interactions with the game's progress: a linear score cannot form them itself.
        let late: Double
        switch game.level.mode {
        case .classic: late = 1 - min(Double(game.ballsLeft) / 10, 1)
        default: late = 0
        }
        row[.firstOrangeLate] = row[.firstOrange] * Float(late)
        row[.bucketLate] = row[.bucket] * (late >= 0.8 ? 1 : 0)
    }
}

/// The aim encoder's features, in row order (version 1; the names are the weights file's). What
/// each measures is in docs/agents.md.
public enum AimFeature: Int, CaseIterable, Sendable {
    case firstOrange, firstBlue, firstGreen, firstPurple, firstSpecial, firstBlock, firstNone
    case chainOrange, chainPegs, chainGreenPower, kaboomOrange
    case nearOrange, nearPegs, belowOrange, grazeOrange
    case laneReached, bucket, aimAbs, firstOrangeLate, bucketLate

    /// The feature's name in weights files ("first_orange").
    public var name: String {
        String(String(describing: self).flatMap { $0.isUppercase ? ["_", Character($0.lowercased())] : [$0] })
    }
}

extension UnsafeMutableBufferPointer where Element == Float {
    /// A row's feature.
    subscript(feature: AimFeature) -> Float {
        get { self[feature.rawValue] }
        nonmutating set { self[feature.rawValue] = newValue }
    }
}
