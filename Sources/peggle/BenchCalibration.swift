import ArgumentParser
import Foundation
import PeggleDifficulty
import PeggleEstimate
import PeggleUtilities

/// `peggle bench calibration`: the adaptive measurement on synthetic levels whose win probability
/// at every sigma is known, rated many times with fixed seeds: how often the 95% interval covers
/// the true sigma50, how many games it takes, how many stop before the budget, for each placement.
/// The ratings are simulations (no game is played), so this is the release-build twin of
/// Tests/PeggleRatingTests/CalibrationTests.swift (the same levels and seeds: the quantile row of
/// the first level is that test's pinned figure), fast enough to compare placements.
struct BenchCalibration: LegacyBench {
    static let configuration = CommandConfiguration(
        commandName: "calibration",
        abstract: "The adaptive measurement on synthetic levels: coverage of the 95% interval, games, stops, per placement, prior and stop rule.",
        discussion: "Each synthetic level is rated --ratings times (seeds fixed) with the adaptive settings given; one row "
            + "per level, placement, prior, stop rule and knowledge; --population adds levels drawn from the fitted population prior; "
            + "--knowledge known,oracle rates those as a rater that knew each level's curve would (docs/metrics.md, \"What limits the games a level needs\").")

    static let legacyFlag: String? = nil
    static let legacyOptions: [String: LegacySpelling] = [:]

    @Option(help: "Ratings per level and placement.")
    var ratings = 200

    @Option(help: "Placements, comma-separated (default: quantile,entropy).")
    var placement = CommaList<Placement>([.quantile, .entropy])

    @Option(help: "Priors, comma-separated: flat, population, population+estimate (the estimate simulated: ln sigma50 off the truth by a normal error of the built-in model's predictive sd, drawn per rating) (default: flat).")
    var prior = CommaList<PriorKind>([.flat])

    @Option(help: "Stop rules, comma-separated: precision, reachable, tier (default: precision).")
    var stop = CommaList<StopRule>([.precision])

    @Option(help: "What the rater knows of a drawn level's curve, comma-separated: prior (only the prior: the rater as it is), known (its slope, ceiling and floor exactly; games placed by --placement), oracle (known, and every game at the sigma where one game tells most about sigma50: one row, whatever --placement). known and oracle rate only the levels of --population, whose curves lie on the model's grid (default: prior).")
    var knowledge = CommaList<ShapeKnowledge>([.prior])

    @Option(help: "Also rate this many synthetic levels drawn from the population prior (slope, ceiling and floor by its weights, sigma50 log-uniform over 0.002 to 0.5 rad), each once: one row per placement, prior and stop rule.")
    var population = 0

    @Option(help: "Greedy games per level at most (default: \(AdaptiveSettings.defaultBudget)).")
    var budget = AdaptiveSettings.defaultBudget

    @Option(help: "Stop when the 95% interval lies within this factor either side of the estimate (default: \(AdaptiveSettings.defaultPrecision)).")
    var precision = AdaptiveSettings.defaultPrecision

    @Option(help: "Threads (the ratings are independent; the figures do not depend on it).")
    var threads = 1

    @OptionGroup var output: BenchOutputOptions

    /// The synthetic levels: CalibrationTests' level, the two others of docs/metrics.md's spread
    /// table, and a level that is not the model's logistic (six shots each within 0.01 rad).
    static let levels: [(name: String, win: @Sendable (Double) -> Double)] = [
        ("logistic sigma50 0.02 slope 3 ceiling 0.97 floor 0.02", logistic(0.02, 3, 0.97, 0.02)),
        ("logistic sigma50 0.005 slope 2 ceiling 0.9 floor 0", logistic(0.005, 2, 0.9, 0)),
        ("logistic sigma50 0.1 slope 5 ceiling 0.99 floor 0.1", logistic(0.1, 5, 0.99, 0.1)),
        ("six shots within 0.01 rad ceiling 0.95 floor 0.02", { s in 0.02 + 0.93 * pow(erf(0.01 / (s * 2.0.squareRoot())), 6) }),
    ]

    static func logistic(_ sigma50: Double, _ slope: Double, _ ceiling: Double, _ floor: Double) -> @Sendable (Double) -> Double {
        { sigma in
            let q = (0.5 - floor) / (ceiling - floor)
            let core = sigma == 0 ? 1 : 1 / (1 + exp(slope * (log(sigma) - log(sigma50)) + log((1 - q) / q)))
            return floor + (ceiling - floor) * core
        }
    }

    /// Where the win probability is 1/2, by bisection in ln sigma.
    static func sigma50(_ win: (Double) -> Double) -> Double {
        var lo = 1e-6, hi = 10.0
        for _ in 0..<200 {
            let m = (lo * hi).squareRoot()
            if win(m) > 0.5 { lo = m } else { hi = m }
        }
        return (lo * hi).squareRoot()
    }

    struct Row: BenchRow {
        struct Columns: Encodable {
            var mode: String, level: String, placement: String, prior: String, stop: String, knowledge: String, ratings: Int, budget: Int
            var precision: Double
            var coverage: Double, stoppedBeforeBudget: Double, meanGames: Double, medianGames: Double
            var medianIntervalRatio: Double, seconds: Double
        }
        struct Extra: Encodable {
            /// nil for levels drawn from the population (each rating has its own).
            var trueSigma50: Double?
            var covered: Int, stoppedEarly: Int, games: Int, threads: Int, cores: Int
        }
        var columns: Columns
        var extra: Extra
    }

    /// One synthetic level drawn from the population prior: level `k` of `--population`, with
    /// its shape's index on the model's grid.
    static func drawn(_ k: Int) -> (truth: Double, shape: Int, win: @Sendable (Double) -> Double) {
        var rng = SeededGenerator(seed: 0x5EED_0F_9071 &+ UInt64(k) &* 0x9E37_79B9_7F4A_7C15)
        let index = SkillPrior.populationShapeIndex(at: rng.nextUnit())
        let shape = SkillModel.shape(index)
        let sigma50 = exp(log(0.002) + rng.nextUnit() * (log(0.5) - log(0.002)))
        return (sigma50, index, logistic(sigma50, shape.slope, shape.ceiling, shape.floor))
    }

    func run() throws {
        guard ratings >= 1 else { throw UserError("--ratings: \(ratings) must be at least 1") }
        guard (1...100_000).contains(budget) else { throw UserError("--budget: \(budget) is outside 1...100000") }
        guard precision.isFinite, precision > 1, precision <= 100 else {
            throw UserError("--precision: \(precision) is not a factor above 1 (e.g. 1.25)")
        }
        guard threads >= 1 else { throw UserError("--threads: \(threads) must be at least 1") }
        guard population >= 0 else { throw UserError("--population: \(population) must be 0 or more") }
        let placements = try placement.map("--placement", message: { _, _, reason in reason }) { _, _, p in p }
        let priors = try prior.map("--prior", message: { _, _, reason in reason }) { _, _, p in p }
        let stops = try stop.map("--stop", message: { _, _, reason in reason }) { _, _, p in p }
        let knowledges = try knowledge.map("--knowledge", message: { _, _, reason in reason }) { _, _, k in k }
        if population == 0, let k = knowledges.first(where: { $0 != .prior }) {
            throw UserError("--knowledge: '\(k.rawValue)' needs --population (the fixed synthetic levels' curves are not on the model's grid)")
        }
        var out = try BenchOutput<Row>(output)
        let round = BenchClock.round
        let estimateSD = EstimateModel.builtIn.residualSD
        // Each case: a name, its ratings, its one true sigma50 (nil: drawn per rating), and per rating k its truth, its
        // shape on the model's grid (nil: off the grid) and win probability.
        typealias Truth = (truth: Double, shape: Int?, win: @Sendable (Double) -> Double)
        var cases: [(name: String, count: Int, truth: Double?, level: @Sendable (Int) -> Truth)] =
            Self.levels.map { name, win in
                let truth = Self.sigma50(win)
                return (name, ratings, truth, { _ in (truth, nil, win) })
            }
        if population > 0 {
            cases.append(("\(population) levels drawn from the population prior", population, nil, { k in
                let d = Self.drawn(k)
                return (Self.sigma50(d.win), d.shape, d.win)
            }))
        }
        // One row per case, knowledge, placement, prior and stop rule: known and oracle only for the drawn
        // levels, and the oracle once whatever the placement (it places no game).
        let rows = cases.flatMap { c in
            knowledges.filter { $0 == .prior || c.truth == nil }.flatMap { kn in
                (kn == .oracle ? [placements[0]] : placements).flatMap { p in
                    priors.flatMap { pr in stops.map { st in (c: c, kn: kn, p: p, pr: pr, st: st) } }
                }
            }
        }
        for (c, kn, p, pr, st) in rows {
            let settings = AdaptiveSettings(budget: budget, precision: precision, placement: p, prior: pr, stop: st)
            let start = BenchClock.now()
            // Game `trial` of rating k: won with the true probability, from its own stream (as CalibrationTests).
            let results = Parallel.map(c.count, threads: threads) { k -> (covered: Bool, early: Bool, games: Int, ratio: Double) in
                let (truth, shape, win) = c.level(k)
                var x50: X50Prior?
                if pr == .populationEstimate {
                    var e = SeededGenerator(seed: 0xE571_3A7E &+ UInt64(k))
                    x50 = X50Prior(mean: log(truth) + estimateSD * e.nextGaussian(), sd: estimateSD)
                }
                let measurement: SkillMeasurement
                switch kn {
                case .prior: measurement = SkillMeasurement(settings: settings, firstSeed: 0, x50: x50)
                case .known, .oracle:
                    measurement = SkillMeasurement(settings: settings, firstSeed: 0, prior: .knownShape(shape!, x50: x50),
                                                   fixedSigma: kn == .oracle ? SkillModel.mostInformativeSigma(sigma50: truth, shape: shape!) : nil)
                }
                let m = SkillMeasurement.run(measurement) { trial in
                    var rng = SeededGenerator(seed: UInt64(k) &* 0x9E37_79B9_7F4A_7C15 ^ trial.seed)
                    return rng.nextUnit() < win(trial.sigma)
                }
                let fit = m.posterior.summary()
                return (fit.low <= truth && truth <= fit.high, m.stop != .budget, m.played.count, fit.high / fit.low)
            }
            let seconds = BenchClock.seconds(since: start)
            let n = Double(c.count)
            let covered = results.filter(\.covered).count, early = results.filter(\.early).count
            let games = results.map(\.games).reduce(0, +)
            let row = Row(
                columns: .init(mode: "calibration", level: c.name, placement: kn == .oracle ? "best sigma" : p.rawValue, prior: pr.rawValue,
                               stop: st.rawValue, knowledge: kn.rawValue,
                               ratings: c.count, budget: budget, precision: precision,
                               coverage: round(Double(covered) / n, 4), stoppedBeforeBudget: round(Double(early) / n, 4),
                               meanGames: round(Double(games) / n, 1), medianGames: Self.median(results.map { Double($0.games) }),
                               medianIntervalRatio: round(Self.median(results.map(\.ratio)), 3), seconds: round(seconds, 2)),
                extra: .init(trueSigma50: c.truth.map { round($0, 6) }, covered: covered, stoppedEarly: early, games: games,
                             threads: threads, cores: BenchClock.cores))
            try out.emit(row, text: "\(c.name), \(row.columns.placement), prior \(pr.rawValue), stop \(st.rawValue), knowledge \(kn.rawValue): covered \(covered) of \(c.count), "
                + "\(early) stopped before the budget, \(row.columns.meanGames) games on average (median \(row.columns.medianGames)), "
                + "median interval high/low \(row.columns.medianIntervalRatio), \(row.columns.seconds) s")
        }
        try out.finish()
    }

    /// What the simulated rater knows of a drawn level's curve besides its games.
    enum ShapeKnowledge: String, CaseIterable, ListElement {
        /// Only the prior: the rater as it is.
        case prior
        /// The level's slope, ceiling and floor exactly (`SkillPrior.knownShape`).
        case known
        /// The shape known, and every game at `SkillModel.mostInformativeSigma` of the true curve:
        /// each game carries the most a game can tell about sigma50, so (to first order) no rater
        /// reaches a precision in fewer games.
        case oracle
    }

    static func median(_ values: [Double]) -> Double {
        let v = values.sorted()
        return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
    }
}
