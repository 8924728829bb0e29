import Foundation
import PeggleDifficulty
import PeggleEstimate
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

    static func named(_ p: PreparedLevel) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: zip(LevelFeatures.names, LevelFeatures(p).values))
    }

    /// A row of pegs under the cannon with gaps between them.
    static let field = (0..<9).map { peg($0 + 1, $0 % 3 == 1 ? .orange : .blue, 160 + 60 * Double($0), 330) }

    /// The mode's knobs are features, and the noise one shot tolerates while doing what the mode
    /// asks (`*_ln_sigma_demand`, the mode's own) can only fall as a knob asks more: fewer balls, a shorter clock,
    /// more clean shots. The board's own features do not move with the clock or the dodge count.
    @Test func theModesKnobsAreFeaturesAndTheNoiseAShotToleratesFallsAsTheyAskMore() throws {
        func features(_ mode: GameMode) throws -> [String: Double] { Self.named(try Self.prepared(Self.field, mode: mode)) }
        let dodge = try [1, 2, 8, 32].map { try features(.dodge(shots: $0)) }
        for (k, n) in [1.0, 2, 8, 32].enumerated() {
            #expect(dodge[k]["dodge_ln_shots"] == log(n) && dodge[k]["bts_ln_target_per_shot"] == 0)
        }
        let dodgeDemand = dodge.map { $0["dodge_ln_sigma_demand"]! }
        #expect(dodge.allSatisfy { $0["classic_ln_sigma_demand"] == 0 && $0["bts_ln_sigma_demand"] == 0 })
        #expect(zip(dodgeDemand, dodgeDemand.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(dodgeDemand[3] < dodgeDemand[0])
        #expect(dodge[1]["ln_sigma_half"] == dodge[3]["ln_sigma_half"] && dodge[1]["aim_roughness"] == dodge[3]["aim_roughness"])

        let clock = try [120.0, 45, 18].map { try features(.beatTheScore(targetScore: 3000, timeLimit: $0)) }
        // ln(target / board points x shot time / limit): the board (3 oranges, 6 blues) is worth 360 at x1.
        let shotTime = clock[0]["bts_ln_target_per_shot"]! - log(3000.0 / 360 / 120)
        for (k, limit) in [120.0, 45, 18].enumerated() {
            #expect(abs(clock[k]["bts_ln_target_per_shot"]! - (log(3000.0 / 360 / limit) + shotTime)) < 1e-12)
            #expect(clock[k]["dodge_ln_shots"] == 0)
        }
        #expect(exp(shotTime) >= 0.5 && exp(shotTime) < 20)
        let clockDemand = clock.map { $0["bts_ln_sigma_demand"]! }
        #expect(zip(clockDemand, clockDemand.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(clock[0]["noisy_best_value_50mrad"] == clock[2]["noisy_best_value_50mrad"])

        let balls = try [10, 5, 2].map { try features(.classic(balls: $0))["classic_ln_sigma_demand"]! }
        #expect(zip(balls, balls.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(balls.allSatisfy { $0 >= log(LevelFeatures.toleranceSigmas[0]) && $0 <= log(LevelFeatures.toleranceSigmas.last!) })
    }

    /// The tolerance profile: a shot of value 1 at offsets within 0.01 of the aim, 0 beyond. Under
    /// noise sigma the value is the normal mass within 0.01 (the cells meet halfway between
    /// shots), so it halves near 0.01 / 0.674; it is at least 0.9 only below 0.01 / 1.645.
    @Test func theToleranceProfileIsTheNormalMassOfTheAimsThatDoWell() {
        let offsets: [Double] = [-0.03, -0.015, -0.005, 0, 0.005, 0.015, 0.03]
        let profile = offsets.map { (offset: $0, value: abs($0) < 0.01 ? 1.0 : 0) }
        let t = LevelFeatures.tolerance([profile])
        for (sigma, v) in zip(LevelFeatures.toleranceSigmas, t) {
            #expect(abs(v - erf(0.01 / (sigma * 2.0.squareRoot()))) < 1e-12)
        }
        let half = LevelFeatures.largestSigma(t, atLeast: 0.5), ninety = LevelFeatures.largestSigma(t, atLeast: 0.9)
        #expect(abs(half / (0.01 / 0.6745) - 1) < 0.02 && abs(ninety / (0.01 / 1.6449) - 1) < 0.02)
        #expect(LevelFeatures.largestSigma(t, atLeast: 2) == LevelFeatures.toleranceSigmas[0])
        #expect(LevelFeatures.largestSigma(t.map { _ in 1 }, atLeast: 1) == LevelFeatures.toleranceSigmas.last!)
    }

    /// The signed features enter the prediction linearly with their weight's sign: moving one the
    /// harder way never raises the estimate, whatever the kernel (the built-in model's), and a
    /// model whose signs or weights break that is refused, naming the field.
    @Test func aHarderKnobNeverRaisesTheEstimateAndAModelThatWouldIsRefused() throws {
        let m = EstimateModel.builtIn
        for (name, sign) in LevelFeatures.monotone {
            let k = LevelFeatures.names.firstIndex(of: name)!
            #expect(m.signs[k] == sign && m.weights[k] * Double(sign) >= 0)
        }
        let base = LevelFeatures(try Self.prepared(Self.field, mode: .dodge(shots: 3)))
        for k in m.signs.indices where m.signs[k] != 0 {
            var last = Double.infinity
            for step in 0...8 {
                var v = base.values
                v[k] -= Double(m.signs[k]) * Double(step) * m.scale[k]  // the harder way
                let y = m.predictLog(LevelFeatures(values: v))
                #expect(y <= last)
                last = y
            }
        }
        let dodge = LevelFeatures.names.firstIndex(of: "dodge_ln_shots")!
        var flipped = Self.model(intercept: -3)
        flipped.signs[dodge] = 1
        #expect(throws: EstimateModelError("signs[\(dodge)] (dodge_ln_shots): must be -1, the feature can only make a level harder as it grows")) {
            try EstimateModel.decode(try JSONEncoder().encode(flipped))
        }
        var wrong = Self.model(intercept: -3, weight: 0.25, feature: "dodge_ln_shots")
        #expect(throws: EstimateModelError("weights[\(dodge)] (dodge_ln_shots): 0.25 has not the sign of signs[\(dodge)], -1")) {
            try EstimateModel.decode(try JSONEncoder().encode(wrong))
        }
        wrong.weights[dodge] = -0.25
        #expect(try EstimateModel.decode(try JSONEncoder().encode(wrong)).weights[dodge] == -0.25)
    }

    static func model(intercept: Double, weight: Double = 0, feature: String = "orange_count",
                      residualSD: Double = 0.5) -> EstimateModel {
        let n = LevelFeatures.names.count
        var w = [Double](repeating: 0, count: n)
        w[LevelFeatures.names.firstIndex(of: feature)!] = weight
        return EstimateModel(format: EstimateModel.currentFormat, featuresVersion: LevelFeatures.version, features: LevelFeatures.names,
                             mean: .init(repeating: 0, count: n), scale: .init(repeating: 1, count: n), weights: w,
                             intercept: intercept, residualSD: residualSD, fittedOn: "test",
                             signs: LevelFeatures.names.map { LevelFeatures.monotone[$0] ?? 0 })
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

    /// The kernel part adds alpha exp(-|z - row|^2 / (2 l^2 d)) per fitted row, over the d
    /// unsigned features: a row equal to the level's standardised features adds its whole alpha; a
    /// row one unit away in one of them adds alpha exp(-1 / (2 l^2 d)); a row away only in a signed
    /// feature counts as equal.
    @Test func theKernelPartAddsEachFittedRowByItsDistance() throws {
        let p = try Self.prepared([peg(1, .orange, 400, 300), peg(2, .orange, 300, 350)])
        let features = LevelFeatures(p), d = Double(LevelFeatures.names.count - LevelFeatures.monotone.count)
        var m = Self.model(intercept: -3)
        var far = features.values
        far[0] += 1
        m.kernel = .init(lengthScale: 2, alpha: [0.5, -0.25], rows: [features.values, far])
        #expect(abs(m.predictLog(features) - (-3 + 0.5 - 0.25 * exp(-1 / (2 * 4 * d)))) < 1e-12)
        var signedAway = features.values
        signedAway[LevelFeatures.names.firstIndex(of: "dodge_ln_shots")!] += 1
        var m2 = m
        m2.kernel!.rows[1] = signedAway
        #expect(abs(m2.predictLog(features) - (-3 + 0.5 - 0.25)) < 1e-12)
        var bad = m
        bad.kernel!.rows[1].removeLast()
        #expect(throws: EstimateModelError("kernel: needs a positive length_scale and one alpha per row of \(LevelFeatures.names.count) values")) {
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
        let v = LevelFeatures.version, n = LevelFeatures.names.count
        #expect(throws: EstimateModelError("features: fitted on features version \(v) (\(n) features); this build computes "
            + "version \(v) (\(n)): refit with scripts/fit-estimate")) { try EstimateModel.decode(data) }
        var old = Self.model(intercept: -3)
        old.featuresVersion = 1
        #expect(throws: EstimateModelError("features: fitted on features version 1 (\(n) features); this build computes "
            + "version \(v) (\(n)): refit with scripts/fit-estimate")) { try EstimateModel.decode(try JSONEncoder().encode(old)) }
        var linear = Self.model(intercept: -3)
        linear.format = 2
        #expect(throws: EstimateModelError("format: 2 is not 5")) { try EstimateModel.decode(try JSONEncoder().encode(linear)) }
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

    /// Three fitted levels at 0, 1 and 3 on the first feature: their nearest others lie 1/r, 1/r
    /// and 2/r away (root mean square over the n features, r = sqrt(n)), so the reach (95%) is
    /// 2/r. A level at 10 lies (10 - 3) / r from the nearest, 3.5 times the reach: the interval's
    /// half-width is 3.5 times 1.96 residual SDs. One at 2 lies 1/r away: inside, unwidened.
    @Test func aLevelFarFromEveryFittedLevelIsFlaggedAndItsIntervalWidened() throws {
        let n = LevelFeatures.names.count, r = Double(n).squareRoot()
        func row(_ x: Double) -> [Double] { [x] + .init(repeating: 0, count: n - 1) }
        var m = Self.model(intercept: -3)
        m.kernel = .init(lengthScale: 1, alpha: [0, 0, 0], rows: [row(0), row(1), row(3)])
        let decoded = try EstimateModel.decode(try JSONEncoder().encode(m))
        #expect(decoded.reach == (4.0 / Double(n)).squareRoot())
        func estimate(_ x: Double) -> Sigma50Estimate {
            var values = [Double](repeating: 0, count: n)
            values[0] = x
            return Sigma50Estimate(features: LevelFeatures(values: values), model: decoded)
        }
        let far = estimate(10), near = estimate(2)
        #expect(abs(far.distance! - 7 / r) < 1e-12 && far.outOfDistribution)
        #expect(abs(far.low - exp(-3 - 1.959964 * 0.5 * 3.5)) < 1e-14)
        #expect(far.high == SkillModel.highest)  // exp(-3 + 3.43) = 1.54, clamped to the rater's range
        #expect(near.distance == (1.0 / Double(n)).squareRoot() && !near.outOfDistribution)
        #expect(abs(near.low - exp(-3 - 1.959964 * 0.5)) < 1e-15)
        // A linear model keeps no levels: it never says it is guessing.
        let linear = try EstimateModel.decode(try JSONEncoder().encode(Self.model(intercept: -3)))
        #expect(linear.reach == nil)
        #expect(Sigma50Estimate(features: LevelFeatures(values: .init(repeating: 1e6, count: n)), model: linear).outOfDistribution == false)
    }

    /// Four fitted levels at 0, 1, 3 and 6 on the first feature with cross-validated errors 1, -2,
    /// 4 and 0.5; two neighbours, scale 1, guessing past a spread of 3. A level at 0.4: its two
    /// nearest are 0 and 1, spread sqrt((1 + 4) / 2), the half-width, not guessing. One at 2.6:
    /// 3 and 1, spread sqrt((16 + 4) / 2) = 3.16, past 3: guessing, though it lies within the reach.
    /// The interval replaces 1.96 residual SDs; past the reach it is widened as before.
    @Test func theIntervalIsTheNearestFittedLevelsErrorsSpreadAndAWideSpreadIsGuessing() throws {
        let n = LevelFeatures.names.count, r = Double(n).squareRoot()
        func row(_ x: Double) -> [Double] { [x] + .init(repeating: 0, count: n - 1) }
        var m = Self.model(intercept: -3)
        m.kernel = .init(lengthScale: 1, alpha: [0, 0, 0, 0], rows: [row(0), row(1), row(3), row(6)])
        m.interval = .init(neighbours: 2, scale: 1, guessingSpread: 3, errors: [1, -2, 4, 0.5])
        let decoded = try EstimateModel.decode(try JSONEncoder().encode(m))
        #expect(decoded.interval == m.interval && decoded.reach == (9.0 / Double(n)).squareRoot())  // the nearest others: 1, 1, 2, 3
        func estimate(_ x: Double) -> Sigma50Estimate { Sigma50Estimate(features: LevelFeatures(values: row(x)), model: decoded) }
        let calm = estimate(0.4), wild = estimate(2.6), far = estimate(20)
        #expect(abs(calm.spread! - 2.5.squareRoot()) < 1e-12 && !calm.outOfDistribution)
        #expect(abs(calm.low - exp(-3 - 2.5.squareRoot())) < 1e-14 && abs(calm.high - exp(-3 + 2.5.squareRoot())) < 1e-14)
        #expect(abs(wild.spread! - 10.0.squareRoot()) < 1e-12 && wild.outOfDistribution && wild.distance! < decoded.reach!)
        #expect(abs(wild.low - exp(-3 - 10.0.squareRoot())) < 1e-14 && wild.high == SkillModel.highest)  // exp(0.16), clamped
        // At 20: nearest 6 (14 / r, 4.7 reaches) and 3; spread sqrt((0.25 + 16) / 2), widened 4.7 times.
        #expect(abs(far.spread! - 8.125.squareRoot()) < 1e-12 && abs(far.distance! - 14 / r) < 1e-12 && far.outOfDistribution)
        #expect(far.low == SkillModel.lowest && far.high == SkillModel.highest)
        // Refused: an error per row, the kernel, neighbours among the rows, a positive scale.
        var short = m
        short.interval!.errors.removeLast()
        var linear = Self.model(intercept: -3)
        linear.interval = m.interval
        var many = m
        many.interval!.neighbours = 5
        var flat = m
        flat.interval!.scale = 0
        var nan = m
        nan.interval!.errors[2] = .infinity
        #expect(throws: EstimateModelError("interval.errors[2]: infinity is not a finite number")) { try nan.checkFinite() }
        for (bad, message) in [(short, "interval.errors: needs one per kernel row (4), has 3"),
                               (linear, "interval: needs the kernel (the fitted levels' rows)"),
                               (many, "interval.neighbours: 5 is not 1 to 4"),
                               (flat, "interval: scale and guessing_spread must be positive and finite")] {
            #expect(throws: EstimateModelError(message)) { try EstimateModel.decode(try JSONEncoder().encode(bad)) }
        }
    }

    /// The fitted levels of the test above with a guessing widening of 1.2: the calm level's
    /// interval is as before; the guessing one's half-width sqrt(10) grows to 1.2 sqrt(10) (its low
    /// end from exp(-6.16) = 0.0021 to exp(-6.79) = 0.0011, still inside the range). A widening
    /// below 1 (which would narrow what is a guess) is refused; a file of another format is named
    /// by its format, not by a field it lacks.
    @Test func aGuessingLevelsIntervalIsWidenedByTheModelsGuessingWidening() throws {
        let n = LevelFeatures.names.count
        func row(_ x: Double) -> [Double] { [x] + .init(repeating: 0, count: n - 1) }
        var m = Self.model(intercept: -3)
        m.kernel = .init(lengthScale: 1, alpha: [0, 0, 0, 0], rows: [row(0), row(1), row(3), row(6)])
        m.interval = .init(neighbours: 2, scale: 1, guessingSpread: 3, guessingWidening: 1.2, errors: [1, -2, 4, 0.5])
        let decoded = try EstimateModel.decode(try JSONEncoder().encode(m))
        #expect(decoded.interval?.guessingWidening == 1.2)
        func estimate(_ x: Double) -> Sigma50Estimate { Sigma50Estimate(features: LevelFeatures(values: row(x)), model: decoded) }
        let calm = estimate(0.4), wild = estimate(2.6)
        #expect(abs(calm.low - exp(-3 - 2.5.squareRoot())) < 1e-14 && abs(calm.high - exp(-3 + 2.5.squareRoot())) < 1e-14)
        #expect(wild.outOfDistribution && abs(wild.low - exp(-3 - 1.2 * 10.0.squareRoot())) < 1e-14 && wild.high == SkillModel.highest)
        for (widening, text) in [(0.9, "0.9"), (0, "0.0")] {
            var bad = m
            bad.interval!.guessingWidening = widening
            #expect(throws: EstimateModelError("interval.guessing_widening: \(text) is not a finite number of at least 1")) {
                try EstimateModel.decode(try JSONEncoder().encode(bad))
            }
        }
        // A format-4 file has no guessing_widening.
        var old = try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(m)) as? [String: Any])
        var interval = try #require(old["interval"] as? [String: Any])
        interval["guessing_widening"] = nil
        old["interval"] = interval
        old["format"] = 4
        let oldData = try JSONSerialization.data(withJSONObject: old)
        #expect(throws: EstimateModelError("format: 4 is not 5")) { try EstimateModel.decode(oldData) }
    }

    @Test func theBuiltInModelLoadsAndMatchesTheseFeatures() {
        let m = EstimateModel.builtIn
        #expect(m.features == LevelFeatures.names && m.featuresVersion == LevelFeatures.version)
        #expect(m.residualSD > 0)
        #expect(m.kernel?.rows.count == 1579)
        // The 1501th of the 1579 leave-one-out nearest distances (docs/estimate.md quotes it).
        #expect(((m.reach ?? 0) * 1000).rounded() == 586)
        // The local interval: the 100 nearest fitted levels' errors, scale 2.11, guessing past 1.11,
        // widened 1.36 times there (docs/estimate.md quotes them).
        #expect(m.interval?.neighbours == 100 && m.interval?.errors.count == 1579)
        #expect(((m.interval?.scale ?? 0) * 100).rounded() == 211 && ((m.interval?.guessingSpread ?? 0) * 100).rounded() == 111)
        #expect(m.interval?.guessingWidening == 1.36)
    }

    /// The built-in model's estimate of a bundled level, pinned: refitting or changing a feature
    /// moves it (docs/metrics.md has the rated value beside it).
    @Test func theBuiltInEstimateOfSpiralIsPinned() throws {
        let level = try LevelCodec.decode(Repository.data("Levels/spiral.json"))
        let e = Sigma50Estimate(try PreparedLevel(level), model: .builtIn)
        #expect(e.sigma50 == 0.0033587763018084224 && e.tier == .veryHard)
    }
}
