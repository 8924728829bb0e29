import Foundation
import PeggleDifficulty
import PeggleEstimate
import PeggleGame
import PeggleGenerator
import PeggleLevel
import PeggleUtilities
import Testing

@Suite("Difficulty targets and the estimate's screen")
struct DifficultyTargetTests {
    @Test func aTierHoldsItsOwnRangeWithTheUpperEdgeInTheNextTier() {
        let hard = DifficultyTarget.tier(.hard)
        #expect(hard.contains(0.01) && hard.contains(0.0299))
        #expect(!hard.contains(0.03) && !hard.contains(0.0099))
        #expect(hard.range() == (0.01, 0.03))
        #expect(DifficultyTarget.tier(.veryHard).range() == (0.001, 0.01))
        #expect(DifficultyTarget.tier(.easy).range() == (0.08, 1.0))
        let range = DifficultyTarget.sigma50(low: 0.02, high: 0.05)
        #expect(range.contains(0.02) && !range.contains(0.05))
        #expect(hard.description == "tier hard")
        #expect(DifficultyTarget.tier(.veryHard).description == "tier very hard")
        #expect(range.description == "sigma50 0.02-0.05 rad")
    }

    @Test func candidatesComeFromTheEasyDistributionOnlyAboveTheMediumEdge() {
        #expect(DifficultyTarget.tier(.easy).defaultDistribution() == .easy)
        #expect(DifficultyTarget.tier(.medium).defaultDistribution() == .hard)
        #expect(DifficultyTarget.tier(.veryHard).defaultDistribution() == .hard)
        #expect(DifficultyTarget.sigma50(low: 0.08, high: 0.5).defaultDistribution() == .easy)
        #expect(DifficultyTarget.sigma50(low: 0.05, high: 0.5).defaultDistribution() == .hard)
    }

    @Test func distanceIsInLnSigma50AndZeroInside() {
        let hard = DifficultyTarget.tier(.hard)
        #expect(hard.logDistance(0.02) == 0)
        #expect(abs(hard.logDistance(0.09) - log(3)) < 1e-12)
        #expect(abs(hard.logDistance(0.005) - log(2)) < 1e-12)
    }

    /// The screened level of a level seed is the first candidate of its stream the estimate puts
    /// in the tier: every candidate before it is estimated outside.
    @Test func aScreenedSeedIsTheFirstCandidateInTheTier() throws {
        let screen = EstimateScreen(target: .tier(.veryHard))
        func level(_ seed: UInt64) -> Level { LevelGenerator.generate(seed: seed, distribution: .hard) }
        let found = screen.screenedSeed(levelSeed: 3, level: level)
        #expect(found.tried >= 1 && found.tried <= EstimateScreen.candidateLimit)
        var stream = EstimateScreen.candidateSeeds(levelSeed: 3)
        for _ in 1..<found.tried {
            let e = try #require(screen.estimate(level(stream.next())))
            #expect(e.tier != .veryHard)
        }
        #expect(stream.next() == found.seed)
        #expect(found.estimate?.tier == .veryHard)
        #expect(found.estimate == screen.estimate(level(found.seed)))
        // A pure function of the level seed.
        #expect(screen.screenedSeed(levelSeed: 3, level: level).seed == found.seed)
    }

    /// No candidate in range: the nearest of the `limit` tried stands in.
    @Test func withNoCandidateInRangeTheNearestStandsIn() throws {
        let screen = EstimateScreen(target: .sigma50(low: 0.001, high: 0.0011))
        func level(_ seed: UInt64) -> Level { LevelGenerator.generate(seed: seed, distribution: .easy) }
        let found = screen.screenedSeed(levelSeed: 9, limit: 3, level: level)
        var stream = EstimateScreen.candidateSeeds(levelSeed: 9)
        let candidates = (0..<3).map { _ in stream.next() }
        let estimates = try candidates.map { try #require(screen.estimate(level($0))) }
        #expect(estimates.allSatisfy { !screen.passes($0) })
        let nearest = estimates.indices.min { screen.target.logDistance(estimates[$0].sigma50) < screen.target.logDistance(estimates[$1].sigma50) }!
        #expect(found.tried == 3)
        #expect(found.seed == candidates[nearest])
    }
}
