import PeggleLevel
import PegglePhysics
import PeggleUtilities

/// Which variant of generated levels to draw (Procgen's `distribution_mode`). The choices it
/// moves are listed in docs/generator.md.
public enum LevelDistribution: String, CaseIterable, Sendable, Codable, Hashable {
    /// More balls, orange pegs where free-flying shots meet them first, sparser fields, few blockers.
    case easy
    /// Fewer balls, orange pegs leaning to where shots do not reach directly, denser fields, blockers.
    case hard
}

/// The layouts the generator draws from; each is a family of boards with its own parameters.
public enum LevelTemplate: String, CaseIterable, Sendable, Codable, Hashable {
    /// Nested arcs of pegs: smiles, rainbows or mirrored side arcs.
    case arcs
    /// Staggered rows, flat, bent or waved, sometimes with a window cut out.
    case rows
    /// Rings of pegs: concentric, scattered in mirrored pairs, or a grid of small rings.
    case rings
    /// One or two spiral arms.
    case spiral
    /// Two walls of pegs or bricks leading to a gap, with a pool of pegs below it.
    case funnel
    /// Brick pegs on curves: smiles, rainbows or chevrons.
    case bricks
    /// Sine waves of pegs across the board.
    case waves
    /// Pockets between block walls at the bottom, sometimes under a roof with a gate.
    case pockets
    /// Springy triangles and bars that throw the ball back up into the pegs.
    case ramps

    /// Capitalised, for level names.
    public var title: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }
}

/// Makes Peggle levels from seeds: a pure function of (seed, distribution, template). Every
/// random choice comes from a `SeededGenerator` derived from the seed and every angle goes
/// through `Trig`, so a seed gives the same level, byte for byte, on every machine. The work is
/// bounded (each template places a bounded list of candidates once; nothing is retried), and the
/// result always passes `Level.validate`. Rates and ranges are in docs/generator.md.
public enum LevelGenerator {
    /// Bumped whenever a seed would give a different level; written in each level's description.
    public static let version = 1
    /// Most pegs plus blocks in a generated level: the environment's default `max_objects`, so
    /// any generated level fits the default observation.
    public static let maxObjects = 128
    /// Fewest pegs in a generated level.
    public static let minPegs = 16
    /// The author written into generated levels.
    public static let author = "Peggle Gym generator"

    /// The template seed `seed` draws from `templates` (all of them by default) when none is
    /// asked for. Fixed by the seed's first draw, so a template asked for explicitly gives the
    /// same level as the same template drawn.
    public static func template(forSeed seed: UInt64, among templates: [LevelTemplate] = LevelTemplate.allCases) -> LevelTemplate {
        precondition(!templates.isEmpty, "no templates to choose from")
        var master = SeededGenerator(seed: seed)
        return templates[pick(master.next(), templates.count)]
    }

    /// "Arcs 42 (easy)": unique for each seed, distribution and template.
    public static func name(seed: UInt64, distribution: LevelDistribution, template: LevelTemplate) -> String {
        "\(template.title) \(seed) (\(distribution.rawValue))"
    }

    /// Level variant `i` of a sweep that covers every knob the engine has, for checkers that must
    /// meet them all (`peggle-bench freeflight`, the free-flight fuzz test): the generated level
    /// of seed `i` in distribution `i % 2` on template `(i / 2) % 9` with power `(i / 18) % 4`;
    /// two variants in three turn a blue peg into a confusement peg, one in three also another
    /// into a zombie.
    public static func coverageVariant(_ i: Int) -> Level {
        let distribution = LevelDistribution.allCases[i % LevelDistribution.allCases.count]
        let template = LevelTemplate.allCases[(i / 2) % LevelTemplate.allCases.count]
        var level = generate(seed: UInt64(i), distribution: distribution, template: template)
        level.power = Power.allCases[(i / 18) % Power.allCases.count]
        let blue = level.pegs.indices.filter { level.pegs[$0].kind == .blue }
        if i % 3 != 0, blue.count > 2 { level.pegs[blue[0]].kind = .confusement }
        if i % 3 == 2, blue.count > 2 { level.pegs[blue[1]].kind = .zombie }
        return level
    }

    /// The level of `seed` in `distribution`, on `template` or the one the seed draws.
    /// - Parameter rules: board size, cannon, lane and radii the level must respect (the defaults).
    public static func generate(seed: UInt64, distribution: LevelDistribution, template: LevelTemplate? = nil,
                                rules: Rules = Rules()) -> Level {
        var master = SeededGenerator(seed: seed)
        let drawn = LevelTemplate.allCases[pick(master.next(), LevelTemplate.allCases.count)]
        let chosen = template ?? drawn
        let salt: UInt64 = (distribution == .hard ? 0x9E37_79B9_7F4A_7C15 : 0)
            ^ (UInt64(LevelTemplate.allCases.firstIndex(of: chosen)!) &* 0xD1B5_4A32_D192_ED03)
        var design = Design(rng: SeededGenerator(seed: master.next() ^ salt), distribution: distribution, rules: rules)
        let level = design.build(template: chosen)
        var out = level
        out.name = name(seed: seed, distribution: distribution, template: chosen)
        out.author = author
        out.description = "Generated from seed \(seed): template \(chosen.rawValue), distribution \(distribution.rawValue) "
            + "(LevelGenerator \(version)). \(design.summary)"
        return out
    }

    /// `x` scaled to `0..<n` (the high word of x * n: uniform to within 2^-60 for small n).
    static func pick(_ x: UInt64, _ n: Int) -> Int { Int(x.multipliedFullWidth(by: UInt64(n)).high) }
}

/// The per-level knobs, drawn from the distribution (docs/generator.md lists the ranges).
struct Knobs {
    /// Radius of round pegs, board units.
    var radius: Double
    /// Centre-to-centre distance of neighbouring pegs along a curve, board units.
    var spacing: Double
    /// Share of the pegs that are orange.
    var orangeShare: Double
    /// +1: orange pegs go where free-flying shots hit first; -1: where they do not.
    var exposure: Double
    /// Blockers (shelves, deflectors) added on top of the template.
    var blockers: Int
}

/// One level being designed: the random stream, the knobs and the builder.
struct Design {
    var rng: SeededGenerator
    let distribution: LevelDistribution
    let rules: Rules
    var b: LevelBuilder
    var knobs: Knobs
    /// Words about what was chosen, for the description.
    var notes: [String] = []
    var summary: String { notes.joined(separator: "; ") + "." }
    var hard: Bool { distribution == .hard }
    var boardMid: Double { rules.physics.boardWidth / 2 }

    init(rng: SeededGenerator, distribution: LevelDistribution, rules: Rules) {
        self.rng = rng
        self.distribution = distribution
        self.rules = rules
        b = LevelBuilder(rules: rules, capacity: LevelGenerator.maxObjects)
        // A placeholder: the draws below are mutating calls, which need every property set.
        knobs = Knobs(radius: 12, spacing: 36, orangeShare: 0.25, exposure: 1, blockers: 0)
        let easy = distribution == .easy
        let radius = easy ? [12, 12, 13, 14][int(4)] : [10, 11, 12, 12][int(4)]
        knobs = Knobs(
            radius: Double(radius),
            spacing: 2 * Double(radius) + (easy ? uniform(10, 16) : uniform(6, 12)),
            orangeShare: uniform(0.22, 0.28),
            exposure: easy ? 1 : -1,
            blockers: easy ? (chance(0.2) ? 1 : 0) : (chance(0.65) ? 2 + int(2) : 0))
    }

    // MARK: Random helpers

    mutating func unit() -> Double { rng.nextUnit() }
    mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * rng.nextUnit() }
    mutating func int(_ n: Int) -> Int { rng.nextInt(below: n) }
    mutating func int(_ r: ClosedRange<Int>) -> Int { r.lowerBound + rng.nextInt(below: r.count) }
    mutating func chance(_ p: Double) -> Bool { rng.nextUnit() < p }

    // MARK: The whole level

    mutating func build(template: LevelTemplate) -> Level {
        // Blockers first, so the template's pegs are cut around them (and the hard
        // distribution's orange pegs end up under them).
        let blockerCount = (template == .pockets || template == .ramps) ? knobs.blockers / 2 : knobs.blockers
        if blockerCount > 0 { addBlockers(blockerCount) }
        switch template {
        case .arcs: arcs()
        case .rows: rows()
        case .rings: rings()
        case .spiral: spiral()
        case .funnel: funnel()
        case .bricks: bricks()
        case .waves: waves()
        case .pockets: pockets()
        case .ramps: ramps()
        }
        var mode = chooseMode()
        if case .dodge = mode { carveTunnels() }
        if b.pegs.count < LevelGenerator.minPegs { fillRows() }
        let power = choosePower()
        assignKinds(power: power)
        if case var .beatTheScore(b) = mode {
            // A multiple of what the board is worth at multiplier 1, in steps of 500.
            let factor = hard ? uniform(6, 9) : uniform(4, 6)
            b.targetScore = max(500, Int((Double(basePoints()) * factor / 500).rounded()) * 500)
            mode = .beatTheScore(b)
            notes.append("beat the score: \(b.targetScore) points in \(LevelCodec.number(b.timeLimit)) s")
        }
        if case let .dodge(d) = mode { notes.append("\(d.shots) clean shots") }
        notes.append("power \(power.rawValue)")
        var pegs = b.pegs, blocks = b.blocks
        var id = 1
        for k in pegs.indices { pegs[k].id = id; id += 1 }
        for k in blocks.indices { blocks[k].id = id; id += 1 }
        notes.append("\(pegs.count) pegs (\(pegs.filter { $0.kind == .orange }.count) orange), \(blocks.count) blocks")
        return Level(name: "generated", mode: mode, power: power, pegs: pegs, blocks: blocks)
    }

    // MARK: Mode and power

    /// Classic 80%, beat the score 12%, dodge 8% (tunnels are carved for it).
    mutating func chooseMode() -> GameMode {
        let u = unit()
        if u < 0.80 {
            let balls = hard ? int(9...11) : int(12...15)
            notes.append("classic with \(balls) balls")
            return .classic(balls: balls)
        }
        if u < 0.92 {
            // The target is set from the pegs once their kinds are known (assignKinds).
            return .beatTheScore(targetScore: 1, timeLimit: hard ? 90 : 120)
        }
        return .dodge(shots: hard ? int(4...5) : 3)
    }

    /// None 10%, kaboom, spooky and multiball 30% each.
    mutating func choosePower() -> Power {
        let u = unit()
        return u < 0.10 ? .none : u < 0.40 ? .kaboom : u < 0.70 ? .spooky : .multiball
    }

    // MARK: Kinds

    /// Orange pegs by exposure (see `Knobs.exposure`), then two green (with a power), one
    /// purple, and in some levels zombie (10% of levels, 1 to 3) and confusement pegs (6%, 1 or 2).
    mutating func assignKinds(power: Power) {
        let n = b.pegs.count
        // How exposed each peg is: how many of 61 free-flying shots across the aim range touch
        // it first, then how high it is, with a little noise to break ties.
        var hits = [Int](repeating: 0, count: n)
        let aims = 61
        for first in b.firstHits(angles: (0..<aims).map { -1.45 + 2.9 * Double($0) / Double(aims - 1) }) {
            if let i = first, case let .peg(p) = b.placed[i].object { hits[p] += 1 }
        }
        var score = [Double](repeating: 0, count: n)
        for i in 0..<n {
            score[i] = 2 * Double(hits[i]) + (1 - b.pegs[i].center.y / rules.physics.boardHeight) + 0.3 * unit()
        }
        // Most exposed first.
        let order = (0..<n).sorted { score[$0] != score[$1] ? score[$0] > score[$1] : $0 < $1 }
        var weight = [Double](repeating: 0, count: n)
        for (rank, i) in order.enumerated() {
            let q = n > 1 ? Double(rank) / Double(n - 1) : 0
            // Easy: strongly toward the exposed end; hard: mildly toward the hidden end.
            weight[i] = knobs.exposure > 0 ? (1 - q) * (1 - q) + 0.1 : q + 0.25
        }
        var free = Array(0..<n)
        let oranges = min(max(2, Int((Double(n) * knobs.orangeShare).rounded())), n - 4)
        for _ in 0..<oranges {
            let total = free.reduce(0.0) { $0 + weight[$1] }
            var u = unit() * total
            var k = 0
            while k < free.count - 1 && u >= weight[free[k]] { u -= weight[free[k]]; k += 1 }
            b.setKind(.orange, ofPeg: free.remove(at: k))
        }
        func takeRandom(_ kind: PegKind) {
            guard free.count > 1 else { return }
            b.setKind(kind, ofPeg: free.remove(at: int(free.count)))
        }
        if power != .none { takeRandom(.green); takeRandom(.green) }
        takeRandom(.purple)
        if chance(0.10) {
            let z = int(1...3)
            for _ in 0..<z { takeRandom(.zombie) }
            notes.append("\(z) zombie peg\(z == 1 ? "" : "s")")
        }
        if chance(0.06) {
            let c = int(1...2)
            for _ in 0..<c { takeRandom(.confusement) }
            notes.append("\(c) confusement peg\(c == 1 ? "" : "s")")
        }
    }

    /// Base points of every peg (what clearing the board at multiplier 1 scores).
    func basePoints() -> Int { b.pegs.reduce(0) { $0 + rules.points(for: $1.kind) } }

    // MARK: Shared pieces

    /// Points on an ellipse's arc from `a0` to `a1` radians (+x toward +y), about `spacing` apart.
    func arc(_ c: Vec2, _ rx: Double, _ ry: Double, _ a0: Double, _ a1: Double, spacing: Double) -> [(Vec2, Double)] {
        let length = abs(a1 - a0) * (rx + ry) / 2
        let n = max(2, Int(length / spacing) + 1)
        return (0..<n).map { k in
            let a = a0 + (a1 - a0) * Double(k) / Double(n - 1)
            return (c + Vec2(rx * Trig.cos(a), ry * Trig.sin(a)), a)
        }
    }

    /// Degrees to radians.
    func deg(_ d: Double) -> Double { d * Trig.pi / 180 }

    mutating func pegs(_ points: [Vec2]) {
        for p in points { b.peg(p, radius: knobs.radius) }
    }

    /// A staggered field: `rows` rows `dy` apart from `y0`, pegs `dx` apart, symmetric about the
    /// middle, odd rows shifted half a step; `bend(x)` is added to each peg's y.
    mutating func field(rows: Int, y0: Double, dx: Double, dy: Double, xMin: Double = 40, xMax: Double = 760,
                        skip: (Vec2) -> Bool = { _ in false }, bend: (Double) -> Double = { _ in 0 }) {
        for r in 0..<rows {
            let shift = r % 2 == 1 ? 0.5 : 0
            let half = Int(((xMax - xMin) / 2 / dx).rounded(.down)) + 1
            for k in -half...half {
                let x = boardMid + (Double(k) + shift) * dx
                guard x >= xMin && x <= xMax else { continue }
                let p = Vec2(x, y0 + Double(r) * dy + bend(x))
                if !skip(p) { b.peg(p, radius: knobs.radius) }
            }
        }
    }

    /// Shelves and deflectors, in mirrored pairs 70% of the time.
    mutating func addBlockers(_ count: Int) {
        var placed = 0
        for _ in 0..<count {
            let mirrored = chance(0.7)
            let x = mirrored ? uniform(140, 330) : uniform(180, 620)
            let y = uniform(280, 470)
            if chance(0.6) {
                let w = uniform(80, 170), h = uniform(12, 16), rot = uniform(-0.3, 0.3)
                placed += b.block(.rectangle, Vec2(x, y), width: w, height: h, rotation: rot) ? 1 : 0
                if mirrored { placed += b.block(.rectangle, Vec2(2 * boardMid - x, y), width: w, height: h, rotation: -rot) ? 1 : 0 }
            } else {
                let w = uniform(50, 80), h = uniform(28, 40), rot = uniform(-0.6, 0.6)
                let spring = chance(0.4) ? uniform(0.3, 0.8) : 0
                placed += b.block(.triangle, Vec2(x, y), width: w, height: h, rotation: rot, springiness: spring) ? 1 : 0
                if mirrored {
                    placed += b.block(.triangle, Vec2(2 * boardMid - x, y), width: w, height: h, rotation: -rot, springiness: spring) ? 1 : 0
                }
            }
        }
        if placed > 0 { notes.append("\(placed) blocker\(placed == 1 ? "" : "s")") }
    }

    /// A plain staggered field where the template left room: the fallback that makes sure a
    /// level has at least `LevelGenerator.minPegs` pegs.
    mutating func fillRows() {
        field(rows: 5, y0: 150, dx: knobs.spacing * 2, dy: 60)
    }

    // MARK: Dodge

    /// Clears 1 to 3 free-flight paths of pegs and blocks, so clean shots exist: easy levels get
    /// two tunnels with 10 units of slack either side, hard ones one or two with 4.
    mutating func carveTunnels() {
        let tunnels = hard ? int(1...2) : 2
        let slack = hard ? 4.0 : 10.0
        // Candidate aims 0.1 rad apart across +-0.7 (a steeper free flight meets a side wall
        // before the lane), jittered, drawn without replacement.
        var candidates = (0..<15).map { -0.7 + 0.1 * Double($0) }
        var angles: [Double] = []
        for _ in 0..<tunnels {
            let a = candidates.remove(at: int(candidates.count)) + uniform(-0.03, 0.03)
            // To a thousandth, so the description names the exact aim of the path.
            angles.append((a * 1000).rounded() / 1000)
        }
        let r = rules.physics.ballRadius + slack
        let paths = angles.map { b.flightPath(angle: $0) }
        func inTunnel(_ s: Shape) -> Bool {
            for path in paths { for p in path where ObstacleStore.distance(from: p, to: s) < r { return true } }
            return false
        }
        b.removeBlocks { inTunnel(.polygon($0.polygon)) }
        b.removePegs { inTunnel($0.physicsShape) }
        notes.append("dodge: \(tunnels) clear path\(tunnels == 1 ? "" : "s") at "
            + angles.map { LevelCodec.number($0) }.joined(separator: ", ") + " rad")
    }
}
