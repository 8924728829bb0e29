import Foundation
import PeggleDifficulty
@testable import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleTestSupport
import Testing

@Suite("The instant estimate")
struct EstimateTests {
    static func prepared(_ pegs: [Peg], mode: GameMode = .classic(balls: 10)) throws -> PreparedLevel {
        try PreparedLevel(makeLevel(mode: mode, pegs: pegs))
    }

    @Test func featuresAreNamedOncePerValueAndTheSameBitsEachTime() throws {
        let p = try Self.prepared([peg(1, .orange, 400, 300), peg(2, .blue, 300, 350), peg(3, .orange, 500, 200)])
        let a = LevelFeatures(p), b = LevelFeatures(p)
        #expect(a.values.count == LevelFeatures.names.count)
        #expect(Set(LevelFeatures.names).count == LevelFeatures.names.count)
        #expect(a == b)
        let named = Dictionary(uniqueKeysWithValues: zip(LevelFeatures.names, a.values))
        #expect(named["orange_count"] == 2 && named["peg_count"] == 3 && named["block_count"] == 0)
        #expect(named["mode_classic"] == 1 && named["mode_dodge"] == 0 && named["balls"] == 10)
    }

    /// One orange peg straight below the cannon: the aims that clear it are the ones whose first
    /// contact is that peg, a narrow fan, counted here from the game itself.
    @Test func theShotSweepCountsWhatTheGameDoes() throws {
        let p = try Self.prepared([peg(1, .orange, 400, 300)])
        let f = Dictionary(uniqueKeysWithValues: zip(LevelFeatures.names, LevelFeatures(p).values))
        var clearing = 0
        for k in 0..<LevelFeatures.aims {
            let angle = -1.45 + 2.9 * Double(k) / Double(LevelFeatures.aims - 1)
            if try p.start.outcome(ofShooting: angle).shot.orangeCleared > 0 { clearing += 1 }
        }
        #expect(clearing > 0 && clearing < LevelFeatures.aims)
        #expect(f["aims_clearing_orange"] == Double(clearing) / Double(LevelFeatures.aims))
        #expect(f["shot_orange_share_max"] == 1)
    }

    static func model(intercept: Double, weight: Double = 0, feature: String = "orange_count",
                      residualSD: Double = 0.5) -> EstimateModel {
        let n = LevelFeatures.names.count
        var w = [Double](repeating: 0, count: n)
        w[LevelFeatures.names.firstIndex(of: feature)!] = weight
        return EstimateModel(format: 1, featuresVersion: LevelFeatures.version, features: LevelFeatures.names,
                             mean: .init(repeating: 0, count: n), scale: .init(repeating: 1, count: n), weights: w,
                             intercept: intercept, residualSD: residualSD, fittedOn: "test")
    }

    /// ln sigma50 = intercept + weight * orange_count, interval +- 1.96 residual SD, clamped to the range.
    @Test func thePredictionIsTheLinearModelWithItsInterval() throws {
        let p = try Self.prepared([peg(1, .orange, 400, 300), peg(2, .orange, 300, 350)])
        let e = Sigma50Estimate(p, model: Self.model(intercept: -3, weight: -0.5))
        #expect(abs(e.sigma50 - exp(-4.0)) < 1e-15)
        #expect(abs(e.low - exp(-4 - 1.959964 * 0.5)) < 1e-15)
        #expect(abs(e.high - exp(-4 + 1.959964 * 0.5)) < 1e-15)
        #expect(e.tier == .hard)  // 0.0183 lies in 0.01...0.03
        let wide = Sigma50Estimate(p, model: Self.model(intercept: -1, residualSD: 4))
        #expect(wide.high == SkillModel.highest && wide.low == SkillModel.lowest)
    }

    @Test func aModelOfOtherFeaturesIsRefusedNamingTheField() throws {
        var m = Self.model(intercept: -3)
        m.features[0] = "something_else"
        let data = try JSONEncoder().encode(m)
        #expect(throws: EstimateModelError("features: fitted on features version 1 (37 features); this build computes "
            + "version 1 (37): refit with scripts/fit-estimate")) { try EstimateModel.decode(data) }
        var bad = Self.model(intercept: -3)
        bad.residualSD = 0
        #expect(throws: EstimateModelError("scale and residual_sd: must be positive and finite")) {
            try EstimateModel.decode(try JSONEncoder().encode(bad))
        }
    }

    @Test func theBuiltInModelLoadsAndMatchesTheseFeatures() {
        let m = EstimateModel.builtIn
        #expect(m.features == LevelFeatures.names && m.featuresVersion == LevelFeatures.version)
        #expect(m.residualSD > 0)
    }
}
