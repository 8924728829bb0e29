import Foundation
import PeggleDifficulty
import PeggleLevel
import PeggleUtilities

/// A level that is only its win probability at each aim noise: the rater is checked against a
/// truth no real level gives. The calibration tests rate a few of them in debug builds;
/// `peggle-bench calibration` rates hundreds in release, with the same levels, seeds and
/// simulated raters (docs/measurement.md, "Calibration").
public struct SyntheticLevel: Sendable, Equatable {
    /// How the win probability falls with sigma (radians).
    public enum Curve: Sendable, Equatable {
        /// The model's own curve (`SkillModel`): a logistic in ln sigma between `ceiling` and `floor`
        /// that crosses 1/2 at `sigma50`.
        case logistic(sigma50: Double, slope: Double, ceiling: Double, floor: Double)
        /// A curve the model does not describe exactly: `shots` shots that must each land within
        /// `within` radians, P(win) = floor + (ceiling - floor) * erf(within / (sigma sqrt 2))^shots.
        case shots(Int, within: Double, ceiling: Double, floor: Double)
    }

    public var curve: Curve
    /// The curve's shape on the model's grid (`SkillModel.shape(_:)`), for levels drawn from the
    /// population prior; nil for a curve off the grid. A simulated rater that knows the shape
    /// (`Rater.known`, `.oracle`) needs it.
    public var shape: Int?

    public init(_ curve: Curve, shape: Int? = nil) {
        self.curve = curve
        self.shape = shape
    }

    public static func logistic(sigma50: Double, slope: Double, ceiling: Double, floor: Double) -> SyntheticLevel {
        SyntheticLevel(.logistic(sigma50: sigma50, slope: slope, ceiling: ceiling, floor: floor))
    }

    /// The probability of winning one game at aim noise `sigma` (radians; 0 gives the ceiling).
    public func winProbability(_ sigma: Double) -> Double {
        switch curve {
        case let .logistic(sigma50, slope, ceiling, floor):
            let q = (0.5 - floor) / (ceiling - floor)
            return SkillModel.probability(x: log(sigma), x50: log(sigma50), slope: slope, ceiling: ceiling, floor: floor,
                                          offset: log((1 - q) / q))
        case let .shots(k, within, ceiling, floor):
            return floor + (ceiling - floor) * pow(erf(within / (sigma * 2.0.squareRoot())), Double(k))
        }
    }

    /// Where the win probability is 1/2, by bisection in ln sigma (for a logistic, its `sigma50`
    /// to the last bits): the truth a rating's interval should cover.
    public var sigma50: Double {
        var lo = 1e-6, hi = 10.0
        for _ in 0..<200 {
            let m = (lo * hi).squareRoot()
            if winProbability(m) > 0.5 { lo = m } else { hi = m }
        }
        return (lo * hi).squareRoot()
    }

    /// "logistic sigma50 0.02 slope 3 ceiling 0.97 floor 0.02": what the benchmark's rows call it.
    public var name: String {
        let n = LevelCodec.number
        switch curve {
        case let .logistic(sigma50, slope, ceiling, floor):
            return "logistic sigma50 \(n(sigma50)) slope \(n(slope)) ceiling \(n(ceiling)) floor \(n(floor))"
        case let .shots(k, within, ceiling, floor):
            let count = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
            return "\(k < count.count ? count[k] : "\(k)") shots within \(n(within)) rad ceiling \(n(ceiling)) floor \(n(floor))"
        }
    }

    /// Game `trial` of rating number `rating`: won with the true probability, from its own seeded
    /// stream (so a game's outcome depends on nothing but the rating, its seed and its sigma).
    public func play(_ trial: SkillMeasurement.Trial, rating: UInt64) -> Bool {
        var rng = SeededGenerator(seed: rating &* 0x9E37_79B9_7F4A_7C15 ^ trial.seed)
        return rng.nextUnit() < winProbability(trial.sigma)
    }

    /// What a simulated rater knows of the level's curve besides its games.
    public enum Rater: String, Sendable, CaseIterable {
        /// Only the prior: the rater as it is.
        case prior
        /// The level's slope, ceiling and floor exactly (`SkillPrior.knownShape`); games placed as
        /// the settings say.
        case known
        /// The shape known, and every game at `SkillModel.mostInformativeSigma` of the true curve:
        /// each game tells the most a game can about sigma50, so (to first order) no rater reaches
        /// a precision in fewer games.
        case oracle
    }

    /// Rating number `rating` of this level by `rater`, from seed 0, each game played by `play`.
    /// `known` and `oracle` need the level's `shape`.
    public func rate(_ rating: UInt64, settings: AdaptiveSettings, rater: Rater = .prior, x50: X50Prior? = nil) -> SkillMeasurement {
        let measurement: SkillMeasurement
        switch rater {
        case .prior: measurement = SkillMeasurement(settings: settings, firstSeed: 0, x50: x50)
        case .known, .oracle:
            guard let shape else { preconditionFailure("a \(rater.rawValue) rater needs a level whose shape is on the model's grid") }
            measurement = SkillMeasurement(settings: settings, firstSeed: 0, prior: .knownShape(shape, x50: x50),
                                           fixedSigma: rater == .oracle ? SkillModel.mostInformativeSigma(sigma50: sigma50, shape: shape) : nil)
        }
        return SkillMeasurement.run(measurement) { play($0, rating: rating) }
    }

    /// The fixed levels of the calibration: the tests' level (sigma50 0.02), the two others of
    /// docs/measurement.md's spread table, and a level that is not the model's logistic.
    public static let calibration: [SyntheticLevel] = [
        .logistic(sigma50: 0.02, slope: 3, ceiling: 0.97, floor: 0.02),
        .logistic(sigma50: 0.005, slope: 2, ceiling: 0.9, floor: 0),
        .logistic(sigma50: 0.1, slope: 5, ceiling: 0.99, floor: 0.1),
        SyntheticLevel(.shots(6, within: 0.01, ceiling: 0.95, floor: 0.02)),
    ]

    /// Level `k` of those drawn from the population prior: its shape by the prior's weights,
    /// sigma50 log-uniform over 0.002 to 0.5 rad, from a stream seeded by `k`.
    public static func drawn(_ k: Int) -> SyntheticLevel {
        var rng = SeededGenerator(seed: 0x5EED_0F_9071 &+ UInt64(k) &* 0x9E37_79B9_7F4A_7C15)
        let index = SkillPrior.populationShapeIndex(at: rng.nextUnit())
        let shape = SkillModel.shape(index)
        let sigma50 = exp(log(0.002) + rng.nextUnit() * (log(0.5) - log(0.002)))
        return SyntheticLevel(.logistic(sigma50: sigma50, slope: shape.slope, ceiling: shape.ceiling, floor: shape.floor), shape: index)
    }
}
