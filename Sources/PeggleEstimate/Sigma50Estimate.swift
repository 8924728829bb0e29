import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleLevel

/// A fitted model of ln sigma50 from `LevelFeatures`: a linear function of the standardised
/// features plus, optionally, a Gaussian-kernel correction from the levels it was fitted on
/// (kernel ridge regression), and the spread of its errors on levels it was not fitted on, which
/// gives the predictive interval. `scripts/fit-estimate` fits it on a rated corpus and writes this
/// file; docs/estimate.md says how and what it scored.
public struct EstimateModel: Codable, Sendable, Equatable {
    /// The file format; a reader refuses any other.
    public var format: Int
    /// `LevelFeatures.version` at the fit; a model of another version is refused.
    public var featuresVersion: Int
    public var features: [String]
    /// Per feature: the fit's mean and scale (value - mean) / scale, and the weight of the result.
    public var mean: [Double]
    public var scale: [Double]
    public var weights: [Double]
    public var intercept: Double
    /// Standard deviation of ln sigma50's prediction error, from the fit's cross-validation: the
    /// interval's spread when the model has no `interval` (a linear model).
    public var residualSD: Double
    /// Where the fit came from (corpus, levels, ratings' command), for people.
    public var fittedOn: String
    /// The kernel part; nil: the model is linear.
    public var kernel: Kernel?
    /// The local interval (needs the kernel's rows); nil: 1.96 `residualSD` everywhere.
    public var interval: Interval? = nil
    /// Per feature: +1 if its weight is at least 0 (the feature can only make a level easier as it
    /// grows), -1 if at most 0 (only harder), 0 if free. A signed feature is left out of the
    /// kernel part, so the prediction moves with it one way only: a harder knob never lowers the
    /// estimate. `decode` checks the weights keep their signs and that every feature of
    /// `LevelFeatures.monotone` has its sign here.
    public var signs: [Int]
    /// How far (`distance`) from every fitted level a level may lie before the estimate is a
    /// guess: 95% of the fitted levels had another that close (`reachQuantile`). Not in the file:
    /// `decode` computes it from the kernel's rows (the built-in model's is 0.857); nil for a
    /// linear model, which never says it is guessing.
    public var reach: Double? = nil

    package init(format: Int, featuresVersion: Int, features: [String], mean: [Double], scale: [Double], weights: [Double],
                 intercept: Double, residualSD: Double, fittedOn: String, kernel: Kernel? = nil, interval: Interval? = nil,
                 signs: [Int], reach: Double? = nil) {
        self.format = format
        self.featuresVersion = featuresVersion
        self.features = features
        self.mean = mean
        self.scale = scale
        self.weights = weights
        self.intercept = intercept
        self.residualSD = residualSD
        self.fittedOn = fittedOn
        self.kernel = kernel
        self.interval = interval
        self.signs = signs
        self.reach = reach
    }

    /// Adds sum_i alpha_i exp(-|z - rows_i|^2 / (2 lengthScale^2 d)) to the prediction, where z is
    /// the level's standardised unsigned features (`signs` 0) and d their count: near a fitted
    /// level, the prediction leans toward that level's rating.
    public struct Kernel: Codable, Sendable, Equatable {
        public var lengthScale: Double
        /// One weight per fitted level.
        public var alpha: [Double]
        /// The fitted levels' standardised features, one row of `features.count` values each.
        public var rows: [[Double]]

        public init(lengthScale: Double, alpha: [Double], rows: [[Double]]) {
            self.lengthScale = lengthScale
            self.alpha = alpha
            self.rows = rows
        }

        enum CodingKeys: String, CodingKey {
            case alpha, rows
            case lengthScale = "length_scale"
        }
    }

    /// The interval from the fitted levels' own cross-validated errors: a level's spread is the
    /// root mean square of the `errors` of its `neighbours` nearest fitted levels (`distance`, over
    /// every feature), its interval's half-width in ln sigma50 `scale` times that spread (the fit
    /// sets `scale` so that 95% of the fitted levels lie inside their own), and a spread past
    /// `guessingSpread` (the fitted levels' worst tenth) means the estimate is guessing there: the
    /// fitted levels like it were predicted worst. Where the estimate is guessing (that, or past
    /// the reach), the half-width is also multiplied by `guessingWidening`, set on rated levels
    /// nobody fitted on, so that 95% of those it flags lie inside: the fitted levels' own errors
    /// cannot say how wrong the model is where it saw nothing like the level.
    /// `scripts/fit-estimate` sets all five.
    public struct Interval: Codable, Sendable, Equatable {
        public var neighbours: Int
        public var scale: Double
        public var guessingSpread: Double
        /// At least 1; 1 when the fit was given no held-out calibration levels.
        public var guessingWidening: Double
        /// One cross-validated error of ln sigma50 per fitted level (the kernel's rows, in order).
        public var errors: [Double]

        public init(neighbours: Int, scale: Double, guessingSpread: Double, guessingWidening: Double = 1, errors: [Double]) {
            self.neighbours = neighbours
            self.scale = scale
            self.guessingSpread = guessingSpread
            self.guessingWidening = guessingWidening
            self.errors = errors
        }

        enum CodingKeys: String, CodingKey {
            case neighbours, scale, errors
            case guessingSpread = "guessing_spread", guessingWidening = "guessing_widening"
        }
    }

    /// Format 2 added `kernel`; a format-1 reader would silently ignore it, so the number changed.
    /// Format 3 added `signs` (and the kernel leaves the signed features out); format 4, `interval`;
    /// format 5, its `guessing_widening`.
    public static let currentFormat = 5

    enum CodingKeys: String, CodingKey {
        case format, features, mean, scale, weights, intercept, kernel, signs, interval
        case featuresVersion = "features_version", residualSD = "residual_sd", fittedOn = "fitted_on"
    }

    /// The model in `data`, checked against this build's features; the error names the field.
    public static func decode(_ data: Data) throws(EstimateModelError) -> EstimateModel {
        // The format first, so a file of another format is named as such rather than by the first
        // field it lacks.
        struct Format: Decodable { var format: Int }
        let format: Int
        do { format = try JSONDecoder().decode(Format.self, from: data).format } catch {
            throw EstimateModelError("not a model file: \(error)")
        }
        guard format == currentFormat else { throw EstimateModelError("format: \(format) is not \(currentFormat)") }
        let m: EstimateModel
        do { m = try JSONDecoder().decode(EstimateModel.self, from: data) } catch {
            throw EstimateModelError("not a model file: \(error)")
        }
        guard m.featuresVersion == LevelFeatures.version, m.features == LevelFeatures.names else {
            throw EstimateModelError("features: fitted on features version \(m.featuresVersion) (\(m.features.count) features); "
                + "this build computes version \(LevelFeatures.version) (\(LevelFeatures.names.count)): refit with scripts/fit-estimate")
        }
        let n = m.features.count
        guard m.mean.count == n, m.scale.count == n, m.weights.count == n, m.signs.count == n else {
            throw EstimateModelError("mean, scale, weights and signs: need \(n) values each")
        }
        for k in 0..<n {
            let name = m.features[k]
            guard [-1, 0, 1].contains(m.signs[k]) else { throw EstimateModelError("signs[\(k)] (\(name)): \(m.signs[k]) is not -1, 0 or 1") }
            if let sign = LevelFeatures.monotone[name], m.signs[k] != sign {
                throw EstimateModelError("signs[\(k)] (\(name)): must be \(sign), the feature can only make a level "
                    + (sign < 0 ? "harder" : "easier") + " as it grows")
            }
            guard m.weights[k] * Double(m.signs[k]) >= 0 else {
                throw EstimateModelError("weights[\(k)] (\(name)): \(m.weights[k]) has not the sign of signs[\(k)], \(m.signs[k])")
            }
        }
        guard m.scale.allSatisfy({ $0 > 0 && $0.isFinite }), m.residualSD > 0, m.residualSD.isFinite else {
            throw EstimateModelError("scale and residual_sd: must be positive and finite")
        }
        if let k = m.kernel {
            guard k.lengthScale > 0, k.lengthScale.isFinite, k.alpha.count == k.rows.count,
                  k.rows.allSatisfy({ $0.count == n }) else {
                throw EstimateModelError("kernel: needs a positive length_scale and one alpha per row of \(n) values")
            }
        }
        if let i = m.interval {
            guard let rows = m.kernel?.rows else { throw EstimateModelError("interval: needs the kernel (the fitted levels' rows)") }
            guard i.errors.count == rows.count else {
                throw EstimateModelError("interval.errors: needs one per kernel row (\(rows.count)), has \(i.errors.count)")
            }
            guard (1...rows.count).contains(i.neighbours) else {
                throw EstimateModelError("interval.neighbours: \(i.neighbours) is not 1 to \(rows.count)")
            }
            guard i.scale > 0, i.scale.isFinite, i.guessingSpread > 0, i.guessingSpread.isFinite else {
                throw EstimateModelError("interval: scale and guessing_spread must be positive and finite")
            }
            guard i.guessingWidening >= 1, i.guessingWidening.isFinite else {
                throw EstimateModelError("interval.guessing_widening: \(Self.text(i.guessingWidening)) is not a finite number of at least 1")
            }
        }
        try m.checkFinite()
        var checked = m
        checked.reach = m.computedReach()
        return checked
    }

    /// Refuses a model that cannot predict a number: a value that is not finite (naming the field
    /// and index), or finite values so large that the prediction overflows at the fitted levels
    /// themselves (the kernel's rows) or at the mean level (every standardised feature 0).
    package func checkFinite() throws(EstimateModelError) {
        func finite(_ values: [Double], _ field: String) throws(EstimateModelError) {
            if let i = values.firstIndex(where: { !$0.isFinite }) {
                throw EstimateModelError("\(field)[\(i)]: \(Self.text(values[i])) is not a finite number")
            }
        }
        try finite(mean, "mean")
        try finite(weights, "weights")
        guard intercept.isFinite else { throw EstimateModelError("intercept: \(Self.text(intercept)) is not a finite number") }
        if let kernel {
            try finite(kernel.alpha, "kernel.alpha")
            for (r, row) in kernel.rows.enumerated() { try finite(row, "kernel.rows[\(r)]") }
        }
        if let interval { try finite(interval.errors, "interval.errors") }
        let probes = [(Array(repeating: 0.0, count: features.count), "the mean level")]
            + (kernel?.rows ?? []).enumerated().map { ($1, "fitted level \($0)") }
        // Each Gaussian term is alpha times 0 to 1, so the kernel part lies within the sum of
        // |alpha|: where that bound is finite, no prediction is needed (predicting every fitted
        // level costs n^2 distances, most of the model's load).
        let kernelBound = kernel?.alpha.reduce(0) { $0 + abs($1) } ?? 0
        for (z, name) in probes {
            let linear = zip(weights, z).reduce(intercept) { $0 + $1.0 * $1.1 }
            guard linear.isFinite else {
                throw EstimateModelError("weights and intercept: the prediction at \(name) is not finite (\(Self.text(linear)))")
            }
            if (abs(linear) + kernelBound).isFinite { continue }
            guard predictLog(standardised: z).isFinite else {
                throw EstimateModelError("kernel.alpha: the prediction at \(name) is not finite (\(Self.text(predictLog(standardised: z))))")
            }
        }
    }

    /// A number for people: "NaN", "infinity", "-infinity" (Swift's "-nan" says nothing), else as is.
    public static func text(_ v: Double) -> String {
        v.isNaN ? "NaN" : v == .infinity ? "infinity" : v == -.infinity ? "-infinity" : "\(v)"
    }

    /// ln sigma50 predicted for `features`.
    public func predictLog(_ features: LevelFeatures) -> Double {
        predictLog(standardised: features.values.indices.map { (features.values[$0] - mean[$0]) / scale[$0] })
    }

    /// ln sigma50 predicted for standardised features `z` ((value - mean) / scale).
    func predictLog(standardised z: [Double]) -> Double { predict(standardised: z, spread: false).log }

    /// ln sigma50 predicted for standardised features `z`, the distance from `z` to the nearest
    /// fitted level (`distance(_:_:)`) and the local spread (`Interval`); nil for a linear model,
    /// which keeps no levels, and the spread nil for a model without `interval`.
    func predict(standardised z: [Double], spread wanted: Bool = true) -> (log: Double, nearest: Double?, spread: Double?) {
        var y = intercept
        for k in z.indices { y += weights[k] * z[k] }
        guard let kernel else { return (y, nil, nil) }
        // The kernel sees the unsigned features only; the distance to the fitted levels, all.
        let free = z.indices.filter { signs[$0] == 0 }, signed = z.indices.filter { signs[$0] != 0 }
        let width = 2 * kernel.lengthScale * kernel.lengthScale * Double(max(free.count, 1))
        var squared = [Double](repeating: 0, count: kernel.rows.count)
        for (r, (row, a)) in zip(kernel.rows, kernel.alpha).enumerated() {
            var d2 = 0.0
            for k in free { d2 += (z[k] - row[k]) * (z[k] - row[k]) }
            y += a * exp(-d2 / width)
            for k in signed { d2 += (z[k] - row[k]) * (z[k] - row[k]) }
            squared[r] = d2
        }
        let nearest = ((squared.min() ?? .infinity) / Double(z.count)).squareRoot()
        // The spread sorts every fitted row: skipped where only the estimate is wanted.
        guard let interval, wanted else { return (y, nearest, nil) }
        // The k nearest by distance, ties by row order (as the fit's stable sort).
        let near = squared.indices.sorted { (squared[$0], $0) < (squared[$1], $1) }.prefix(interval.neighbours)
        let meanSquare = near.reduce(0.0) { $0 + interval.errors[$1] * interval.errors[$1] } / Double(near.count)
        return (y, nearest, meanSquare.squareRoot())
    }

    /// How far apart two levels' standardised features are: the root mean square of their
    /// differences (1 = one standard deviation of the fitted corpus per feature, on average).
    static func distance(_ a: [Double], _ b: [Double]) -> Double {
        var d2 = 0.0
        for k in a.indices { d2 += (a[k] - b[k]) * (a[k] - b[k]) }
        return (d2 / Double(a.count)).squareRoot()
    }

    /// The share of fitted levels whose nearest other fitted level lies within `reach`.
    public static let reachQuantile = 0.95

    /// `reach` from the kernel's rows: the `reachQuantile` quantile of each fitted level's
    /// distance to its nearest other one (leave-one-out). nil for a linear model.
    package func computedReach() -> Double? {
        guard let rows = kernel?.rows, rows.count >= 2 else { return nil }
        var nearest = [Double](repeating: .infinity, count: rows.count)
        for i in rows.indices {
            for j in rows.indices where j > i {
                let d = Self.distance(rows[i], rows[j])
                nearest[i] = min(nearest[i], d)
                nearest[j] = min(nearest[j], d)
            }
        }
        nearest.sort()
        return nearest[Int((Self.reachQuantile * Double(rows.count)).rounded(.up)) - 1]
    }
}

/// A model file that cannot be used, and why.
public struct EstimateModelError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A level's predicted sigma50 with its 95% predictive interval, clamped to the rater's range
/// (`SkillModel.lowest...highest`), the tier of the prediction, and whether the level lies
/// outside what the model was fitted on (then the estimate is a guess: the interval is widened
/// and the tools say "rate it").
public struct Sigma50Estimate: Sendable, Equatable {
    public var sigma50: Double
    public var low: Double
    public var high: Double
    public var tier: Tier
    /// The distance from the level's standardised features to the nearest fitted level
    /// (`EstimateModel.distance`); nil for a linear model.
    public var distance: Double?
    /// The root mean square of the cross-validated errors of the nearest fitted levels
    /// (`EstimateModel.Interval`); nil for a model without an interval.
    public var spread: Double?
    /// Whether `distance` is past the model's `reach` or `spread` past the model's guessing
    /// spread. The interval's half-width (in ln sigma50) is the model's scale times `spread` (1.96
    /// residual SDs without an interval), past the reach that times distance / reach, and out of
    /// distribution that times the model's guessing widening (docs/estimate.md).
    public var outOfDistribution: Bool

    /// What the tools say of an estimate that is out of distribution.
    public static let guessing = "outside what the estimate was fitted on: rate it"

    /// Predicts `level`'s sigma50 with `model` (`LevelFeatures` of the level, then the model).
    public init(_ prepared: PreparedLevel, model: EstimateModel, tierEdges: TierEdges = TierEdges()) {
        self.init(features: LevelFeatures(prepared), model: model, tierEdges: tierEdges)
    }

    public init(features: LevelFeatures, model: EstimateModel, tierEdges: TierEdges = TierEdges()) {
        let z = features.values.indices.map { (features.values[$0] - model.mean[$0]) / model.scale[$0] }
        let (y, nearest, local) = model.predict(standardised: z)
        distance = nearest
        spread = local
        var widen = 1.0
        if let nearest, let reach = model.reach, nearest > reach { widen = nearest / reach }
        var half = 1.959964 * model.residualSD
        var guessing = false
        if let local, let interval = model.interval {
            half = interval.scale * local
            guessing = local > interval.guessingSpread
        }
        outOfDistribution = widen > 1 || guessing
        half *= widen
        if outOfDistribution, let interval = model.interval { half *= interval.guessingWidening }
        func clamped(_ x: Double) -> Double { min(max(exp(x), SkillModel.lowest), SkillModel.highest) }
        sigma50 = clamped(y)
        low = clamped(y - half)
        high = clamped(y + half)
        tier = tierEdges.tier(sigma50: sigma50)
    }
}

extension EstimateModel {
    /// The model built into the binary (Sources/PeggleEstimate/Model/sigma50-estimate.json, written
    /// by scripts/fit-estimate). A test checks it decodes, so this cannot fail in a built binary.
    public static let builtIn: EstimateModel = {
        do { return try decode(Data(PackageResources.sigma50_estimate_json)) } catch {
            fatalError("the built-in estimate model: \(error)")
        }
    }()

    /// The built-in model's file as written (Model/sigma50-estimate.json), for the tests that read
    /// its names and signs without decoding it.
    package static var builtInFile: Data { Data(PackageResources.sigma50_estimate_json) }
}
