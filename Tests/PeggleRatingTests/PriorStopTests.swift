import Foundation
import PeggleDifficulty
import PeggleLab
import PeggleRating
import Testing

/// The population prior and the early stops on synthetic levels (the calibration levels of
/// CalibrationTests): a handful of ratings, pinned for these seeds; `peggle-bench calibration
/// --prior ... --stop ...` runs hundreds in release (docs/measurement.md has the figures).
@Suite struct PriorStopTests {
    /// A shallow curve (slope 1, ceiling 0.99): precision 1.25 needs about 430 games at the best
    /// placement (docs/lab/2026-11-26-rating.md, "Why the budget binds"), so `reachable` gives up early and `precision` spends the budget.
    /// A steep one (the calibration level) is never judged out of reach: it stops precise.
    static let shallow = SyntheticLevel.logistic(sigma50: 0.03, slope: 1, ceiling: 0.99, floor: 0)

    @Test func aShallowLevelStopsOutOfReachBeforeTheBudget() {
        let spent = SkillMeasurement.run(settings: AdaptiveSettings(), firstSeed: 0) { Self.shallow.play($0, rating: 1) }
        let early = SkillMeasurement.run(settings: AdaptiveSettings(stop: .reachable), firstSeed: 0) { Self.shallow.play($0, rating: 1) }
        #expect(spent.stop == .budget && spent.played.count == 160)
        #expect(early.stop == .outOfReach)
        #expect(early.played.count == 88)
        // The same games up to the stop: the rule only ends the measurement.
        #expect(Array(spent.played.prefix(early.played.count)).map(\.trial) == early.played.map(\.trial))
        let steep = SyntheticLevel.logistic(sigma50: 0.02, slope: 3, ceiling: 0.97, floor: 0.02)
        let m = SkillMeasurement.run(settings: AdaptiveSettings(stop: .reachable), firstSeed: 0) { steep.play($0, rating: 1) }
        #expect(m.stop == .precise)
    }

    /// The tier stop ends a level at the first batch whose 95% interval lies in one tier: the
    /// report then prints that one tier.
    @Test func theTierStopEndsWhenTheIntervalLiesInOneTier() {
        let level = SyntheticLevel.logistic(sigma50: 0.15, slope: 2, ceiling: 0.99, floor: 0.02)
        let m = SkillMeasurement.run(settings: AdaptiveSettings(stop: .tier), firstSeed: 0) { level.play($0, rating: 2) }
        #expect(m.stop == .tierDecided)
        #expect(m.played.count == 16)
        let fit = m.posterior.summary()
        #expect(TierEdges().tiers(low: fit.low, high: fit.high) == [.easy])
        #expect(m.posterior.tierMass(TierEdges())[3] >= 0.95)
        // One batch earlier the interval still reached another tier.
        let before = SkillMeasurement.run(settings: AdaptiveSettings(budget: m.played.count - 8, stop: .tier), firstSeed: 0) {
            level.play($0, rating: 2)
        }
        #expect(before.stop == .budget)
        let earlier = before.posterior.summary()
        #expect(TierEdges().tiers(low: earlier.low, high: earlier.high).count > 1)
    }

    @Test(arguments: [PriorKind.population, .populationEstimate])
    func replayingStoredOutcomesMakesTheSameChoicesUnderAPrior(_ prior: PriorKind) {
        let level = SyntheticLevel.logistic(sigma50: 0.01, slope: 4, ceiling: 0.99, floor: 0)
        let settings = AdaptiveSettings(prior: prior, stop: .tier)
        let x50 = prior == .populationEstimate ? X50Prior(mean: log(0.02), sd: 1.2) : nil
        let first = SkillMeasurement.run(settings: settings, firstSeed: 0, x50: x50) { level.play($0, rating: 9) }
        let outcomes = Dictionary(uniqueKeysWithValues: first.played.map { ($0.trial, $0.won) })
        let replayed = SkillMeasurement.run(settings: settings, firstSeed: 0, x50: x50) { outcomes[$0]! }
        #expect(replayed == first)
        #expect(first.stop != nil)
    }

    /// The population prior on the calibration level (slope 3, ceiling 0.97: a curve the corpus
    /// seldom showed, slope above 2.53 has 0.08 of its mass): 20 ratings still cover the truth.
    @Test func thePopulationPriorStillCoversTheCalibrationLevel() {
        let level = SyntheticLevel.logistic(sigma50: 0.02, slope: 3, ceiling: 0.97, floor: 0.02)
        let flat = calibrate(level, ratings: 20)
        let population = calibrate(level, ratings: 20, settings: AdaptiveSettings(prior: .population))
        #expect(flat.covered == 19)
        #expect(population.covered == 20)
        // It costs games here: the population expects a shallow curve, so a steep one takes
        // longer to believe (99 games a rating against 134).
        #expect(flat.games == 1976)
        #expect(population.games == 2688)
    }
}
