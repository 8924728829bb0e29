import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleDifficulty
import PeggleEstimate
import PeggleLab
import PeggleUtilities

/// `peggle-bench calibration`: the adaptive measurement on synthetic levels whose win probability
/// at every sigma is known, rated many times with fixed seeds: how often the 95% interval covers
/// the true sigma50, how many games it takes, how many stop before the budget, for each placement.
/// The ratings are simulations (no game is played), so this is the release-build twin of
/// Tests/PeggleRatingTests/CalibrationTests.swift (both rate PeggleDifficulty's `SyntheticLevel`
/// with the same seeds: the quantile row of the first level is that test's pinned figure), fast
/// enough to compare placements.
struct BenchCalibration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibration",
        abstract: "The adaptive measurement on synthetic levels: coverage of the 95% interval, games, stops, per placement, prior and stop rule.",
        discussion: "Each synthetic level is rated --ratings times (seeds fixed) with the adaptive settings given; one row "
            + "per level, placement, prior, stop rule and knowledge; --population adds levels drawn from the fitted population prior; "
            + "--knowledge known,oracle rates those as a rater that knew each level's curve would (docs/metrics.md, \"What limits the games a level needs\").")

    @Option(help: "Ratings per level and placement.")
    var ratings = 200

    @Option(help: "Placements, comma-separated (default: quantile,entropy).")
    var placement = CommaList<Placement>([.quantile, .entropy])

    @Option(help: "Priors, comma-separated: flat, population, population+estimate (the estimate simulated: ln sigma50 off the truth by a normal error of the built-in model's predictive sd, drawn per rating) (default: flat).")
    var prior = CommaList<PriorKind>([.flat])

    @Option(help: "Stop rules, comma-separated: precision, reachable, tier (default: precision).")
    var stop = CommaList<StopRule>([.precision])

    @Option(help: "What the rater knows of a drawn level's curve, comma-separated: prior (only the prior: the rater as it is), known (its slope, ceiling and floor exactly; games placed by --placement), oracle (known, and every game at the sigma where one game tells most about sigma50: one row, whatever --placement). known and oracle rate only the levels of --population, whose curves lie on the model's grid (default: prior).")
    var knowledge = CommaList<SyntheticLevel.Rater>([.prior])

    @Option(help: "Also rate this many synthetic levels drawn from the population prior (slope, ceiling and floor by its weights, sigma50 log-uniform over 0.002 to 0.5 rad), each once: one row per placement, prior and stop rule.")
    var population = 0

    @Option(help: "Greedy games per level at most (default: \(AdaptiveSettings.defaultBudget)).")
    var budget = AdaptiveSettings.defaultBudget

    @Option(help: "Stop when the 95% interval lies within this factor either side of the estimate (default: \(AdaptiveSettings.defaultPrecision)).")
    var precision = AdaptiveSettings.defaultPrecision

    @Option(help: "Threads (the ratings are independent; the figures do not depend on it).")
    var threads = 1

    @OptionGroup var output: BenchOutputOptions

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
        // Each case: a name, its ratings, its one true sigma50 (nil: one level per rating, drawn), and rating k's level.
        var cases: [(name: String, count: Int, truth: Double?, level: @Sendable (Int) -> SyntheticLevel)] =
            SyntheticLevel.calibration.map { level in (level.name, ratings, level.sigma50, { _ in level }) }
        if population > 0 {
            cases.append(("\(population) levels drawn from the population prior", population, nil, { SyntheticLevel.drawn($0) }))
        }
        // One row per case, rater, placement, prior and stop rule: known and oracle only for the drawn
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
            let results = Parallel.map(c.count, threads: threads) { k -> (covered: Bool, early: Bool, games: Int, ratio: Double) in
                let level = c.level(k)
                let truth = c.truth ?? level.sigma50
                var x50: X50Prior?
                if pr == .populationEstimate {
                    // The estimate simulated: ln sigma50 off the truth by a normal error of the model's predictive sd.
                    var e = SeededGenerator(seed: 0xE571_3A7E &+ UInt64(k))
                    x50 = X50Prior(mean: log(truth) + estimateSD * e.nextGaussian(), sd: estimateSD)
                }
                let m = level.rate(UInt64(k), settings: settings, rater: kn, x50: x50)
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

    static func median(_ values: [Double]) -> Double {
        let v = values.sorted()
        return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
    }
}

extension SyntheticLevel.Rater: ListElement {}
