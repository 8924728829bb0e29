import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleLab
import PeggleRating
import PeggleUtilities
import Testing

struct CalibrationResult {
    var ratings = 0, covered = 0, stoppedInBudget = 0, games = 0, maxGames = 0
    var coverage: Double { Double(covered) / Double(ratings) }
    var stopRate: Double { Double(stoppedInBudget) / Double(ratings) }
    var meanGames: Double { Double(games) / Double(ratings) }
}

/// Ratings 0 to `ratings - 1` of `level` (the rater as it is; `peggle-bench calibration` makes the
/// same ratings in release).
func calibrate(_ level: SyntheticLevel, ratings: Int, settings: AdaptiveSettings = AdaptiveSettings()) -> CalibrationResult {
    var r = CalibrationResult()
    let truth = level.sigma50
    for k in 0..<ratings {
        let m = level.rate(UInt64(k), settings: settings)
        let fit = m.posterior.summary()
        r.ratings += 1
        if fit.low <= truth && truth <= fit.high { r.covered += 1 }
        if m.stop != .budget { r.stoppedInBudget += 1 }
        r.games += m.played.count
        r.maxGames = max(r.maxGames, m.played.count)
    }
    return r
}

@Suite struct CalibrationTests {
    /// The issue's calibration check: on a synthetic level whose win probability at every sigma is
    /// known, 200 ratings with the default settings (fixed seeds): the 95% interval covers the true
    /// sigma50 in at least 93% of them, and at least 90% stop before the budget.
    @Test func intervalsCoverTheTruthAndStopWithinBudget() {
        let level = SyntheticLevel.logistic(sigma50: 0.02, slope: 3, ceiling: 0.97, floor: 0.02)
        let r = calibrate(level, ratings: 200)
        #expect(r.coverage >= 0.93, "coverage \(r.coverage)")
        #expect(r.stopRate >= 0.9, "stopped within budget \(r.stopRate)")
        // Pinned for this seed and these settings (a change to the method shows here first).
        #expect(r.covered == 191 && r.stoppedInBudget == 191 && r.games == 18_968, "\(r)")
    }

    /// The same check on a level whose curve is not the model's logistic (six shots, each within
    /// 0.01 rad): the intervals still cover the truth (100 ratings, fixed seeds).
    @Test func intervalsCoverTheTruthOnALevelThatIsNotLogistic() {
        let level = SyntheticLevel(.shots(6, within: 0.01, ceiling: 0.95, floor: 0.02))
        #expect(abs(level.sigma50 - 0.006158) < 1e-6)
        let r = calibrate(level, ratings: 100)
        #expect(r.covered >= 93 && r.stoppedInBudget >= 90)
        #expect(r.covered == 98 && r.stoppedInBudget == 100)
    }

    @Test func aLevelBeyondTheRangeStopsWithABound() {
        let hopeless = SyntheticLevel.logistic(sigma50: 0.0002, slope: 3, ceiling: 0.9, floor: 0)
        let m = SkillMeasurement.run(settings: AdaptiveSettings(), firstSeed: 7) { hopeless.play($0, rating: 1) }
        #expect(m.stop == .beyondRange)
        guard case let .below(b, p) = m.posterior.summary().sigma50 else { Issue.record("not below"); return }
        #expect(b == SkillModel.lowest && p >= 0.975)
        #expect(m.played.count < AdaptiveSettings.defaultBudget)
    }

    @Test func batchesHaveFixedSizeSeedsInSequenceAndSigmasOnTheLattice() {
        let level = SyntheticLevel.logistic(sigma50: 0.05, slope: 2, ceiling: 0.95, floor: 0.05)
        let settings = AdaptiveSettings(batchSize: 5, budget: 23, precision: 1.01)
        let m = SkillMeasurement.run(settings: settings, firstSeed: 100) { level.play($0, rating: 3) }
        #expect(m.stop == .budget)
        #expect(m.played.map(\.trial.seed) == Array(100..<123))
        #expect(m.played.allSatisfy { SkillModel.trialSigmas.contains($0.trial.sigma) })
        // Batches of 5, the last cut to what is left of the budget.
        #expect(SkillMeasurement(settings: settings, firstSeed: 100).nextBatch().count == 5)
    }

    @Test(arguments: Placement.allCases)
    func replayingStoredOutcomesMakesTheSameChoices(_ placement: Placement) {
        // What a resumed run does: the same outcomes, batch by batch, give the same batches.
        let level = SyntheticLevel.logistic(sigma50: 0.01, slope: 4, ceiling: 0.99, floor: 0)
        let settings = AdaptiveSettings(placement: placement)
        let first = SkillMeasurement.run(settings: settings, firstSeed: 0) { level.play($0, rating: 9) }
        let outcomes = Dictionary(uniqueKeysWithValues: first.played.map { ($0.trial, $0.won) })
        let replayed = SkillMeasurement.run(settings: settings, firstSeed: 0) { outcomes[$0]! }
        #expect(replayed == first)
        #expect(replayed.posterior.logWeights == first.posterior.logWeights)
    }

    /// Entropy placement (QUEST+) on the calibration level: a few ratings in a debug build (each
    /// choice sums over the whole grid; `peggle-bench calibration` runs the 200 in release and
    /// docs/measurement.md has its figures). Pinned for these seeds.
    @Test func entropyPlacementCoversTheTruthOnTheCalibrationLevel() {
        let level = SyntheticLevel.logistic(sigma50: 0.02, slope: 3, ceiling: 0.97, floor: 0.02)
        let r = calibrate(level, ratings: 3, settings: AdaptiveSettings(placement: .entropy))
        #expect(r.covered == 3 && r.stoppedInBudget == 3 && r.games == 248, "\(r)")
    }
}
