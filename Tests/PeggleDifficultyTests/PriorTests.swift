import Foundation
import PeggleDifficulty
import Testing

@Suite struct PriorTests {
    typealias M = SkillModel

    @Test func theFlatPriorIsTheDefaultPosteriorsBits() {
        #expect(SkillPosterior(prior: .flat) == SkillPosterior())
        #expect(SkillPrior(.flat) == .flat && SkillPrior(.population) == .population)
    }

    @Test func thePopulationPriorIsADistributionOverEveryShape() {
        let w = SkillPrior.populationShapeWeights
        #expect(w.count == M.shapeCount)
        #expect(abs(w.reduce(0, +) - 1) < 1e-5)
        // Every shape keeps some weight (the flat prior mixed in), so no curve is ruled out.
        #expect(w.allSatisfy { $0 > 0 })
        // x50 stays uniform: no games, the population prior's x50 marginal is the flat prior's.
        let a = SkillPosterior(prior: .population).summary(), b = SkillPosterior().summary()
        #expect(abs(a.estimate - b.estimate) < 1e-9 && abs(a.low - b.low) < 1e-9 && abs(a.high - b.high) < 1e-9)
    }

    @Test func drawingFromThePopulationWalksItsCumulativeWeights() {
        let w = SkillPrior.populationShapeWeights
        let first = SkillPrior.populationShape(at: 0)
        #expect(first.slope == M.slopes[0] && first.ceiling == 0.6 && first.floor == 0)
        // Just past the first shape's weight: the second shape (floor 0.02).
        let second = SkillPrior.populationShape(at: w[0] + 1e-12)
        #expect(second.slope == M.slopes[0] && second.ceiling == 0.6 && second.floor == 0.02)
        let last = SkillPrior.populationShape(at: w.dropLast().reduce(0, +) + w.last! / 2)
        #expect(abs(last.slope - 14) < 1e-12 && last.ceiling == 0.99 && last.floor == 0.3)
    }

    /// No games, x50 normal about ln 0.02 with sd 0.3: the median is 0.02 and the 95% interval
    /// 0.02 exp(-+1.96 x 0.3) = 0.01111 to 0.03601, to within the grid's binning (a step is 0.048 in ln sigma).
    @Test func anX50PriorAloneGivesItsNormalInterval() {
        let p = SkillPosterior(prior: SkillPrior(.populationEstimate, x50: X50Prior(mean: log(0.02), sd: 0.3)))
        let fit = p.summary()
        #expect(abs(log(fit.estimate) - log(0.02)) < 0.005)
        #expect(abs(log(fit.low) - (log(0.02) - 1.959964 * 0.3)) < 0.005)
        #expect(abs(log(fit.high) - (log(0.02) + 1.959964 * 0.3)) < 0.005)
        // Tiers: P(< 0.01) = Phi(-ln 2 / 0.3) = 0.01043; P(< 0.03) = Phi(ln 1.5 / 0.3) = 0.91170;
        // P(< 0.08) = Phi(ln 4 / 0.3) = 1 - 1.9e-6.
        let t = p.tierMass(TierEdges())
        #expect(abs(t[0] - 0.01043) < 0.002 && abs(t[1] - (0.91170 - 0.01043)) < 0.002)
        #expect(abs(t[2] - (1 - 0.91170)) < 0.002 && t[3] < 1e-4)
    }

    /// The most one game tells about x50: for a logistic (ceiling 1, floor 0) it is slope^2 / 4,
    /// at P = 1/2; a ceiling of 0.99 and floor 0 keeps it within 3% of that, and a floor or a lower
    /// ceiling only lowers it.
    @Test func theBestInformationOfAShapeIsNearSlopeSquaredOverFour() {
        for (k, info) in M.bestInformation.enumerated() {
            let b = exp(M.shapeLogSlope[k])
            #expect(info <= b * b / 4 * 1.0001)
            if M.shapeCeiling[k] == 0.99 && M.shapeFloor[k] == 0 { #expect(info >= b * b / 4 * 0.97) }
        }
        // With no games the posterior's shapes are the prior's: the flat prior's 95% quantile is
        // one of the steepest slope's shapes (14^2 / 4 = 49, less for its ceilings and floors).
        #expect(abs(SkillPosterior().bestInformation(quantile: 0.95) - 38.8636) < 1e-4)
    }
}
