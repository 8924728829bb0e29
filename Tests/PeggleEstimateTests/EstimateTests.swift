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
        // One orange: its window is the aims that clear it, and nothing is out of reach.
        #expect(f["orange_unreached_share"] == 0)
        #expect(f["orange_window_ln_mean"] == log(1 + Double(clearing)))
        #expect(f["orange_window_ln_min"] == log(Double(clearing)))
    }

    /// The noise-tolerance features of the same fan: averaging over wider aim noise can only lose
    /// the knife-edge, so the best noisy value falls as the width grows and stays below the best
    /// single shot; the fine look around a best aim that clears the peg stays above a third.
    /// The best first shot wins (one orange), so the second shot counts as a win.
    @Test func noiseToleranceFallsWithTheNoiseAndAWonFirstShotCountsAsTwo() throws {
        let p = try Self.prepared([peg(1, .orange, 400, 300)])
        let f = Dictionary(uniqueKeysWithValues: zip(LevelFeatures.names, LevelFeatures(p).values))
        let noisy = LevelFeatures.noiseWidths.map { f["noisy_best_value_\(Int(($0 * 1000).rounded()))mrad"]! }
        #expect(noisy.count == 3 && noisy[0] <= 1 && zip(noisy, noisy.dropFirst()).allSatisfy { $0 > $1 })
        #expect(noisy[2] > 0)
        for o in LevelFeatures.fineOffsets {
            let v = f["fine_best_value_\(Int((o * 1000).rounded()))mrad"]!
            #expect(v >= 1.0 / 3 && v <= 1)
        }
        #expect(f["second_shot_value_max"] == 1 && f["second_shot_value_mean"] == 1)
        #expect(f["two_shots_orange_share"] == 1)
        #expect(f["ln_orange_per_ball"] == log(1.0 / 10))
    }

    static func model(intercept: Double, weight: Double = 0, feature: String = "orange_count",
                      residualSD: Double = 0.5) -> EstimateModel {
        let n = LevelFeatures.names.count
        var w = [Double](repeating: 0, count: n)
        w[LevelFeatures.names.firstIndex(of: feature)!] = weight
        return EstimateModel(format: EstimateModel.currentFormat, featuresVersion: LevelFeatures.version, features: LevelFeatures.names,
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

    /// The kernel part adds alpha exp(-|z - row|^2 / (2 l^2 d)) per fitted row: a row equal to the
    /// level's standardised features adds its whole alpha; a row one unit away in one feature adds
    /// alpha exp(-1 / (2 l^2 d)).
    @Test func theKernelPartAddsEachFittedRowByItsDistance() throws {
        let p = try Self.prepared([peg(1, .orange, 400, 300), peg(2, .orange, 300, 350)])
        let features = LevelFeatures(p), d = Double(features.values.count)
        var m = Self.model(intercept: -3)
        var far = features.values
        far[0] += 1
        m.kernel = .init(lengthScale: 2, alpha: [0.5, -0.25], rows: [features.values, far])
        #expect(abs(m.predictLog(features) - (-3 + 0.5 - 0.25 * exp(-1 / (2 * 4 * d)))) < 1e-12)
        var bad = m
        bad.kernel!.rows[1].removeLast()
        #expect(throws: EstimateModelError("kernel: needs a positive length_scale and one alpha per row of \(Int(d)) values")) {
            try EstimateModel.decode(try JSONEncoder().encode(bad))
        }
        // Decoding adds the reach, which the file does not hold (it follows from the rows).
        var withReach = m
        withReach.reach = m.computedReach()
        #expect(try EstimateModel.decode(try JSONEncoder().encode(m)) == withReach)
    }

    @Test func aModelOfOtherFeaturesIsRefusedNamingTheField() throws {
        var m = Self.model(intercept: -3)
        m.features[0] = "something_else"
        let data = try JSONEncoder().encode(m)
        #expect(throws: EstimateModelError("features: fitted on features version 2 (49 features); this build computes "
            + "version 2 (49): refit with scripts/fit-estimate")) { try EstimateModel.decode(data) }
        var old = Self.model(intercept: -3)
        old.featuresVersion = 1
        #expect(throws: EstimateModelError("features: fitted on features version 1 (49 features); this build computes "
            + "version 2 (49): refit with scripts/fit-estimate")) { try EstimateModel.decode(try JSONEncoder().encode(old)) }
        var linear = Self.model(intercept: -3)
        linear.format = 1
        #expect(throws: EstimateModelError("format: 1 is not 2")) { try EstimateModel.decode(try JSONEncoder().encode(linear)) }
        var bad = Self.model(intercept: -3)
        bad.residualSD = 0
        #expect(throws: EstimateModelError("scale and residual_sd: must be positive and finite")) {
            try EstimateModel.decode(try JSONEncoder().encode(bad))
        }
    }

    @Test func aModelThatCannotPredictANumberIsRefusedNamingTheField() throws {
        func refused(_ m: EstimateModel) throws -> String {
            let data = try JSONEncoder().encode(m)
            do { _ = try EstimateModel.decode(data) } catch { return error.description }
            return "accepted"
        }
        let n = LevelFeatures.names.count
        var nan = Self.model(intercept: -3)
        nan.weights[4] = .nan
        // JSONEncoder refuses NaN itself; a model in memory is checked by the same function.
        #expect(throws: EstimateModelError("weights[4]: NaN is not a finite number")) { try nan.checkFinite() }
        var overflow = Self.model(intercept: -3)
        overflow.kernel = .init(lengthScale: 1, alpha: [1e308, 1e308], rows: [[Double]](repeating: .init(repeating: 0, count: n), count: 2))
        #expect(try refused(overflow) == "kernel.alpha: the prediction at the mean level is not finite (infinity)")
        var linear = Self.model(intercept: 0, weight: 1e308)
        linear.kernel = .init(lengthScale: 1, alpha: [0], rows: [.init(repeating: 10, count: n)])
        #expect(try refused(linear) == "weights and intercept: the prediction at fitted level 0 is not finite (infinity)")
    }

    /// Three fitted levels at 0, 1 and 3 on the first feature: their nearest others lie 1/7, 1/7
    /// and 2/7 away (root mean square over 49 features), so the reach (95%) is 2/7. A level at 10
    /// lies (10 - 3) / 7 = 1 from the nearest, 3.5 times the reach: the interval's half-width is
    /// 3.5 times 1.96 residual SDs. One at 2 lies 1/7 away: inside, unwidened.
    @Test func aLevelFarFromEveryFittedLevelIsFlaggedAndItsIntervalWidened() throws {
        let n = LevelFeatures.names.count
        #expect(n == 49)
        func row(_ x: Double) -> [Double] { [x] + .init(repeating: 0, count: n - 1) }
        var m = Self.model(intercept: -3)
        m.kernel = .init(lengthScale: 1, alpha: [0, 0, 0], rows: [row(0), row(1), row(3)])
        let decoded = try EstimateModel.decode(try JSONEncoder().encode(m))
        #expect(decoded.reach == (4.0 / 49).squareRoot())
        func estimate(_ x: Double) -> Sigma50Estimate {
            var values = [Double](repeating: 0, count: n)
            values[0] = x
            return Sigma50Estimate(features: LevelFeatures(values: values), model: decoded)
        }
        let far = estimate(10), near = estimate(2)
        #expect(far.distance == 1 && far.outOfDistribution)
        #expect(abs(far.low - exp(-3 - 1.959964 * 0.5 * 3.5)) < 1e-15)
        #expect(far.high == SkillModel.highest)  // exp(-3 + 3.43) = 1.54, clamped to the rater's range
        #expect(near.distance == (1.0 / 49).squareRoot() && !near.outOfDistribution)
        #expect(abs(near.low - exp(-3 - 1.959964 * 0.5)) < 1e-15)
        // A linear model keeps no levels: it never says it is guessing.
        let linear = try EstimateModel.decode(try JSONEncoder().encode(Self.model(intercept: -3)))
        #expect(linear.reach == nil)
        #expect(Sigma50Estimate(features: LevelFeatures(values: .init(repeating: 1e6, count: n)), model: linear).outOfDistribution == false)
    }

    @Test func theBuiltInModelLoadsAndMatchesTheseFeatures() {
        let m = EstimateModel.builtIn
        #expect(m.features == LevelFeatures.names && m.featuresVersion == LevelFeatures.version)
        #expect(m.residualSD > 0)
        #expect(m.kernel?.rows.count == 400)
        // The 380th of the 400 leave-one-out nearest distances (docs/metrics.md quotes it).
        #expect(((m.reach ?? 0) * 1000).rounded() == 857)
    }

    /// The built-in model's estimate of a bundled level, pinned: refitting or changing a feature
    /// moves it (docs/metrics.md has the rated value beside it).
    @Test func theBuiltInEstimateOfSpiralIsPinned() throws {
        let level = try LevelCodec.decode(Repository.data("Levels/spiral.json"))
        let e = Sigma50Estimate(try PreparedLevel(level), model: .builtIn)
        #expect(e.sigma50 == 0.0024075573927763894 && e.tier == .veryHard)
    }
}
