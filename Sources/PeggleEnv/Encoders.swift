import PeggleGame
import PeggleLevel
import PegglePhysics
import Synchronization

/// Which observation encoder an environment uses.
public enum EncoderKind: String, Sendable, CaseIterable {
    /// A padded, masked list of the level's objects (pegs, then blocks) after the globals.
    case objects
    /// An image-like grid of channels (one per peg kind, blocks, bucket, globals).
    case grid
    /// The board as an RGB picture, channels first, bytes 0...255 (drawn by `EnvConfig.rasterizer`).
    case pixels
    /// One row per aim bin describing what a shot there would do (`AimEncoder`, the features the
    /// linear agent scores), values in [0, 1]; with the discrete action, action b fires at row b.
    case aim
}

/// Writes observations as float32 values in [-1, 1] into caller-owned memory, allocating
/// nothing. Layouts are fixed by the encoder's parameters and documented in
/// docs/environment.md; every feature is in [-1, 1].
public struct ObservationEncoder: Sendable, Equatable {
    public let kind: EncoderKind
    /// Object slots (the `objects` encoder); a level with more pegs plus blocks is refused.
    public let maxObjects: Int
    /// The `pixels` encoder's picture, pixels: `pixelWidth` across, and the height that keeps
    /// the board's aspect ratio under the rules given at init (72 for 96 on the 800 x 600 board).
    public let pixelWidth: Int, pixelHeight: Int
    /// The `aim` encoder's rows: one per bin, evenly spaced over its aim range.
    public let aim: AimEncoder

    /// Number of global features, first in the `objects` layout, first in the grid's last channel.
    public static let globalCount = 17
    /// Features per object slot.
    public static let objectFeatures = 17
    /// Grid cells across and down (20 board units each) and channels.
    public static let gridWidth = 40, gridHeight = 30, gridChannels = 9

    private static let powers = Power.allCases
    private static let kinds = PegKind.allCases

    /// The `pixels` encoder's default width: 96 x 72 pixels, above the 64 x 64 that common CNN
    /// encoders take and NatureCNN's 36 x 36 minimum, with a peg about 3 pixels across.
    public static let defaultPixelWidth = 96
    /// Widths the `pixels` encoder takes: from NatureCNN's minimum height (36 rows on the
    /// 800 x 600 board) to one pixel per board unit.
    public static let pixelWidths = 48...800

    /// The encoder of `config`'s settings (`EnvConfig.observationEncoder`). `pixelWidth` applies
    /// to the `pixels` encoder only and must be in `pixelWidths` (checked by `PeggleEnv`); `rules`
    /// sets the picture's aspect ratio (`Rules.pictureHeight`). `bins` applies to `aim` only.
    init(kind: EncoderKind, maxObjects: Int, pixelWidth: Int, bins: Int, rules: Rules) {
        self.kind = kind
        self.maxObjects = maxObjects
        self.pixelWidth = pixelWidth
        pixelHeight = rules.pictureHeight(width: pixelWidth)
        aim = AimEncoder(bins: max(2, bins))
    }

    /// Shape of one observation.
    public var shape: [Int] {
        switch kind {
        case .objects: [Self.globalCount + maxObjects * Self.objectFeatures]
        case .grid: [Self.gridChannels, Self.gridHeight, Self.gridWidth]
        case .pixels: [3, pixelHeight, pixelWidth]
        case .aim: [aim.bins, AimEncoder.featureCount]
        }
    }

    /// The observation space.
    public var space: Space {
        switch kind {
        case .objects, .grid: .box(low: -1, high: 1, shape: shape)
        case .pixels: .image(shape: shape)
        case .aim: .box(low: 0, high: 1, shape: shape)
        }
    }

    /// Floats in one observation.
    public var size: Int {
        // Not `shape.reduce`: building the shape array would allocate on every observation.
        switch kind {
        case .objects: Self.globalCount + maxObjects * Self.objectFeatures
        case .grid: Self.gridChannels * Self.gridHeight * Self.gridWidth
        case .pixels: 3 * pixelHeight * pixelWidth
        case .aim: aim.size
        }
    }

    /// Why `level` cannot be encoded, if it cannot.
    public func problem(with level: Level) -> String? {
        if kind == .objects && level.pegs.count + level.blocks.count > maxObjects {
            return "\(level.pegs.count) pegs and \(level.blocks.count) blocks exceed max_objects \(maxObjects)"
        }
        return nil
    }

    /// Bytes an environment keeps per level beside its new game for this encoder (the `aim`
    /// encoder's start traces, `KeptStartTraces`: about 640 a bin, a trace and its arrays), for
    /// the serve memory budget.
    public var keptBytesPerLevel: Int { kind == .aim ? 640 * aim.bins : 0 }

    /// Writes the observation of `state` (after `shots` of an episode capped at `maxShots`).
    /// `scratch` keeps the `pixels` and `aim` encoders' buffers from call to call.
    public func encode(_ state: GameState, shots: Int, maxShots: Int, scratch: inout EncoderScratch,
                       into out: UnsafeMutableBufferPointer<Float>) {
        precondition(out.count >= size, "observation buffer too small")
        switch kind {
        case .objects: encodeObjects(state, shots: shots, maxShots: maxShots, into: out)
        case .grid: encodeGrid(state, shots: shots, maxShots: maxShots, into: out)
        case .pixels: encodePixels(state, scratch: &scratch, into: out)
        // Consecutive observations of one environment are one game (its reset forgets the traces).
        case .aim: aim.encode(state, scene: &scratch.aimScene, keepTraces: true, into: out)
        }
    }

    // MARK: Globals

    /// x in [0, scale] to [-1, 1], clamped.
    @inline(__always)
    static func unit(_ x: Double, _ scale: Double) -> Float {
        Float(min(max(x / scale, 0), 1) * 2 - 1)
    }

    func writeGlobals(_ s: GameState, shots: Int, maxShots: Int, into o: UnsafeMutableBufferPointer<Float>, at base: Int) {
        let rules = s.rules
        var k = base
        func put(_ v: Float) { o[k] = v; k += 1 }
        switch s.level.mode {
        case .classic: put(Self.unit(Double(s.ballsLeft), 20))
        case .beatTheScore: put(1)
        case let .dodge(d): put(Self.unit(Double(s.ballsLeft), Double(d.shots)))
        }
        put(s.orangeTotal > 0 ? Self.unit(Double(s.orangeRemaining), Double(s.orangeTotal)) : -1)
        put(Self.unit(Double(s.multiplier - 1), 9))
        put(Self.unit(s.bucket.x, rules.physics.boardWidth))
        put(Float(s.bucket.direction))
        put(Float(Trig.cos(s.boardAngle)))
        switch s.level.mode {
        case let .beatTheScore(b):
            put(Self.unit(s.timeLeft ?? 0, b.timeLimit))
            put(Self.unit(Double(s.score), Double(b.targetScore)))
        default:
            put(1)
            put(Self.unit(Double(s.score), 100_000))
        }
        if case .dodge = s.level.mode { put(Self.unit(Double(s.chances), 5)) } else { put(-1) }
        put(Self.unit(Double(shots), Double(max(1, maxShots))))
        switch s.level.mode {
        case .classic: put(1); put(0); put(0)
        case .beatTheScore: put(0); put(1); put(0)
        case .dodge: put(0); put(0); put(1)
        }
        // Stored once: `allCases` builds a new array on every call.
        for p in Self.powers { put(s.level.power == p ? 1 : 0) }
        assert(k - base == Self.globalCount)
    }

    // MARK: Objects

    func encodeObjects(_ s: GameState, shots: Int, maxShots: Int, into o: UnsafeMutableBufferPointer<Float>) {
        writeGlobals(s, shots: shots, maxShots: maxShots, into: o, at: 0)
        let w = s.rules.physics.boardWidth, h = s.rules.physics.boardHeight
        let turn = s.boardAngle
        let c = Trig.cos(turn), sn = Trig.sin(turn)
        var slot = 0
        func write(_ features: (Vec2, Bool, Double, Double, Double, Int, Bool, Bool, Double)) {
            let (center, polygon, hw, hh, rotation, kind, block, triangle, spring) = features
            let base = Self.globalCount + slot * Self.objectFeatures
            o[base] = 1
            o[base + 1] = Self.unit(center.x, w)
            o[base + 2] = Self.unit(center.y, h)
            o[base + 3] = polygon ? 1 : 0
            o[base + 4] = Self.unit(hw, 200)
            o[base + 5] = Self.unit(hh, 200)
            o[base + 6] = Float(Trig.cos(rotation + turn))
            o[base + 7] = Float(Trig.sin(rotation + turn))
            for k in 0..<6 { o[base + 8 + k] = k == kind ? 1 : 0 }
            o[base + 14] = block ? 1 : 0
            o[base + 15] = triangle ? 1 : 0
            o[base + 16] = block ? Float(spring * 2 - 1) : -1
        }
        for (i, peg) in s.level.pegs.enumerated() where slot < maxObjects {
            defer { slot += 1 }
            guard !s.pegs[i].isRemoved else {
                clear(o, slot)
                continue
            }
            let kind = Self.kinds.firstIndex(of: s.pegs[i].kind)!
            switch peg.shape {
            case let .circle(r):
                write((s.pegCenter(i), false, r, r, 0, kind, false, false, 0))
            case let .brick(bw, bh, rot):
                write((s.pegCenter(i), true, bw / 2, bh / 2, rot, kind, false, false, 0))
            }
        }
        for b in s.level.blocks where slot < maxObjects {
            defer { slot += 1 }
            let center = Vec2(400, 300) + (b.center - Vec2(400, 300)).rotated(cos: c, sin: sn)
            write((center, true, b.width / 2, b.height / 2, b.rotation, -1, true, b.shape == .triangle, b.springiness))
        }
        while slot < maxObjects {
            clear(o, slot)
            slot += 1
        }
    }

    @inline(__always)
    func clear(_ o: UnsafeMutableBufferPointer<Float>, _ slot: Int) {
        let base = Self.globalCount + slot * Self.objectFeatures
        for k in 0..<Self.objectFeatures { o[base + k] = 0 }
    }

    // MARK: Grid

    func encodeGrid(_ s: GameState, shots: Int, maxShots: Int, into o: UnsafeMutableBufferPointer<Float>) {
        let gw = Self.gridWidth, gh = Self.gridHeight
        let plane = gw * gh
        for k in 0..<size { o[k] = 0 }
        let cell = s.rules.physics.boardWidth / Double(gw)
        let turn = s.boardAngle
        let center = Vec2(s.rules.physics.boardWidth / 2, s.rules.physics.boardHeight / 2)
        // The shapes come from the physics world (in the board's own frame, built once per
        // game), so encoding allocates nothing. A turned board is handled by turning each
        // query point back instead of building turned copies of the shapes.
        let back = Vec2(Trig.cos(-turn), Trig.sin(-turn))
        func mark(_ channel: Int, _ shape: Shape) {
            // Cells whose centre is inside the turned shape, and always the cell of its centre.
            var lo: Vec2, hi: Vec2
            if turn == 0 {
                (lo, hi) = shape.bounds
            } else {
                switch shape {
                case let .circle(c, r):
                    let t = center + (c - center).rotated(by: turn)
                    (lo, hi) = (t - Vec2(r, r), t + Vec2(r, r))
                case let .polygon(p):
                    lo = Vec2(.infinity, .infinity)
                    hi = -lo
                    for v in p.vertices {
                        let t = center + (v - center).rotated(by: turn)
                        lo = pointwiseMin(lo, t)
                        hi = pointwiseMax(hi, t)
                    }
                }
            }
            let x0 = max(0, Int(lo.x / cell)), x1 = min(gw - 1, Int(hi.x / cell))
            let y0 = max(0, Int(lo.y / cell)), y1 = min(gh - 1, Int(hi.y / cell))
            if x0 <= x1 && y0 <= y1 {
                for y in y0...y1 {
                    for x in x0...x1 {
                        var p = Vec2((Double(x) + 0.5) * cell, (Double(y) + 0.5) * cell)
                        if turn != 0 { p = center + (p - center).rotated(cos: back.x, sin: back.y) }
                        if ObstacleStore.distance(from: p, to: shape) <= 0 { o[channel * plane + y * gw + x] = 1 }
                    }
                }
            }
            let c = (lo + hi) / 2
            let cx = min(max(Int(c.x / cell), 0), gw - 1), cy = min(max(Int(c.y / cell), 0), gh - 1)
            o[channel * plane + cy * gw + cx] = 1
        }
        let obstacles = s.world.store.obstacles
        let pegCount = s.level.pegs.count
        for i in 0..<pegCount where !s.pegs[i].isRemoved {
            mark(Self.kinds.firstIndex(of: s.pegs[i].kind)!, obstacles[i].shape)
        }
        for k in pegCount..<obstacles.count { mark(6, obstacles[k].shape) }
        // The bucket's mouth, on the bottom row.
        let bx = s.bucket.x, half = s.rules.bucket.width / 2
        for x in max(0, Int((bx - half) / cell))...min(gw - 1, Int((bx + half) / cell)) {
            o[7 * plane + (gh - 1) * gw + x] = 1
        }
        writeGlobals(s, shots: shots, maxShots: maxShots, into: o, at: 8 * plane)
    }
}

/// What an encoder keeps from observation to observation, per environment, so that an
/// observation allocates nothing once the buffers have grown: the `pixels` encoder's rasteriser
/// and picture, the `aim` encoder's scene.
public struct EncoderScratch: Sendable {
    var renderer: (any BoardRasterizer)?
    var rgb: [UInt8] = []
    var aimScene = AimScene()
    public init(renderer: (any BoardRasterizer)? = nil) { self.renderer = renderer }
}

/// The `aim` encoder's traces of each level's board before its first shot, shared by every
/// copy of an environment (a vector's environments, its snapshots): a level's first observation
/// traces every bin from the cannon, and the board is the same at every reset of the level, so
/// later episodes on it start from these (`AimScene.start(from:)`) and trace only what their
/// shots change. Kept for as many levels as the environment keeps new games (`EnvConfig.keptLevels`).
final class KeptStartTraces: Sendable {
    private let traces = Mutex<[UInt64: AimStartTraces]>([:])
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// The traces of level `key` (a level seed, or a level file's index), if kept.
    func traces(_ key: UInt64) -> AimStartTraces? { traces.withLock { $0[key] } }

    func keep(_ kept: AimStartTraces, _ key: UInt64) {
        traces.withLock { if $0.count < limit { $0[key] = kept } }
    }
}

extension ObservationEncoder {
    // MARK: Pixels

    /// The board as `SVGRenderer` draws it, without text or shot paths (between shots no peg is
    /// lit): pegs by kind, blocks, the bucket with its direction arrow, the cannon. Channels
    /// first (R, G, B planes of `pixelHeight` rows), each byte as a float32 whole number.
    func encodePixels(_ s: GameState, scratch: inout EncoderScratch, into o: UnsafeMutableBufferPointer<Float>) {
        // The environment refuses the pixels encoder without a rasteriser, so there is one.
        scratch.renderer!.drawBoard(s, width: pixelWidth, into: &scratch.rgb)
        let plane = pixelWidth * pixelHeight
        scratch.rgb.withUnsafeBufferPointer { rgb in
            for p in 0..<plane {
                o[p] = Float(rgb[3 * p])
                o[plane + p] = Float(rgb[3 * p + 1])
                o[2 * plane + p] = Float(rgb[3 * p + 2])
            }
        }
    }
}
