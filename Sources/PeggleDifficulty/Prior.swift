import Foundation

/// Which prior a level's measurement starts from (docs/measurement.md, "Priors").
public enum PriorKind: String, Sendable, CaseIterable {
    /// x50 uniform in ln sigma, slope uniform, ceiling and floor by `SkillModel`'s weights: the
    /// prior every rating used before the population prior existed.
    case flat
    /// The shape (slope, ceiling, floor) by the population prior fitted on a rated corpus
    /// (`scripts/fit-prior`); x50 uniform.
    case population
    /// The population prior, and x50 normal about the level's instant estimate with the
    /// estimate's predictive spread (the caller supplies it: `X50Prior`).
    case populationEstimate = "population+estimate"
}

/// The prior a report fits one level's skill games with (docs/measurement.md, "The prior a report
/// fits with"): the prior the rating runs that stored them measured with, so the report gives the
/// sigma50 `peggle rate` printed.
public struct FitPrior: Sendable, Equatable {
    public var kind: PriorKind
    /// The level's x50 prior: given exactly when `kind` is `.populationEstimate`.
    public var x50: X50Prior?
    /// Why the games were not fitted with the prior they were measured with, if they were not.
    public var warning: String?

    public init(_ kind: PriorKind, x50: X50Prior? = nil, warning: String? = nil) {
        precondition((kind == .populationEstimate) == (x50 != nil), "an x50 prior goes with population+estimate only")
        self.kind = kind
        self.x50 = x50
        self.warning = warning
    }

    public static let flat = FitPrior(.flat)

    /// The prior itself.
    public var prior: SkillPrior { SkillPrior(kind, x50: x50) }
}

/// A normal prior on x50 = ln sigma50: the instant estimate's prediction and its spread.
public struct X50Prior: Sendable, Equatable {
    public var mean: Double
    public var sd: Double

    public init(mean: Double, sd: Double) {
        precondition(mean.isFinite && sd.isFinite && sd > 0)
        self.mean = mean
        self.sd = sd
    }
}

/// The prior over the skill model's grid: a weight per shape, times a weight per x50 point.
public struct SkillPrior: Sendable, Equatable {
    /// ln prior weight per shape, in `SkillPosterior.logWeights`' order within an x50 point.
    let shapeLogWeights: [Double]
    /// The normal prior on x50; nil: uniform over the grid.
    public let x50: X50Prior?

    /// Today's flat prior, the same bits as before priors were a choice.
    public static let flat = SkillPrior(shapeLogWeights: SkillModel.slopes.flatMap { _ in
        SkillModel.ceilings.flatMap { c in SkillModel.floors.map { f in log(c.prior) + log(f.prior) } }
    }, x50: nil)

    /// The population prior (`populationShapeWeights`, written by scripts/fit-prior); x50 uniform.
    public static let population = SkillPrior(shapeLogWeights: populationShapeWeights.map { log($0) }, x50: nil)

    /// The prior of `kind`; `x50` is required by `.populationEstimate` and refused by the others.
    public init(_ kind: PriorKind, x50: X50Prior? = nil) {
        precondition((kind == .populationEstimate) == (x50 != nil), "an x50 prior goes with population+estimate only")
        switch kind {
        case .flat: self = .flat
        case .population: self = .population
        case .populationEstimate: self.init(shapeLogWeights: Self.population.shapeLogWeights, x50: x50)
        }
    }

    init(shapeLogWeights: [Double], x50: X50Prior?) {
        precondition(shapeLogWeights.count == SkillModel.shapeCount)
        self.shapeLogWeights = shapeLogWeights
        self.x50 = x50
    }

    /// ln prior weight of x50 grid point `g` (unnormalised).
    func x50LogWeight(_ g: Int) -> Double {
        guard let p = x50 else { return 0 }
        let z = (SkillModel.x(g) - p.mean) / p.sd
        return -0.5 * z * z
    }
}

extension SkillPrior {
    /// The shape at cumulative probability `u` (0..<1) of the population prior, in
    /// `populationShapeWeights`' order: draws a level's curve from the fitted population
    /// (`peggle-bench calibration --population`).
    public static func populationShape(at u: Double) -> (slope: Double, ceiling: Double, floor: Double) {
        SkillModel.shape(populationShapeIndex(at: u))
    }

    /// The index (`SkillModel.shape(_:)`) of the shape at cumulative probability `u` of the population prior.
    public static func populationShapeIndex(at u: Double) -> Int {
        var k = 0, total = populationShapeWeights[0]
        while total <= u, k + 1 < populationShapeWeights.count {
            k += 1
            total += populationShapeWeights[k]
        }
        return k
    }

    /// A prior that knows the level's shape: all its weight on shape `shape` (`SkillModel.shape(_:)`),
    /// x50 as `x50` says (uniform when nil). No rating uses it: simulations ask with it what a
    /// rater that knew each level's slope, ceiling and floor could do (`peggle-bench calibration
    /// --knowledge`, docs/measurement.md "What limits the games a level needs").
    public static func knownShape(_ shape: Int, x50: X50Prior? = nil) -> SkillPrior {
        precondition((0..<SkillModel.shapeCount).contains(shape))
        return SkillPrior(shapeLogWeights: (0..<SkillModel.shapeCount).map { $0 == shape ? 0 : -.infinity }, x50: x50)
    }
}
