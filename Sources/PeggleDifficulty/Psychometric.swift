import Foundation

/// The skill model: how the skill agent's chance of winning a level falls with its aim noise, as
/// a psychometric function of x = ln sigma, and the grid its parameters live on. docs/skill-model.md
/// is the specification; every constant is here, once.
///
///     P(win | sigma) = floor + (ceiling - floor) / (1 + exp(slope * (x - x50) + L)),
///     L = ln((1 - q) / q),  q = (1/2 - floor) / (ceiling - floor)
///
/// so that P = 1/2 exactly at x = x50 = ln sigma50 (the headline), P -> ceiling as sigma -> 0
/// (the agent's best: below 1 where it cannot always win even aiming perfectly) and P -> floor
/// as sigma grows (luck: above 0 where random aims can win). `slope` is the steepness in ln sigma.
public enum SkillModel {
    /// The measured range of sigma, radians: trials are placed inside it.
    public static let lowest = 0.001
    public static let highest = 1.0
    /// Grid points of x50 per decade of sigma (a point every factor 1.049).
    public static let pointsPerDecade = 48
    /// Grid step in x = ln sigma.
    public static let step = log(10.0) / Double(pointsPerDecade)
    /// Grid points beyond each end of the range (a factor 4.6), so that "below the range" and
    /// "above the range" have posterior mass of their own.
    public static let margin = 32
    /// Points inside the range: `lowest` is point `margin`, `highest` point `margin + inRange`.
    public static let inRange = 3 * pointsPerDecade
    /// x50 grid points, `0..<x50Count`.
    public static let x50Count = inRange + 2 * margin + 1
    /// Trials are placed on every `trialStride`-th grid point inside the range (24 per decade: a
    /// factor 1.10), so games at a sigma repeat and a rater can share their first decision.
    public static let trialStride = 2
    /// Slopes, per unit of ln sigma, log-spaced from 0.7 (the win rate falls from 0.88 to 0.12
    /// over a factor 300 of sigma) to 14 (over a factor 1.33); the prior is uniform over them.
    public static let slopes: [Double] = (0..<8).map { 0.7 * pow(20, Double($0) / 7) }
    /// Ceilings with their prior weights (most levels: the agent wins nearly always at tiny noise).
    public static let ceilings: [(value: Double, prior: Double)] = [(0.6, 0.1), (0.75, 0.15), (0.88, 0.2), (0.95, 0.25),
                                                                     (0.99, 0.3)]
    /// Floors with their prior weights (most levels: luck alone rarely wins).
    public static let floors: [(value: Double, prior: Double)] = [(0, 0.3), (0.02, 0.25), (0.06, 0.2), (0.15, 0.15),
                                                                  (0.3, 0.1)]
    /// Probabilities are kept in [clamp, 1 - clamp] so that no outcome is impossible.
    package static let clamp = 1e-9

    /// ln sigma of x50 grid point `g`.
    public static func x(_ g: Int) -> Double { log(lowest) + Double(g - margin) * step }

    /// The trial sigmas, radians, ascending: `lowest` to `highest`, 24 per decade, each rounded
    /// to 8 decimals so the stored value is the same on every machine whatever its `exp`.
    public static let trialSigmas: [Double] = stride(from: margin, through: margin + inRange, by: trialStride).map {
        (exp(x($0)) * 1e8).rounded() / 1e8
    }

    /// The grid point of each trial sigma.
    package static let trialPoint: [Double: Int] = Dictionary(uniqueKeysWithValues: trialSigmas.enumerated().map {
        ($1, margin + $0 * trialStride)
    })

    /// The skill model as a QUEST+ model (`SkillPosterior.entropyPlacement`): the trial sigmas are
    /// the stimuli, the grid's cells the parameters in `SkillPosterior.logWeights`' order, outcome
    /// 0 a win, and the entropy is of the x50 marginal. Tabulated once (73 x 2 x 41,800 numbers).
    static let questPlus: QuestPlusModel = {
        let stimuli = trialSigmas.map { trialPoint[$0]! }
        let shapes = shapeCount, perSlope = ceilings.count * floors.count
        return QuestPlusModel(stimuli: stimuli, cells: Array(0..<(x50Count * shapes)), outcomes: 2,
                              group: { $0 / shapes }) { s, cell in
            let g = cell / shapes, k = cell % shapes
            let b = k / perSlope, ci = (k % perSlope) / floors.count, fi = k % floors.count
            let p = probability(x: Double(s - g) * step, x50: 0, slope: slopes[b], ceiling: ceilings[ci].value,
                                floor: floors[fi].value, offset: offsets[ci * floors.count + fi])
            return [p, 1 - p]
        }
    }()

    /// Cells per x50 point: slope x ceiling x floor.
    package static let shapeCount = slopes.count * ceilings.count * floors.count

    /// ln slope, ceiling and floor of each shape (slope-major, then ceiling, then floor).
    package static let shapeLogSlope: [Double] = slopes.flatMap { b in Array(repeating: log(b), count: ceilings.count * floors.count) }
    package static let shapeCeiling: [Double] = Array(repeating: ceilings.flatMap { c in floors.map { _ in c.value } }, count: slopes.count)
        .flatMap { $0 }
    package static let shapeFloor: [Double] = Array(repeating: ceilings.flatMap { _ in floors.map(\.value) }, count: slopes.count)
        .flatMap { $0 }

    /// What one game at x = ln sigma tells about x50 when the curve is shape `k` and x - x50 = `d`:
    /// the Fisher information (dP/dx50)^2 / (P (1 - P)).
    static func information(shape k: Int, at d: Double) -> Double {
        let b = exp(shapeLogSlope[k]), c = shapeCeiling[k], f = shapeFloor[k]
        let core = logistic(b * d + offsets[k % (ceilings.count * floors.count)])
        let p = f + (c - f) * core, dp = (c - f) * b * core * (1 - core)
        return dp * dp / (p * (1 - p))
    }

    /// The most one game can tell about x50 under each shape: `information` at the best sigma,
    /// maximised over sigma - sigma50 on a grid 0.005 wide in ln sigma (`StopRule.reachable`).
    package static let bestInformation: [Double] = (0..<shapeCount).map { k in
        (-4000...4000).map { information(shape: k, at: Double($0) * 0.005) }.max()!
    }

    /// Slope, ceiling and floor of shape `k` (`0..<shapeCount`, slope-major, then ceiling, then floor).
    public static func shape(_ k: Int) -> (slope: Double, ceiling: Double, floor: Double) {
        (exp(shapeLogSlope[k]), shapeCeiling[k], shapeFloor[k])
    }

    /// The trial sigma at which one game tells most about x50 (`information`) when the level's
    /// curve is shape `k` with sigma50 `sigma50`: where a rater that knew the curve would play
    /// every game.
    public static func mostInformativeSigma(sigma50: Double, shape k: Int) -> Double {
        trialSigmas.max { information(shape: k, at: log($0) - log(sigma50)) < information(shape: k, at: log($1) - log(sigma50)) }!
    }

    /// L = ln((1 - q) / q) of each (ceiling, floor) pair, ceiling-major.
    package static let offsets: [Double] = ceilings.flatMap { c in
        floors.map { f in
            let q = (0.5 - f.value) / (c.value - f.value)
            return log((1 - q) / q)
        }
    }

    /// The model's one logistic curve, 1 / (1 + e^z): from 1 (z -> -infinity) down to 0, 1/2 at
    /// z = 0. The curve between ceiling and floor, with z = slope (x - x50) + L; every caller
    /// (`probability`, `information`, the synthetic levels through `probability`) goes through it,
    /// so the arithmetic, and every pinned value, is one expression's.
    @inline(__always)
    static func logistic(_ z: Double) -> Double { 1 / (1 + exp(z)) }

    /// P(win) at x for one cell; x = -infinity (sigma 0) gives the ceiling.
    public static func probability(x: Double, x50: Double, slope: Double, ceiling: Double, floor: Double, offset: Double) -> Double {
        let core = x == -.infinity ? 1 : logistic(slope * (x - x50) + offset)
        return min(max(floor + (ceiling - floor) * core, clamp), 1 - clamp)
    }

    /// ln P(win) and ln P(loss) for a trial on grid point s against x50 point g, by d = s - g
    /// (from -(x50Count - 1)): `[(d + x50Count - 1) * shapeCount + shape]`. Computed once.
    static let tables: (win: [Double], loss: [Double]) = {
        let span = 2 * x50Count - 1
        var win = [Double](repeating: 0, count: span * shapeCount)
        var loss = win
        for di in 0..<span {
            let d = Double(di - (x50Count - 1)) * step
            var k = di * shapeCount
            for slope in slopes {
                for (ci, c) in ceilings.enumerated() {
                    for (fi, f) in floors.enumerated() {
                        let p = probability(x: d, x50: 0, slope: slope, ceiling: c.value, floor: f.value,
                                            offset: offsets[ci * floors.count + fi])
                        win[k] = log(p)
                        loss[k] = log(1 - p)
                        k += 1
                    }
                }
            }
        }
        return (win, loss)
    }()
}

/// What a level's skill games say about sigma50: the posterior over the skill model's grid
/// (x50 x slope x ceiling x floor), starting from the prior. Adding the same games in the same
/// order gives the same bits; the rater adds them in a fixed order, so a rating never depends on
/// threads or on where a run was interrupted.
public struct SkillPosterior: Sendable, Equatable {
    /// Log posterior weight per cell, unnormalised: `[(g * slopes + b) * (ceilings * floors) + c * floors + f]`.
    public private(set) var logWeights: [Double]
    /// Games added.
    public private(set) var games = 0
    public private(set) var wins = 0

    /// The prior: `SkillPrior.flat` (x50 uniform in ln sigma over the grid, slopes uniform,
    /// ceilings and floors by their prior weights) unless another is given (docs/measurement.md, "Priors").
    public init(prior: SkillPrior = .flat) {
        let shape = prior.shapeLogWeights
        if prior.x50 == nil {
            logWeights = Array((0..<SkillModel.x50Count).map { _ in shape }.joined())
        } else {
            logWeights = Array((0..<SkillModel.x50Count).map { g in
                let w = prior.x50LogWeight(g)
                return shape.map { $0 + w }
            }.joined())
        }
    }

    /// The posterior after `games`, added in order.
    public init(_ games: [(sigma: Double, won: Bool)], prior: SkillPrior = .flat) {
        self.init(prior: prior)
        for g in games { add(sigma: g.sigma, wins: g.won ? 1 : 0, losses: g.won ? 0 : 1) }
    }

    /// Adds `wins` won and `losses` lost games at aim noise `sigma` (radians, 0 or more).
    public mutating func add(sigma: Double, wins: Int, losses: Int) {
        precondition(sigma >= 0 && sigma.isFinite && wins >= 0 && losses >= 0)
        if wins + losses == 0 { return }
        games += wins + losses
        self.wins += wins
        let m = SkillModel.self, shapes = m.shapeCount
        let w = Double(wins), l = Double(losses)
        if let s = m.trialPoint[sigma] {
            // On the trial lattice: table lookups, no exp or log. (While loops: this also runs in
            // debug builds, where the tests rate 200 synthetic levels.)
            let count = m.x50Count
            m.tables.win.withUnsafeBufferPointer { winT in
                m.tables.loss.withUnsafeBufferPointer { lossT in
                    logWeights.withUnsafeMutableBufferPointer { lw in
                        var g = 0
                        while g < count {
                            let t = (s - g + count - 1) * shapes, base = g * shapes
                            var k = 0
                            while k < shapes {
                                lw[base + k] += w * winT[t + k] + l * lossT[t + k]
                                k += 1
                            }
                            g += 1
                        }
                    }
                }
            }
            return
        }
        let x = sigma == 0 ? -Double.infinity : log(sigma)
        for g in 0..<m.x50Count {
            let x50 = m.x(g)
            var k = g * shapes
            for slope in m.slopes {
                for (ci, c) in m.ceilings.enumerated() {
                    for (fi, f) in m.floors.enumerated() {
                        let p = SkillModel.probability(x: x, x50: x50, slope: slope, ceiling: c.value, floor: f.value,
                                                       offset: m.offsets[ci * m.floors.count + fi])
                        logWeights[k] += w * log(p) + l * log(1 - p)
                        k += 1
                    }
                }
            }
        }
    }

    /// Normalised posterior probabilities per cell, and their sums per x50 grid point.
    func weights() -> (cells: [Double], marginal: [Double]) {
        let n = logWeights.count, shapes = SkillModel.shapeCount
        var cells = [Double](repeating: 0, count: n)
        var marginal = [Double](repeating: 0, count: SkillModel.x50Count)
        logWeights.withUnsafeBufferPointer { lw in
            cells.withUnsafeMutableBufferPointer { c in
                marginal.withUnsafeMutableBufferPointer { mg in
                    var top = -Double.infinity
                    var i = 0
                    while i < n {
                        top = max(top, lw[i])
                        i += 1
                    }
                    var total = 0.0
                    i = 0
                    while i < n {
                        c[i] = exp(lw[i] - top)
                        total += c[i]
                        i += 1
                    }
                    i = 0
                    while i < n {
                        c[i] /= total
                        mg[i / shapes] += c[i]
                        i += 1
                    }
                }
            }
        }
        return (cells, marginal)
    }

    /// The p-quantile of x50 (ln sigma), each grid point standing for a bin of one step centred
    /// on it, the density uniform within the bin.
    static func quantile(_ p: Double, marginal: [Double]) -> Double {
        var below = 0.0
        for (g, m) in marginal.enumerated() {
            if below + m >= p, m > 0 {
                return SkillModel.x(g) + ((p - below) / m - 0.5) * SkillModel.step
            }
            below += m
        }
        return SkillModel.x(marginal.count - 1) + 0.5 * SkillModel.step
    }

    /// Posterior probability that x50 < x.
    static func probabilityBelow(_ x: Double, marginal: [Double]) -> Double {
        var total = 0.0
        for (g, m) in marginal.enumerated() {
            let lo = SkillModel.x(g) - 0.5 * SkillModel.step
            let covered = min(max((x - lo) / SkillModel.step, 0), 1)
            total += m * covered
        }
        return min(max(total, 0), 1)
    }

    /// The `q`-quantile over the posterior of the shape's `SkillModel.bestInformation`: with
    /// posterior probability `q`, one game can tell no more than this about x50.
    public func bestInformation(quantile q: Double) -> Double {
        let cells = weights().cells, m = SkillModel.self, shapes = m.shapeCount
        var perShape = [Double](repeating: 0, count: shapes)
        for i in cells.indices { perShape[i % shapes] += cells[i] }
        var acc = 0.0
        for k in (0..<shapes).sorted(by: { m.bestInformation[$0] < m.bestInformation[$1] }) {
            acc += perShape[k]
            if acc >= q { return m.bestInformation[k] }
        }
        return m.bestInformation.max()!
    }

    /// Posterior probability of each tier of `edges`, hardest first (very hard, hard, medium, easy).
    public func tierMass(_ edges: TierEdges) -> [Double] {
        let marginal = weights().marginal
        let below = [edges.veryHard, edges.hard, edges.medium].map { Self.probabilityBelow(log($0), marginal: marginal) }
        return [below[0], below[1] - below[0], below[2] - below[1], 1 - below[2]]
    }

    /// The posterior's summary: sigma50 with its 95% interval, and the other parameters' means.
    public func summary(level: Double = 0.95) -> SkillFit {
        let (w, marginal) = weights()
        let tail = (1 - level) / 2
        let median = Self.quantile(0.5, marginal: marginal)
        let low = Self.quantile(tail, marginal: marginal), high = Self.quantile(1 - tail, marginal: marginal)
        let m = SkillModel.self
        let below = Self.probabilityBelow(log(m.lowest), marginal: marginal)
        let above = 1 - Self.probabilityBelow(log(m.highest), marginal: marginal)
        // Posterior means of ln slope, ceiling and floor: per shape first, then over shapes.
        let shapes = m.shapeCount
        var perShape = [Double](repeating: 0, count: shapes)
        w.withUnsafeBufferPointer { c in
            perShape.withUnsafeMutableBufferPointer { ps in
                var i = 0
                while i < c.count {
                    ps[i % shapes] += c[i]
                    i += 1
                }
            }
        }
        var slope = 0.0, ceiling = 0.0, floor = 0.0
        for k in 0..<shapes {
            slope += perShape[k] * m.shapeLogSlope[k]
            ceiling += perShape[k] * m.shapeCeiling[k]
            floor += perShape[k] * m.shapeFloor[k]
        }
        return SkillFit(games: games, wins: wins, estimate: exp(median), low: exp(low), high: exp(high), level: level,
                        probabilityBelow: below, probabilityAbove: above, slope: exp(slope), ceiling: ceiling, floor: floor)
    }

    /// The posterior quantiles (`tail`, 1/2, 1 - `tail`) of the win probability at each sigma:
    /// the fitted curve and its band. Quantiles are read from a 1,000-bin histogram of P.
    public func band(sigmas: [Double], tail: Double = 0.025) -> [(low: Double, middle: Double, high: Double)] {
        let w = weights().cells
        let m = SkillModel.self
        let bins = 1000
        return sigmas.map { sigma in
            let x = sigma <= 0 ? -Double.infinity : log(sigma)
            var histogram = [Double](repeating: 0, count: bins)
            var k = 0
            for g in 0..<m.x50Count {
                let x50 = m.x(g)
                for slope in m.slopes {
                    for (ci, c) in m.ceilings.enumerated() {
                        for (fi, f) in m.floors.enumerated() {
                            if w[k] > 1e-12 {
                                let p = SkillModel.probability(x: x, x50: x50, slope: slope, ceiling: c.value,
                                                               floor: f.value, offset: m.offsets[ci * m.floors.count + fi])
                                histogram[min(bins - 1, Int(p * Double(bins)))] += w[k]
                            }
                            k += 1
                        }
                    }
                }
            }
            let total = histogram.reduce(0, +)
            func q(_ p: Double) -> Double {
                var acc = 0.0
                for (i, h) in histogram.enumerated() {
                    if acc + h >= p * total, h > 0 { return (Double(i) + (p * total - acc) / h) / Double(bins) }
                    acc += h
                }
                return 1
            }
            return (q(tail), q(0.5), q(1 - tail))
        }
    }

    /// How far a batch spreads about the posterior median: the batch's quantiles are moved this
    /// many times their distance from the median (measured on synthetic levels: 2 stops soonest;
    /// docs/measurement.md).
    public static let spread = 2.0

    /// Where the next `count` games teach most about sigma50, by `rule`. `quantile`: at the posterior's quantiles
    /// (j + 1/2) / count of x50, spread `spread` times wider about the median, clamped to the
    /// measured range and snapped to the trial lattice. QUEST places each trial at the
    /// posterior's best guess; a batch spreads its trials over the posterior instead, so that a
    /// wide posterior is explored and a narrow one is bracketed on both sides of sigma50, which
    /// also teaches the slope.
    public func placement(count: Int, rule: Placement) -> [Double] {
        switch rule {
        case .quantile: return placement(count: count)
        case .entropy: return entropyPlacement(count: count)
        }
    }

    /// Where QUEST+ puts the next `count` games (the Psi method: the expected entropy of the x50
    /// marginal, slope, ceiling and floor marginalised), on the trial lattice. A batch is chosen
    /// greedily one game at a time: each game minimises the expected entropy after it, given the
    /// earlier games of the batch counted by their expected outcomes (the posterior times
    /// P(win)^p P(loss)^(1 - p), p the predicted win rate), so the batch depends on the posterior
    /// alone, never on threads. Cells below 1e-13 of the posterior (at most 4e-9 of its mass in
    /// all) are left out of the sums, which keeps a choice cheap once the posterior has narrowed.
    public func entropyPlacement(count: Int) -> [Double] {
        var q = QuestPlus(model: SkillModel.questPlus, prior: weights().cells)
        var sigmas: [Double] = []
        for j in 0..<count {
            let s = q.nextStimulus(cutoff: Self.entropyCutoff)
            sigmas.append(SkillModel.trialSigmas[s])
            if j + 1 < count { q.update(stimulus: s, expected: q.outcomeProbabilities(stimulus: s)) }
        }
        return sigmas
    }

    /// Posterior cells at or below this are left out of the expected entropies (see `entropyPlacement`).
    static let entropyCutoff = 1e-13

    /// Today's rule, `Placement.quantile`: see `placement(count:rule:)`.
    public func placement(count: Int) -> [Double] {
        let marginal = weights().marginal
        let m = SkillModel.self
        let median = Self.quantile(0.5, marginal: marginal)
        return (0..<count).map { j in
            let x = median + Self.spread * (Self.quantile((Double(j) + 0.5) / Double(count), marginal: marginal) - median)
            let g = (x - m.x(m.margin)) / m.step
            let i = Int((g / Double(m.trialStride)).rounded())
            return m.trialSigmas[min(max(i, 0), m.trialSigmas.count - 1)]
        }
    }
}

/// A level's sigma50 as the skill model's posterior says it: a value with its interval when the
/// interval lies inside the measured range; otherwise a bound with its probability.
public enum Sigma50: Sendable, Equatable {
    /// The posterior median with its central interval, radians.
    case value(Double, low: Double, high: Double)
    /// sigma50 < bound with this posterior probability.
    case below(Double, probability: Double)
    /// sigma50 > bound with this posterior probability.
    case above(Double, probability: Double)
    /// No skill games.
    case unknown
}

/// The fitted skill curve of one level: what `SkillPosterior.summary` reports.
public struct SkillFit: Sendable, Equatable {
    public var games: Int
    public var wins: Int
    /// Posterior median of sigma50, radians (defined even when sigma50 is only a bound).
    public var estimate: Double
    /// The central interval of sigma50 at `level`, radians.
    public var low: Double
    public var high: Double
    /// The interval's probability (0.95).
    public var level: Double
    /// Posterior probability that sigma50 is below `SkillModel.lowest` / above `SkillModel.highest`.
    public var probabilityBelow: Double
    public var probabilityAbove: Double
    /// Posterior geometric mean of the slope (per unit of ln sigma), mean ceiling and floor.
    public var slope: Double
    public var ceiling: Double
    public var floor: Double

    public init(games: Int, wins: Int, estimate: Double, low: Double, high: Double, level: Double,
                probabilityBelow: Double, probabilityAbove: Double, slope: Double, ceiling: Double, floor: Double) {
        self.games = games
        self.wins = wins
        self.estimate = estimate
        self.low = low
        self.high = high
        self.level = level
        self.probabilityBelow = probabilityBelow
        self.probabilityAbove = probabilityAbove
        self.slope = slope
        self.ceiling = ceiling
        self.floor = floor
    }

    /// The largest factor between the estimate and an end of its interval.
    public var precision: Double { max(high / estimate, estimate / low) }

    /// The headline: a value when the interval lies inside [lowest, highest]; a bound otherwise.
    public var sigma50: Sigma50 {
        if games == 0 { return .unknown }
        let m = SkillModel.self
        let tail = (1 - level) / 2
        switch (low < m.lowest, high > m.highest) {
        case (false, false): return .value(estimate, low: low, high: high)
        case (true, false):
            // Below the range itself when the posterior says so; else below the interval's top.
            return probabilityBelow >= 1 - tail ? .below(m.lowest, probability: probabilityBelow)
                : .below(high, probability: 1 - tail)
        case (false, true):
            return probabilityAbove >= 1 - tail ? .above(m.highest, probability: probabilityAbove)
                : .above(low, probability: 1 - tail)
        case (true, true): return .unknown
        }
    }

    /// Whether the measurement may stop: sigma50 is a value within a factor `precision` either
    /// side; or the whole interval lies beyond one end of the range (the posterior puts at least
    /// 1 - (1 - level) / 2 of its mass there: 0.975); or it lies within a factor `precision` of an
    /// end and past it (below `lowest * precision`, above `highest / precision`), where no game
    /// inside the range can make it a value that precise (`isAtRangeEnd`).
    public func isDone(precision target: Double) -> Bool {
        if isAtRangeEnd(precision: target) { return true }
        if case .value = sigma50 { return precision <= target }
        return false
    }

    /// sigma50 is a bound at an end of the range as precise as `precision` allows: see `isDone`.
    public func isAtRangeEnd(precision target: Double) -> Bool {
        let sure = 1 - (1 - level) / 2
        if probabilityBelow >= sure || probabilityAbove >= sure { return true }
        return high <= SkillModel.lowest * target || low >= SkillModel.highest / target
    }
}
