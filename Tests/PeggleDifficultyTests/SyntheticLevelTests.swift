import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleLab
import Testing

/// The synthetic levels the calibration tests and `peggle-bench calibration` rate: their curves,
/// their truth, their games and the simulated raters. Expected curve values are computed by hand
/// (Python's math module, the same libm).
@Suite struct SyntheticLevelTests {
    static let level = SyntheticLevel.logistic(sigma50: 0.02, slope: 3, ceiling: 0.97, floor: 0.02)
    static let sixShots = SyntheticLevel(.shots(6, within: 0.01, ceiling: 0.95, floor: 0.02))

    @Test func theLogisticIsTheModelsCurve() {
        #expect(Self.level.winProbability(0) == 0.97)
        #expect(Self.level.winProbability(0.02) == 0.5)
        #expect(Self.level.winProbability(0.01) == 0.8664037122969835)
        #expect(Self.level.winProbability(0.04) == 0.12754716981132072)
        // Far past a floor of 0, the model's clamp: no sigma makes a game certain.
        #expect(SyntheticLevel.logistic(sigma50: 0.0002, slope: 3, ceiling: 0.9, floor: 0).winProbability(1) == 1e-9)
    }

    @Test func theShotsCurveIsTheErrorFunctionsPower() {
        #expect(Self.sixShots.winProbability(0) == 0.95)
        #expect(Self.sixShots.winProbability(0.01) == 0.11415041927266831)
        #expect(Self.sixShots.sigma50 == 0.006157614738324894)
    }

    @Test func sigma50IsWhereTheCurveCrossesOneHalf() {
        for (level, truth) in zip(SyntheticLevel.calibration, [0.02, 0.005, 0.1]) {
            #expect(abs(level.sigma50 / truth - 1) < 1e-12, "\(level.name): \(level.sigma50)")
        }
        for level in SyntheticLevel.calibration {
            #expect(abs(level.winProbability(level.sigma50) - 0.5) < 1e-12)
        }
    }

    @Test func namesSayTheCurve() {
        #expect(SyntheticLevel.calibration.map(\.name) == [
            "logistic sigma50 0.02 slope 3 ceiling 0.97 floor 0.02",
            "logistic sigma50 0.005 slope 2 ceiling 0.9 floor 0",
            "logistic sigma50 0.1 slope 5 ceiling 0.99 floor 0.1",
            "six shots within 0.01 rad ceiling 0.95 floor 0.02",
        ])
    }

    /// A game's outcome depends on the rating, its seed and its sigma only, and games are won at
    /// the curve's rate: at sigma50, 1,000 games (ratings 0 to 999, seed 0) win 481 (pinned; 500 expected, sd 16).
    @Test func gamesAreSeededAndWonAtTheCurvesRate() {
        let trial = SkillMeasurement.Trial(seed: 0, sigma: 0.02)
        let wins = (0..<1000).filter { Self.level.play(trial, rating: UInt64($0)) }.count
        #expect(wins == 481)
        #expect((0..<50).map { Self.level.play(trial, rating: UInt64($0)) } == (0..<50).map { Self.level.play(trial, rating: UInt64($0)) })
        // Certain losses and wins where the curve says so.
        #expect(!SyntheticLevel.logistic(sigma50: 0.0002, slope: 3, ceiling: 0.9, floor: 0).play(.init(seed: 5, sigma: 1), rating: 1))
    }

    @Test func levelsDrawnFromThePopulationSitOnTheModelsGrid() throws {
        for k in 0..<20 {
            let d = SyntheticLevel.drawn(k)
            let shape = try #require(d.shape)
            guard case let .logistic(sigma50, slope, ceiling, floor) = d.curve else { Issue.record("not logistic"); continue }
            let s = SkillModel.shape(shape)
            #expect(slope == s.slope && ceiling == s.ceiling && floor == s.floor)
            #expect(sigma50 >= 0.002 && sigma50 <= 0.5)
            #expect(d == SyntheticLevel.drawn(k))
        }
        #expect(SyntheticLevel.drawn(0) != SyntheticLevel.drawn(1))
    }

    /// The oracle plays every game at the sigma where one game tells most; the known rater places
    /// its games as the settings say, from a prior on the level's one shape.
    @Test func theSimulatedRatersPlayWhereTheyShould() throws {
        let level = SyntheticLevel.drawn(3)
        let shape = try #require(level.shape)
        let best = SkillModel.mostInformativeSigma(sigma50: level.sigma50, shape: shape)
        let settings = AdaptiveSettings(budget: 64)
        let oracle = level.rate(7, settings: settings, rater: .oracle)
        #expect(!oracle.played.isEmpty && oracle.played.allSatisfy { $0.trial.sigma == best })
        let known = level.rate(7, settings: settings, rater: .known)
        #expect(Set(known.played.map(\.trial.sigma)).count > 1)
        let fit = known.posterior.summary()
        #expect(abs(fit.slope - SkillModel.shape(shape).slope) < 1e-9)
        // The prior rater is the rater as `rate` runs it.
        let prior = level.rate(7, settings: settings)
        #expect(prior == SkillMeasurement.run(settings: settings, firstSeed: 0) { level.play($0, rating: 7) })
    }
}
