import Foundation
import PeggleDifficulty
import PeggleTestSupport
import Testing

@Suite struct PsychometricTests {
    typealias M = SkillModel

    @Test func everyCellWinsHalfAtItsSigma50AndTendsToCeilingAndFloor() {
        for slope in M.slopes {
            for (ci, c) in M.ceilings.enumerated() {
                for (fi, f) in M.floors.enumerated() {
                    let offset = M.offsets[ci * M.floors.count + fi]
                    let at = M.probability(x: log(0.02), x50: log(0.02), slope: slope, ceiling: c.value, floor: f.value,
                                           offset: offset)
                    #expect(abs(at - 0.5) < 1e-12)
                    // Sigma 0 is the ceiling exactly; far above sigma50, the floor (kept off 0 by the clamp).
                    let zero = M.probability(x: -.infinity, x50: log(0.02), slope: slope, ceiling: c.value, floor: f.value,
                                             offset: offset)
                    #expect(abs(zero - c.value) < 1e-15)
                    let far = M.probability(x: log(0.02) + 60 / slope, x50: log(0.02), slope: slope, ceiling: c.value,
                                            floor: f.value, offset: offset)
                    #expect(abs(far - max(f.value, 1e-9)) < 1e-9)
                }
            }
        }
    }

    @Test func theGridAndTheTrialLatticeSitOnRoundSigmas() {
        #expect(M.x50Count == 209)
        #expect(abs(M.x(M.margin) - log(0.001)) < 1e-12)
        #expect(abs(M.x(M.margin + M.inRange) - log(1.0)) < 1e-12)
        #expect(M.trialSigmas.count == 73)
        #expect(M.trialSigmas.first == 0.001 && M.trialSigmas.last == 1.0)
        #expect(M.trialSigmas[24] == 0.01 && M.trialSigmas[48] == 0.1)
        #expect(M.trialSigmas[1] == 0.00110069)  // 10^(1/24) = 1.1007 a step, rounded to 8 decimals
        #expect(M.trialSigmas[12] == 0.00316228)
        #expect(M.slopes.first == 0.7 && abs(M.slopes.last! - 14) < 1e-12)
    }

    /// Adds games the slow way (exp and log per cell), as for a sigma off the lattice.
    func slowAdd(_ p: inout SkillPosterior, sigma: Double, wins: Int, losses: Int) {
        let x = log(sigma)
        var k = 0
        var lw = p.logWeights
        for g in 0..<M.x50Count {
            for slope in M.slopes {
                for (ci, c) in M.ceilings.enumerated() {
                    for (fi, f) in M.floors.enumerated() {
                        let q = M.probability(x: x, x50: M.x(g), slope: slope, ceiling: c.value, floor: f.value,
                                              offset: M.offsets[ci * M.floors.count + fi])
                        lw[k] += Double(wins) * log(q) + Double(losses) * log(1 - q)
                        k += 1
                    }
                }
            }
        }
        p.add(sigma: sigma, wins: wins, losses: losses)
        for (a, b) in zip(p.logWeights, lw) { #expect(abs(a - b) <= 1e-9 * max(1, abs(b))) }
    }

    @Test func theTablesGiveWhatTheFormulaGives() {
        var p = SkillPosterior()
        for (sigma, w, l) in [(0.001, 3, 1), (0.0316228, 0, 2), (1.0, 1, 0), (0.01, 2, 2)] {
            #expect(M.trialPoint[sigma] != nil || sigma == 0.0316228)
            slowAdd(&p, sigma: sigma, wins: w, losses: l)
        }
        #expect(p.games == 11 && p.wins == 6)
    }

    @Test func thePriorIsUniformInLogSigma() {
        let fit = SkillPosterior().summary()
        // The median of 209 equal bins is the middle point, 10^-1.5.
        #expect(abs(fit.estimate - pow(10, -1.5)) < 1e-12)
        // Below 0.001: 32 whole bins and half of the bin centred on it.
        #expect(abs(fit.probabilityBelow - 32.5 / 209) < 1e-12)
        #expect(abs(fit.probabilityAbove - 32.5 / 209) < 1e-12)
        #expect(fit.games == 0 && fit.sigma50 == .unknown)
        // Mean ceiling and floor of the prior: sum of value x weight.
        #expect(abs(fit.ceiling - (0.6 * 0.1 + 0.75 * 0.15 + 0.88 * 0.2 + 0.95 * 0.25 + 0.99 * 0.3)) < 1e-12)
        #expect(abs(fit.floor - (0.02 * 0.25 + 0.06 * 0.2 + 0.15 * 0.15 + 0.3 * 0.1)) < 1e-12)
    }

    @Test func aBatchOnThePriorSpreadsOverTheRange() {
        // Quantiles q = (j + 1/2) / 8 of the uniform prior, in grid steps from 0.001: 209 q - 32.5;
        // spread twice as far from the median (72): 72 + 2 (209 q - 104.5), i.e. -110.9, -58.6,
        // -6.4, 45.9, 98.1, 150.4, ...; halved and rounded to trial indices, clamped to 0...72.
        let expected = [0, 0, 0, 23, 49, 72, 72, 72].map { M.trialSigmas[$0] }
        #expect(SkillPosterior().placement(count: 8) == expected)
    }

    @Test func anEntropyBatchOnThePriorStartsNearTheMiddleAndSpreadsItsGames() {
        // QUEST+ on the flat prior: the first game near the prior's middle in ln sigma (0.032),
        // and each later one, given the earlier ones' expected outcomes, on the other side of it
        // and further out: the batch brackets the middle of the prior without repeating a sigma.
        let expected = [38, 44, 33, 49, 31, 51, 35, 48].map { M.trialSigmas[$0] }
        #expect(SkillPosterior().placement(count: 8, rule: .entropy) == expected)
        #expect(SkillPosterior().placement(count: 8, rule: .quantile) == SkillPosterior().placement(count: 8))
    }

    @Test func gamesOnlyMoveThePosteriorTheWayTheyShould() {
        // Losses at the smallest sigma: sigma50 below the range, with its probability.
        let hopeless = SkillPosterior((0..<60).map { _ in (0.001, false) }).summary()
        guard case let .below(b, p) = hopeless.sigma50 else { Issue.record("\(hopeless.sigma50)"); return }
        #expect(b == 0.001 && p >= 0.975)
        #expect(hopeless.isDone(precision: 1.25))
        // Wins at the largest: above it.
        let easy = SkillPosterior((0..<60).map { _ in (1.0, true) }).summary()
        guard case let .above(a, q) = easy.sigma50 else { Issue.record("\(easy.sigma50)"); return }
        #expect(a == 1.0 && q >= 0.975)
        // Wins below 0.01 and losses above it: a value near 0.01 with an interval around it.
        var games: [(sigma: Double, won: Bool)] = []
        for i in 0..<73 { for _ in 0..<4 { games.append((M.trialSigmas[i], i < 24)) } }
        let sharp = SkillPosterior(games).summary()
        guard case let .value(v, low, high) = sharp.sigma50 else { Issue.record("\(sharp.sigma50)"); return }
        // The switch lies between the trial sigmas 0.009085 and 0.01: geometric middle 0.00953.
        #expect(low < v && v < high && low > 0.0085 && high < 0.0105)
        #expect(abs(log(v / 0.00953)) < 0.05)
        #expect(sharp.slope > 5)
    }

    @Test func theOrderOfGamesDoesNotChangeTheReportsFit() {
        let stats = [(0.01, 5, 8), (0.001, 8, 8), (0.1, 1, 8), (0, 3, 3)].map { sigma, wins, n in
            AgentLevelStats(outcomes(level: "L", sigma: sigma, wins: wins, of: n))
        }
        let a = SkillCurve(agentLabel: "greedy", stats: stats)
        let b = SkillCurve(agentLabel: "greedy", stats: stats.reversed())
        #expect(a == b)
        #expect(a.points.map(\.sigma) == [0, 0.001, 0.01, 0.1])
    }

    @Test func theBandHoldsTheFittedCurve() {
        var games: [(sigma: Double, won: Bool)] = []
        for i in stride(from: 0, to: 73, by: 3) { for k in 0..<6 { games.append((M.trialSigmas[i], k < 6 - i / 12)) } }
        let p = SkillPosterior(games)
        let band = p.band(sigmas: [0, 0.001, 0.01, 0.1, 1])
        for b in band { #expect(0 <= b.low && b.low <= b.middle && b.middle <= b.high && b.high <= 1) }
        // More noise cannot help: the fitted curve falls.
        for (a, b) in zip(band, band.dropFirst()) { #expect(b.middle <= a.middle + 1e-9) }
    }

    @Test func precisionAndTheStopRule() {
        let f = SkillFit(games: 100, wins: 50, estimate: 0.02, low: 0.016, high: 0.025, level: 0.95, probabilityBelow: 0,
                         probabilityAbove: 0, slope: 3, ceiling: 0.95, floor: 0.02)
        #expect(abs(f.precision - 1.25) < 1e-12)
        #expect(f.isDone(precision: 1.25))
        #expect(!f.isDone(precision: 1.2))
        var wide = f
        wide.high = 0.03
        #expect(!wide.isDone(precision: 1.25))
        // An interval across the range's end is a bound, not a value.
        var edge = f
        edge.low = 0.0009
        edge.estimate = 0.001
        #expect(edge.sigma50 == .below(0.025, probability: 0.975))
    }
}
