import Foundation
import PeggleDifficulty
import PeggleUtilities
import Testing

/// The simulated raters of `peggle-bench calibration --knowledge known,oracle`: a prior that knows
/// the level's shape, and every game at the sigma that tells most about sigma50.
@Suite struct KnownShapeTests {
    typealias M = SkillModel
    /// Slope 0.7 x 20^(3/7) = 2.527, ceiling 0.95, floor 0.02: shape (3 x 5 + 3) x 5 + 1.
    static let shape = 91

    @Test func shapeIndicesRunSlopeThenCeilingThenFloor() {
        let s = M.shape(Self.shape)
        #expect(abs(s.slope - 2.5274485513486957) < 1e-12 && s.ceiling == 0.95 && s.floor == 0.02)
        #expect(SkillPrior.populationShapeIndex(at: 0) == 0)
    }

    /// Hand-computed (the model's formula over the 73 trial sigmas, in Python): for sigma50 0.02
    /// the information (dP/dx50)^2 / (P (1 - P)) peaks at 0.02154435 (1.381), just above sigma50
    /// where P = 0.456 (the ceiling 0.95 is further from 1/2 than the floor 0.02, so the curve is
    /// steepest relative to its noise a little past its middle); 0.01957342 gives 1.376.
    @Test func theMostInformativeSigmaIsWhereOneGameTellsMost() {
        #expect(M.mostInformativeSigma(sigma50: 0.02, shape: Self.shape) == 0.02154435)
    }

    @Test func aKnownShapePriorPutsEveryGameOnThatShape() {
        var p = SkillPosterior(prior: .knownShape(Self.shape))
        for (sigma, won) in [(0.01, true), (0.02154435, false), (0.03, false), (0.015, true), (0.05, false)] {
            p.add(sigma: sigma, wins: won ? 1 : 0, losses: won ? 0 : 1)
        }
        let fit = p.summary()
        #expect(abs(fit.slope - 2.5274485513486957) < 1e-9 && abs(fit.ceiling - 0.95) < 1e-12 && abs(fit.floor - 0.02) < 1e-12)
        // The same games under the flat prior leave the shape open, and sigma50 less certain.
        let flat = SkillPosterior([(0.01, true), (0.02154435, false), (0.03, false), (0.015, true), (0.05, false)]).summary()
        #expect(flat.high / flat.low > fit.high / fit.low)
    }

    @Test func aFixedSigmaMeasurementPlaysEveryGameThereAndStopsByTheRules() {
        let settings = AdaptiveSettings(budget: 40)
        // Every other game won: about the win rate (0.456) at that sigma.
        let m = SkillMeasurement.run(SkillMeasurement(settings: settings, firstSeed: 100, prior: .knownShape(Self.shape),
                                                      fixedSigma: 0.02154435)) { $0.seed % 2 == 0 }
        #expect(m.played.allSatisfy { $0.trial.sigma == 0.02154435 })
        #expect(m.played.map(\.trial.seed) == Array(100..<UInt64(100 + m.played.count)))
        // Forty games at one sigma with the shape known cannot reach precision 1.25 (an sd of
        // 0.114 in ln sigma needs 1 / (0.114^2 x 1.381) = 56 games): the budget stops it.
        #expect(m.played.count == 40 && m.stop == .budget)
    }

    /// The oracle's games follow the Fisher information: a factor 1.345 either side is a 95%
    /// interval of ln sigma50 +-0.296, an sd of 0.151, which at 1.381 a game takes
    /// 1 / (0.151^2 x 1.381) = 31.7 games. The stop is checked after each batch of 8 and asks the
    /// wider side of the interval to be within the factor, so twenty ratings (the true win rate at
    /// that sigma, 0.45633) take 816 games, 40.8 each: the batch after 32, mostly.
    @Test func theOracleNeedsTheGamesTheFisherInformationSays() {
        let settings = AdaptiveSettings(budget: 1000, precision: 1.345)
        var games = 0, covered = 0
        for k in 0..<20 {
            var rng = SeededGenerator(seed: 0x0AC1E &+ UInt64(k))
            let m = SkillMeasurement.run(SkillMeasurement(settings: settings, firstSeed: 0, prior: .knownShape(Self.shape),
                                                          fixedSigma: 0.02154435)) { _ in rng.nextUnit() < 0.45633277529764593 }
            games += m.played.count
            let fit = m.posterior.summary()
            if fit.low <= 0.02 && 0.02 <= fit.high { covered += 1 }
        }
        #expect(games == 816)
        #expect(covered == 19)
    }
}
