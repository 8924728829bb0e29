import Foundation

/// QUEST+ (Watson 2017, "QUEST+: A general multidimensional Bayesian adaptive psychometric
/// method", J. Vision 17(3):10), generic over the psychometric function: a posterior over a grid
/// of parameter cells, updated by Bayes' rule trial by trial, and the next stimulus chosen to
/// minimise the expected entropy of the posterior after the trial.
///
/// The function is given once, as P(outcome | stimulus, parameters) for every stimulus and cell
/// (`QuestPlusModel`), and tabulated; a `QuestPlus` is that table (shared, copy on write) with a
/// posterior. The entropy may be of the whole posterior (QUEST+ proper) or of a marginal (the Psi
/// method's nuisance parameters marginalised: `QuestPlusModel.groups`). Tests reproduce Watson's
/// Example 1 and 2 as the Python `questplus` package pins them (Tests/Fixtures/questplus).
public struct QuestPlusModel: Sendable {
    public let stimulusCount: Int
    public let cellCount: Int
    public let outcomeCount: Int
    /// P(outcome | stimulus, cell): `[(stimulus * outcomeCount + outcome) * cellCount + cell]`.
    public let likelihoods: [Double]
    /// The marginal whose entropy placement minimises: the group of each cell (`nil`: every cell
    /// its own group, the entropy of the whole posterior).
    public let groups: [Int]?
    public let groupCount: Int
    /// When the groups are consecutive runs of this many cells (cell c in group c / blockSize),
    /// as the skill model's x50 marginal is, and there are two outcomes: the fast path of
    /// `QuestPlus.expectedEntropies`.
    package let blockSize: Int?

    /// Tabulates `probability(stimulus, cell)`, one probability per outcome (summing to 1).
    /// `group(cell)`, when given, maps each cell to the marginal bin placement measures.
    public init<Stimulus, Cell>(stimuli: [Stimulus], cells: [Cell], outcomes: Int, group: ((Cell) -> Int)? = nil,
                                probability: (Stimulus, Cell) -> [Double]) {
        precondition(!stimuli.isEmpty && !cells.isEmpty && outcomes >= 2)
        stimulusCount = stimuli.count
        cellCount = cells.count
        outcomeCount = outcomes
        var table = [Double](repeating: 0, count: stimuli.count * outcomes * cells.count)
        for (s, stimulus) in stimuli.enumerated() {
            for (c, cell) in cells.enumerated() {
                let p = probability(stimulus, cell)
                precondition(p.count == outcomes)
                for o in 0..<outcomes { table[(s * outcomes + o) * cells.count + c] = p[o] }
            }
        }
        likelihoods = table
        if let group {
            let g = cells.map(group)
            precondition(g.allSatisfy { $0 >= 0 })
            groups = g
            groupCount = (g.max() ?? 0) + 1
            let size = cells.count / groupCount
            blockSize = outcomes == 2 && size * groupCount == cells.count && g.indices.allSatisfy { g[$0] == $0 / size } ? size : nil
        } else {
            groups = nil
            groupCount = cells.count
            blockSize = nil
        }
    }
}

/// A QUEST+ run: the model and the posterior over its cells (normalised after every update).
public struct QuestPlus: Sendable {
    public let model: QuestPlusModel
    /// Posterior probability of each cell, summing to 1.
    public private(set) var posterior: [Double]

    /// Starts from `prior` (one weight per cell, any positive scale), or the uniform prior.
    public init(model: QuestPlusModel, prior: [Double]? = nil) {
        self.model = model
        let p = prior ?? [Double](repeating: 1, count: model.cellCount)
        precondition(p.count == model.cellCount)
        let total = p.reduce(0, +)
        posterior = p.map { $0 / total }
    }

    /// Bayes' rule for one trial: the posterior times P(outcome | stimulus, cell), renormalised.
    public mutating func update(stimulus: Int, outcome: Int) {
        let n = model.cellCount, base = (stimulus * model.outcomeCount + outcome) * n
        model.likelihoods.withUnsafeBufferPointer { l in
            posterior.withUnsafeMutableBufferPointer { p in
                var total = 0.0
                for c in 0..<n {
                    p[c] *= l[base + c]
                    total += p[c]
                }
                for c in 0..<n { p[c] /= total }
            }
        }
    }

    /// The update for an outcome not yet seen, counted by its expected share: the posterior times
    /// the product over outcomes of P(outcome | stimulus, cell) ^ weight[outcome] (weights summing
    /// to 1, e.g. the predicted outcome probabilities). What a batch conditions its later trials on.
    public mutating func update(stimulus: Int, expected weights: [Double]) {
        precondition(weights.count == model.outcomeCount)
        let n = model.cellCount, k = model.outcomeCount
        model.likelihoods.withUnsafeBufferPointer { l in
            posterior.withUnsafeMutableBufferPointer { p in
                var total = 0.0
                for c in 0..<n where p[c] > 0 {
                    var logL = 0.0
                    for o in 0..<k where weights[o] > 0 { logL += weights[o] * log(l[(stimulus * k + o) * n + c]) }
                    p[c] *= exp(logL)
                    total += p[c]
                }
                for c in 0..<n { p[c] /= total }
            }
        }
    }

    /// The predicted probability of each outcome at `stimulus`: the posterior mean of P(outcome).
    public func outcomeProbabilities(stimulus: Int) -> [Double] {
        let n = model.cellCount, k = model.outcomeCount
        return (0..<k).map { o in
            model.likelihoods.withUnsafeBufferPointer { l in
                posterior.withUnsafeBufferPointer { p in
                    var total = 0.0
                    for c in 0..<n { total += p[c] * l[(stimulus * k + o) * n + c] }
                    return total
                }
            }
        }
    }

    /// The expected entropy (nats) of the posterior, or of the model's marginal, after one trial
    /// at each of `candidates` (default: every stimulus): the sum over outcomes of
    /// P(outcome) x the entropy of the posterior given that outcome. Cells whose posterior is at
    /// most `cutoff` are left out (0: only impossible cells, which add nothing).
    public func expectedEntropies(candidates: [Int]? = nil, cutoff: Double = 0) -> [Double] {
        if let size = model.blockSize { return blockEntropies(candidates: candidates, cutoff: cutoff, size: size) }
        return generalEntropies(candidates: candidates, cutoff: cutoff)
    }

    /// Two outcomes and a marginal of consecutive blocks: per block, the mass given outcome 0 is
    /// summed and outcome 1's is the block's mass less it (P(1) = 1 - P(0)), one multiply-add a
    /// cell and stimulus instead of two with a group lookup each. Equal to the general sums up to
    /// rounding (tested).
    package func blockEntropies(candidates: [Int]?, cutoff: Double, size: Int) -> [Double] {
        let n = model.cellCount, blocks = model.groupCount
        let stimuli = candidates ?? Array(0..<model.stimulusCount)
        // Blocks with a cell above the cutoff, and each block's mass over those cells.
        var live: [Int] = []
        var mass = [Double](repeating: 0, count: blocks)
        for b in 0..<blocks {
            var m = 0.0, any = false
            for c in b * size..<(b + 1) * size where posterior[c] > cutoff {
                m += posterior[c]
                any = true
            }
            if any { live.append(b) }
            mass[b] = m
        }
        var won = [Double](repeating: 0, count: blocks)
        return model.likelihoods.withUnsafeBufferPointer { l in
            posterior.withUnsafeBufferPointer { p in
                stimuli.map { s in
                    let base = s * 2 * n
                    var p0 = 0.0, p1 = 0.0
                    for b in live {
                        var m = 0.0
                        var c = b * size
                        let end = c + size
                        while c < end {
                            let w = p[c]
                            if w > cutoff { m += w * l[base + c] }
                            c += 1
                        }
                        won[b] = m
                        p0 += m
                        p1 += mass[b] - m
                    }
                    var h0 = 0.0, h1 = 0.0
                    for b in live {
                        let m0 = won[b], m1 = mass[b] - m0
                        if m0 > 0 { h0 -= m0 / p0 * log(m0 / p0) }
                        if m1 > 0 { h1 -= m1 / p1 * log(m1 / p1) }
                    }
                    return (p0 > 0 ? p0 * h0 : 0) + (p1 > 0 ? p1 * h1 : 0)
                }
            }
        }
    }

    /// Any outcomes and any groups (or none): the sums as `questplus` writes them.
    package func generalEntropies(candidates: [Int]?, cutoff: Double) -> [Double] {
        let n = model.cellCount, k = model.outcomeCount
        let active = (0..<n).filter { posterior[$0] > cutoff }
        let stimuli = candidates ?? Array(0..<model.stimulusCount)
        var bins = [Double](repeating: 0, count: model.groupCount)
        return stimuli.map { s in
            var expected = 0.0
            for o in 0..<k {
                let base = (s * k + o) * n
                let (pk, h) = model.likelihoods.withUnsafeBufferPointer { l in
                    posterior.withUnsafeBufferPointer { p in
                        bins.withUnsafeMutableBufferPointer { b in
                            active.withUnsafeBufferPointer { a in
                                Self.outcomeEntropy(l: l, base: base, p: p, active: a, groups: model.groups, bins: b)
                            }
                        }
                    }
                }
                expected += pk * h
            }
            return expected
        }
    }

    /// P(outcome) and the entropy of the posterior given it, for one (stimulus, outcome): `base`
    /// indexes its likelihoods. `bins` is scratch for the marginal.
    private static func outcomeEntropy(l: UnsafeBufferPointer<Double>, base: Int, p: UnsafeBufferPointer<Double>,
                                       active: UnsafeBufferPointer<Int>, groups: [Int]?,
                                       bins: UnsafeMutableBufferPointer<Double>) -> (Double, Double) {
        var pk = 0.0
        var h = 0.0
        if let groups {
            for g in 0..<bins.count { bins[g] = 0 }
            for c in active {
                let q = p[c] * l[base + c]
                bins[groups[c]] += q
                pk += q
            }
            guard pk > 0 else { return (0, 0) }
            for g in 0..<bins.count where bins[g] > 0 {
                let r = bins[g] / pk
                h -= r * log(r)
            }
        } else {
            for c in active { pk += p[c] * l[base + c] }
            guard pk > 0 else { return (0, 0) }
            for c in active {
                let r = p[c] * l[base + c] / pk
                if r > 0 { h -= r * log(r) }
            }
        }
        return (pk, h)
    }

    /// The stimulus (index into `candidates`' values, or into the model's stimuli) with the
    /// smallest expected entropy; the first of equals, so the choice is a function of the numbers.
    public func nextStimulus(candidates: [Int]? = nil, cutoff: Double = 0) -> Int {
        let stimuli = candidates ?? Array(0..<model.stimulusCount)
        let entropies = expectedEntropies(candidates: stimuli, cutoff: cutoff)
        var best = 0
        for i in entropies.indices where entropies[i] < entropies[best] { best = i }
        return stimuli[best]
    }

    /// The cell of largest posterior (the first of equals).
    public var mode: Int {
        var best = 0
        for c in posterior.indices where posterior[c] > posterior[best] { best = c }
        return best
    }

    /// The posterior mean of `value(cell)`.
    public func mean(_ value: (Int) -> Double) -> Double {
        var total = 0.0
        for c in posterior.indices { total += posterior[c] * value(c) }
        return total
    }
}
