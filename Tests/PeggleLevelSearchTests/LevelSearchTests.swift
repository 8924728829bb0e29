import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleEstimate
import PeggleGenerator
import PeggleLevelSearch
import PeggleStore
import Testing

/// The search for levels at a difficulty: screened by the estimate, confirmed by a rating. The
/// confirming agent here is the random one (fast; its sigma50 is a bound on most levels), since
/// what is tested is the search, not the greedy agent.
@Suite("Levels at a requested difficulty")
struct LevelSearchTests {
    static let adaptive = AdaptiveSettings(batchSize: 8, budget: 16)

    /// Level estimates cost about a second each in a debug build: the tests ask for few levels.
    static func settings(count: Int = 1, confirm: Bool = true, maxCandidates: Int? = nil) -> LevelSearch.Settings {
        LevelSearch.Settings(target: .tier(.veryHard), firstSeed: 100, count: count, maxCandidates: maxCandidates, confirm: confirm,
                             adaptive: adaptive)
    }

    static func search(_ settings: LevelSearch.Settings = settings(), threads: Int, store: PeggleStore?) throws -> LevelSearch.Result {
        try LevelSearch(settings: settings, skillAgent: RandomAgent(), threads: threads).run(store: store, command: "test")
    }

    @Test func keptLevelsPassedTheEstimateAndTheRatingAndAreTheFirstInSeedOrder() throws {
        let result = try Self.search(Self.settings(count: 2), threads: 2, store: try PeggleStore())
        #expect(result.isComplete(count: 2))
        let screen = EstimateScreen(target: .tier(.veryHard))
        for c in result.kept {
            #expect(c.level == LevelGenerator.generate(seed: c.seed, distribution: .hard))
            #expect(screen.passes(c.estimate))
            let fit = try #require(c.rated)
            #expect(DifficultyTarget.tier(.veryHard).contains(fit.estimate))
        }
        #expect(result.kept.map(\.seed) == result.kept.map(\.seed).sorted())
        // Every candidate the estimate passed up to the last kept was rated (a round's passed
        // candidates past it may not be); those kept are the first rated in the tier.
        let last = try #require(result.kept.last).seed
        #expect(result.passed.filter { $0.seed <= last }.allSatisfy { $0.rated != nil })
        #expect(result.passed.filter { $0.rated.map { DifficultyTarget.tier(.veryHard).contains($0.estimate) } ?? false }
            .prefix(2).map(\.seed) == result.kept.map(\.seed))
        #expect(result.kept.map(\.seed) == [102, 106])
        let cost = result.cost(firstSeed: 100, complete: true)
        #expect(cost.candidates == 7)
        #expect(cost.screened == result.passed.filter { $0.seed <= 106 }.count)
    }

    @Test func theThreadCountAndARerunChangeNothingAndTheRerunPlaysNoGame() throws {
        let store = try PeggleStore()
        let one = try Self.search(threads: 1, store: store)
        let two = try Self.search(threads: 2, store: try PeggleStore())
        #expect(one.kept.map(\.seed) == two.kept.map(\.seed))
        #expect(one.kept.map(\.rated) == two.kept.map(\.rated))
        #expect(one.gamesAdded > 0 && one.gamesStored == 0)
        let again = try Self.search(threads: 2, store: store)
        #expect(again.kept.map(\.seed) == one.kept.map(\.seed))
        #expect(again.gamesAdded == 0 && again.gamesStored == one.gamesAdded)
    }

    @Test func withoutConfirmingTheEstimateAloneDecides() throws {
        let result = try Self.search(Self.settings(confirm: false), threads: 2, store: nil)
        #expect(result.passed.allSatisfy { $0.rated == nil } && result.gamesAdded == 0)
        let screen = EstimateScreen(target: .tier(.veryHard))
        var expected: [UInt64] = []
        var seed: UInt64 = 100
        while expected.count < 1 {
            if screen.passes(screen.estimate(LevelGenerator.generate(seed: seed, distribution: .hard))!) { expected.append(seed) }
            seed += 1
        }
        #expect(result.kept.map(\.seed) == expected)
        #expect(result.kept.allSatisfy { $0.rated == nil })
    }

    @Test func theSearchStopsAtItsCandidateLimit() throws {
        let result = try Self.search(Self.settings(count: 2, confirm: false, maxCandidates: 1), threads: 1, store: nil)
        #expect(result.generated == 1)
        #expect(!result.isComplete(count: 2))
    }
}
