/// Whether a step may skip the obstacle store's sweep while a ball provably touches nothing.
public enum FreeFlight: UInt8, Sendable, Equatable, Hashable, Codable {
    /// Every sweep runs (the step before the bound existed). The same trajectories as `.on`.
    case off
    /// A sweep whose ball is farther from every obstacle than it moves is skipped (the default).
    case on
    /// As `.on`, and every skipped sweep also runs in full: a contact it finds counts as a miss
    /// (`PhysicsWorld.freeFlightTally`). For tests and the fuzz workload.
    case checked
}

/// What the checker saw: sweeps the bound skipped, and how many of those would have hit.
public struct FreeFlightTally: Sendable, Equatable, Hashable, Codable {
    /// Store sweeps skipped by the bound (counted only in `.checked` mode).
    public var skipped = 0
    /// Skipped sweeps whose full query found a contact (must stay 0).
    public var misses = 0
    /// Whether the latest store sweep of the event search was skipped (in every mode but
    /// `.off`): a hint that the next step may be free, so `flyFree` is worth a call.
    @usableFromInline var lastSweepSkipped = false

    public init() {}
}

/// The free-flight bound: a fine grid over the store's area holding, per cell, a lower bound on
/// the distance (board units) a ball centred anywhere in the cell can move before it can touch
/// any obstacle the store was built with. Built once with the store, shared by every copy (it
/// never changes: removing a peg only makes the true clearance larger, so a stale bound stays
/// conservative; obstacles are never added or moved, the store's geometry being fixed).
///
/// One byte a cell, the clearance floored to quarter units, and a 256-entry table of squared
/// thresholds: a lookup is two loads and a compare (four where the coarse grid cannot tell).
final class Clearance: @unchecked Sendable {
    /// The grid's facts and memory, as a plain value the step reads without reference counting;
    /// its pointers live as long as this object (every store that holds the view holds it).
    let grid: ClearanceGrid

    /// Cell edge, board units: the bound loses at most a cell's diagonal (3.5) to the grid.
    /// Between the rows of a dense board the free corridor is a few units wider than a step,
    /// so the loss decides how many steps are free (5-unit cells freed far fewer on the grid scene).
    static let cellSize = 2.5
    /// Largest clearance recorded, board units: a step moves under 10 units at the game's
    /// speeds, and the build's cost grows with the square of this.
    static let cap = 12.0
    /// Taken off every bound before it is floored: covers the sweep's rounding (its errors are
    /// relative, about 1e-8 of the board's size at worst, near tangency), so a sweep the bound
    /// clears finds no root below 1 in floating point either.
    static let margin = 1.0 / 64

    /// Builds in about the time of the store itself (a new game of a generated level is built
    /// on every reset of a procedural environment): each obstacle visits only the cells within
    /// `cap` of it, works in squared distances, and takes a square root only where it may lower
    /// the cell's code. Polygons count as their bounding boxes (a lower bound on the distance).
    init(obstacles: [Obstacle], ballRadius: Double, originX ox: Double, originY oy: Double,
         width: Double, height: Double) {
        let cell = Self.cellSize
        let cols = max(1, Int((width / cell).rounded(.up)))
        let rows = max(1, Int((height / cell).rounded(.up)))
        let cells = Self.bounds(obstacles: obstacles, ballRadius: ballRadius, originX: ox, originY: oy,
                                cell: cell, cols: cols, rows: rows)
        // The coarse grid: blocks of 4 x 4 cells, each bounded the same way over the block's
        // rectangle, so its code is at most its cells' (it never clears a move they would not).
        // Built from the obstacles, it costs a sixteenth of the fine grid.
        let blockCols = (cols + 3) >> 2, blockRows = (rows + 3) >> 2
        let blocks = Self.bounds(obstacles: obstacles, ballRadius: ballRadius, originX: ox, originY: oy,
                                 cell: 4 * cell, cols: blockCols, rows: blockRows)
        let threshold = UnsafeMutablePointer<Double>.allocate(capacity: 256)
        for q in 0..<256 {
            let c = Double(q) / 4
            threshold[q] = c * c
        }
        grid = ClearanceGrid(originX: ox, originY: oy, invCell: 1 / cell, cols: cols, colsD: Double(cols),
                             rowsD: Double(rows), cells: cells, blockCols: blockCols, blocks: blocks, threshold: threshold)
    }

    /// A grid of `cols` x `rows` square cells of edge `cell` from (ox, oy), each holding the
    /// bound's code for every point of the cell (allocated; the caller frees it).
    static func bounds(obstacles: [Obstacle], ballRadius: Double, originX ox: Double, originY oy: Double,
                       cell: Double, cols: Int, rows: Int) -> UnsafeMutablePointer<UInt8> {
        let invCell = 1 / cell
        let count = cols * rows
        let capCode = UInt8(((Self.cap - Self.margin) * 4).rounded(.down))
        let cells = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        cells.initialize(repeating: capCode, count: count)
        let half = cell / 2
        let columnGap = UnsafeMutablePointer<Double>.allocate(capacity: cols)
        var lower = [Double](repeating: 0, count: Int(capCode) + 1)
        for o in obstacles {
            // A box (centre, half extents) and the radius its surface is inflated by: a circle
            // is its centre inflated by r + ballRadius; a polygon lies inside its bounding box.
            let centre: Vec2, halfExtent: Vec2, inflate: Double
            switch o.shape {
            case let .circle(c, r):
                centre = c
                halfExtent = .zero
                inflate = r + ballRadius
            case .polygon:
                let (lo, hi) = o.shape.bounds
                centre = (lo + hi) * 0.5
                halfExtent = (hi - lo) * 0.5
                inflate = ballRadius
            }
            // Squared distance below which a cell of code q can be lowered: the bound there is
            // at most (q + 1) / 4 + margin past the inflated surface.
            for q in 0...Int(capCode) {
                let t = Double(q + 1) / 4 + Self.margin + inflate
                lower[q] = t * t
            }
            // Cells whose rectangle comes within `reach` of the box; beyond it the bound is the cap.
            let reach = Self.cap + inflate
            let x0 = max(0, Int(((centre.x - halfExtent.x - reach - ox) * invCell).rounded(.down)))
            let x1 = min(cols - 1, Int(((centre.x + halfExtent.x + reach - ox) * invCell).rounded(.up)))
            let y0 = max(0, Int(((centre.y - halfExtent.y - reach - oy) * invCell).rounded(.down)))
            let y1 = min(rows - 1, Int(((centre.y + halfExtent.y + reach - oy) * invCell).rounded(.up)))
            guard x0 <= x1, y0 <= y1 else { continue }
            // Gap between a cell rectangle and the box along x, squared, per column (the same
            // for every row), so a cell costs an add, a load and a compare unless it improves.
            for x in x0...x1 {
                let gx = max(abs(ox + (Double(x) + 0.5) * cell - centre.x) - half - halfExtent.x, 0)
                columnGap[x] = gx * gx
            }
            let inflate2 = inflate * inflate
            lower.withUnsafeBufferPointer { lower in
                for y in y0...y1 {
                    let gy = max(abs(oy + (Double(y) + 0.5) * cell - centre.y) - half - halfExtent.y, 0)
                    let gy2 = gy * gy
                    let row = cells + y * cols
                    for x in x0...x1 {
                        let d2 = columnGap[x] + gy2
                        let code = row[x]
                        guard code > 0, d2 < lower[Int(code)] else { continue }
                        // Inside the inflated surface the bound is 0; elsewhere floor it.
                        if d2 <= inflate2 {
                            row[x] = 0
                            continue
                        }
                        let q = ((d2.squareRoot() - inflate - Self.margin) * 4).rounded(.down)
                        let new = q <= 0 ? 0 : UInt8(q)
                        if new < code { row[x] = new }
                    }
                }
            }
        }
        columnGap.deallocate()
        return cells
    }

    deinit {
        grid.cells.deallocate()
        grid.blocks.deallocate()
        grid.threshold.deallocate()
    }
}

/// The free-flight bound's grid as a plain value (see `Clearance`): one byte a cell, the
/// clearance floored to quarter units, and a 256-entry table of squared thresholds, so a
/// lookup is two loads and a compare (four where the coarse grid cannot tell).
@usableFromInline struct ClearanceGrid: @unchecked Sendable {
    /// No cells: `clears` is false everywhere (its bounds test fails before any load). The one
    /// byte each pointer holds is never read, and lives as long as the process.
    static let empty: ClearanceGrid = {
        let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1), zero = UnsafeMutablePointer<Double>.allocate(capacity: 1)
        byte.initialize(to: 0)
        zero.initialize(to: 0)
        return ClearanceGrid(originX: 0, originY: 0, invCell: 1, cols: 0, colsD: 0, rowsD: 0, cells: byte, blockCols: 0,
                             blocks: byte, threshold: zero)
    }()

    // Read-only memory owned by a `Clearance`.
    @usableFromInline let originX: Double, originY: Double, invCell: Double
    @usableFromInline let cols: Int
    /// Columns and rows as Doubles, for the bounds test that also rejects NaN.
    @usableFromInline let colsD: Double, rowsD: Double
    @usableFromInline let cells: UnsafeMutablePointer<UInt8>
    /// The coarse grid (`blockCols` a row): per block of 4 x 4 cells (10 units square) the bound
    /// over the whole block, a bound by itself and at most its cells'. It is read first: 4.8 KB on a board, it stays in the first-level cache
    /// where the fine grid (77 KB) does not, and in open air it clears the move alone (the fine
    /// grid's load missed the cache on a third of the `aim` trace's steps, measured with perf).
    @usableFromInline let blockCols: Int
    @usableFromInline let blocks: UnsafeMutablePointer<UInt8>
    /// `threshold[q]` = (q / 4)^2: a sweep of squared length below it from a cell of code q
    /// touches nothing.
    @usableFromInline let threshold: UnsafeMutablePointer<Double>

    /// Whether a ball centre moving from `p` by `d` (store frame) provably touches no obstacle
    /// the store was built with: `p`'s cell clears more than `|d|`. False for points off the grid
    /// and for non-finite values (every comparison with NaN is false).
    @inlinable @inline(__always)
    func clears(from p: Vec2, by d: Vec2) -> Bool {
        let fx = (p.x - originX) * invCell, fy = (p.y - originY) * invCell
        guard fx >= 0, fy >= 0, fx < colsD, fy < rowsD else { return false }
        let ix = Int(fx), iy = Int(fy)
        let d2 = d.lengthSquared
        // Either code is a bound; the block's, at most the cell's, decides first.
        if d2 < threshold[Int(blocks[(iy >> 2) &* blockCols &+ (ix >> 2)])] { return true }
        return d2 < threshold[Int(cells[iy &* cols &+ ix])]
    }

    /// The bound at `p` in board units (0 off the grid), for tests and measurements.
    func bound(at p: Vec2) -> Double {
        let fx = (p.x - originX) * invCell, fy = (p.y - originY) * invCell
        guard fx >= 0, fy >= 0, fx < colsD, fy < rowsD else { return 0 }
        return Double(cells[Int(fy) * cols + Int(fx)]) / 4
    }
}

extension ObstacleStore {
    /// The free-flight bound at local point `p`, board units: a ball centred at `p` moving less
    /// than this touches none of the store's obstacles. 0 off the grid. For tests.
    public func freeFlightBound(at p: Vec2) -> Double { freeFlightGrid.bound(at: p) }
}

extension PhysicsWorld {
    /// Whether the latest step's last obstacle sweep was proved empty by the free-flight bound:
    /// then `flyFree` will likely take steps; otherwise it likely takes none. Only a hint (it
    /// never changes what `flyFree` or `step()` do).
    @inlinable public var freeFlightLikely: Bool { freeFlightTally.lastSweepSkipped }

    /// Up to `limit` fixed steps of free flight, each exactly what `step()` would do (the same
    /// operations on the same values in the same order), taken while the one ball in play
    /// provably touches nothing in them: no wall, no obstacle (the free-flight bound, or where it
    /// cannot tell, the store's own sweep finding nothing), not near the bucket, not leaving the
    /// board. Stops before the first step it cannot prove free, so
    /// the caller's `step()` takes that one. Takes no step with more than one ball, sub-steps, a
    /// turning board, or the bound `.off`.
    ///
    /// After each step it applies the caller's stuck rule the way the caller would: if the ball
    /// is farther than `stuckDistanceSquared` (board units squared) from `anchor`, the anchor
    /// moves to it and `anchorTime` becomes `time` (seconds); otherwise it stops after that step
    /// and returns `anchorMoved` false, so the caller runs its own check for it.
    /// Returns the steps taken; `contacts` is empty after any.
    public mutating func flyFree(limit: Int, anchor: inout Vec2, anchorTime: inout Double,
                                 stuckDistanceSquared: Double) -> (steps: Int, anchorMoved: Bool) {
        guard freeFlight != .off, limit > 0, buffers.ballCount == 1, config.substeps <= 1, !frame.isTurning else {
            return (0, true)
        }
        let h = config.substepDuration
        // At rest, substep's end leaves the frame as it is (the advance returns the target,
        // which is the angle, and a reduced angle is its own reduction); checked here once, bit
        // for bit, so the loop need not redo it. Anything else takes the full step.
        let angle = frame.angle
        guard frame.advanced(by: h).bitPattern == angle.bitPattern,
              angle == 0 || Self.reducedTurn(frame.target).bitPattern == angle.bitPattern else { return (0, true) }
        makeUnique()
        let cfg = buffers.config.pointee
        let halfKick = cfg.gravity * (0.5 * h)
        let r = cfg.ballRadius
        let right = cfg.boardWidth - r
        let grid = store.freeFlightGrid
        let inverse = angle != 0 ? inverseTurns.of(angle) : (c: 1.0, s: 0.0)
        let rimLine = bucket.map { $0.top - $0.rimRadius } ?? 0
        var bk = bucket
        var ball = buffers.balls[0]
        var clock = time
        var mark = anchor, markTime = anchorTime
        var steps = 0
        var moved = true
        while steps < limit {
            // driftOne's first pass: kick, displacement over the whole sub-step (rem = h - 0).
            let p = ball.position
            let v = ball.velocity + halfKick
            let d = v * (h - 0.0)
            // search's walls against its first limit, 1: it finds a wall when `gap / speed < 1`,
            // which needs `gap < speed`; so `gap >= speed` proves no wall without dividing.
            if cfg.leftWall, d.x < 0, max(p.x - r, 0) < -d.x { break }
            if cfg.rightWall, d.x > 0, max(right - p.x, 0) < d.x { break }
            if cfg.topWall, d.y < 0, max(p.y - r, 0) < -d.y { break }
            // search's bucket test: the rims and mouth are looked at only when this holds.
            if bk != nil, max(p.y, p.y + d.y) + r >= rimLine { break }
            // search's obstacle sweep, in the frame search would use (at rest: one angle).
            let q0: Vec2, dq: Vec2
            if angle == 0 {
                q0 = p
                dq = d
            } else {
                q0 = frame.toLocal(p, angle: angle, inverse: inverse)
                dq = frame.toLocal(p + d, angle: angle, inverse: inverse) - q0
            }
            let cleared = grid.clears(from: q0, by: dq)
            if !cleared {
                // Near an obstacle the bound proves nothing: run the very sweep search would
                // (its limit is 1 here, no wall being within reach) and go on if it finds
                // nothing, so a near miss costs a sweep, not a whole step.
                guard store.sweepFindsNothing(from: q0, by: dq) else { break }
            }
            // No event: the drift ends at s = 1; then the second kick. substep's exit test.
            let end = p + d * 1.0
            let vEnd = v + halfKick
            guard !(end.y > cfg.exitY), end.isFinite, vEnd.isFinite else { break }
            if cleared, freeFlight == .checked {
                freeFlightTally.skipped += 1
                if store.sweep(from: q0, by: dq, limit: 1).owner >= 0 { freeFlightTally.misses += 1 }
            }
            ball.position = end
            ball.velocity = vEnd
            // substep's end: the bucket and the clock (the frame stays, checked above).
            if let b = bk {
                let e = b.advanced(by: h)
                bk!.x = e.x
                bk!.direction = e.direction
            }
            clock += h
            steps += 1
            // The caller's stuck rule, as it would run after this step.
            if (end - mark).lengthSquared > stuckDistanceSquared {
                mark = end
                markTime = clock
            } else {
                moved = false
                break
            }
        }
        if steps > 0 {
            buffers.balls[0] = ball
            buffers.contactCount = 0
            bucket = bk
            time = clock
            anchor = mark
            anchorTime = markTime
        }
        return (steps, moved)
    }
}

extension ObstacleStore {
    /// Whether `sweep(from:by:limit: 1)` finds nothing, out of line so the free-flight loop stays small.
    @inline(never)
    func sweepFindsNothing(from p: Vec2, by d: Vec2) -> Bool { sweep(from: p, by: d, limit: 1).owner < 0 }
}

/// The free-flight bound of a world at one moment, for code that traces paths of its own over
/// the same obstacles (the `aim` encoder): whether a ball centre moving from world point `p` by
/// `d` provably touches none of the store's obstacles, with the board held at the angle it had
/// when the probe was taken. A plain value without a reference (the `aim` trace reads it on every
/// step, and a reference would be counted on each copy): it is valid only while the world it came
/// from, or a copy sharing its store, lives (the caller keeps the game).
public struct ClearanceProbe: @unchecked Sendable {
    @usableFromInline let grid: ClearanceGrid
    @usableFromInline let frame: RotatingFrame
    @usableFromInline let inverse: (c: Double, s: Double)

    /// A probe that clears no move (a grid of no cells), for a caller without a bound.
    public static let never = ClearanceProbe(grid: .empty, frame: RotatingFrame(center: .zero), inverse: (1, 0))

    /// True only when no obstacle the store was built with (removed pegs included) comes within
    /// reach of the move; false when unsure. Rotating into the store's frame rounds by about
    /// 1e-13 of the board's size, far inside the bound's margin (1/64 unit).
    @inlinable @inline(__always)
    public func clears(from p: Vec2, by d: Vec2) -> Bool {
        let angle = frame.angle
        if angle == 0 { return grid.clears(from: p, by: d) }
        let q0 = frame.toLocal(p, angle: angle, inverse: inverse)
        return grid.clears(from: q0, by: frame.toLocal(p + d, angle: angle, inverse: inverse) - q0)
    }
}

extension PhysicsWorld {
    /// The free-flight bound at the board's current angle (`ClearanceProbe`).
    public var clearanceProbe: ClearanceProbe {
        ClearanceProbe(grid: store.freeFlightGrid, frame: frame, inverse: frame.angle != 0 ? (Trig.cos(-frame.angle), Trig.sin(-frame.angle)) : (1, 0))
    }
}
