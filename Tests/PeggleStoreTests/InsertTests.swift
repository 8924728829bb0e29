import Foundation
import GRDB
import PeggleGame
import PeggleStore
import Testing

@Suite struct InsertTests {
    /// A store with one run, level and agent, and their ids.
    func fresh() throws -> (PeggleStore, run: Int64, level: Int64, agent: Int64) {
        let store = try PeggleStore()
        let run = try store.beginRun(command: "test", configuration: "{}", engineVersion: "0", startedAt: Fixture.startedAt)
        return (store, run, try store.level(Fixture.level(0)), try store.agent(Fixture.agent(0)))
    }

    @Test func aBatchIsStoredWithItsShots() throws {
        let (store, run, level, agent) = try fresh()
        let batch = (1...4).map { Fixture.episode(run: run, level: level, agent: agent, seed: $0, sigma: 0.01, shotCount: Int($0)) }
        #expect(try store.insert(batch) == 4)
        #expect(try store.counts() == StoreCounts(levels: 1, agents: 1, runs: 1, episodes: 4, shots: 1 + 2 + 3 + 4))
        let stored = try store.games(levelID: level, agentID: agent, withShots: true)
        #expect(stored.map(Fixture.outcome) == batch.map(\.game))
        #expect(stored.allSatisfy { $0.levelHash == Fixture.level(0).contentHash && $0.agentLabel == Fixture.agent(0).label })
        // Without shots, the same games with empty shot logs.
        #expect(try store.games(levelID: level, agentID: agent).map(Fixture.outcome) == batch.map(\.game.withoutShots))
    }

    @Test func insertingTheSameBatchAgainAddsNothing() throws {
        let (store, run, level, agent) = try fresh()
        let batch = (1...5).map { Fixture.episode(run: run, level: level, agent: agent, seed: $0, sigma: 0) }
        #expect(try store.insert(batch) == 5)
        let before = try store.counts()
        let summaries = try store.games()
        #expect(try store.insert(batch) == 0)
        #expect(try store.counts() == before)
        #expect(try store.games() == summaries)
    }

    @Test func aMixedBatchInsertsOnlyTheNewEpisodes() throws {
        let (store, run, level, agent) = try fresh()
        _ = try store.insert([1, 2, 3].map { Fixture.episode(run: run, level: level, agent: agent, seed: $0, sigma: 0) })
        // Seeds 2 and 3 are stored; 4 and 5 are new; 5 appears twice; seed 2 at another sigma is new.
        var mixed = [2, 4, 3, 5, 5].map { Fixture.episode(run: run, level: level, agent: agent, seed: $0, sigma: 0) }
        mixed.append(Fixture.episode(run: run, level: level, agent: agent, seed: 2, sigma: 0.05))
        // A stored episode offered with different numbers is still skipped, not overwritten.
        mixed[0].game.score = -1
        #expect(try store.insert(mixed) == 3)
        let keys = try store.storedKeys(levelID: level, agentID: agent)
        #expect(keys == Set([1, 2, 3, 4, 5].map { EpisodeKey(seed: $0, sigma: 0) } + [EpisodeKey(seed: 2, sigma: 0.05)]))
        #expect(try store.counts().episodes == 6)
        #expect(try store.counts().shots == 6 * 3)
        #expect(try store.games().allSatisfy { $0.score >= 0 })
    }

    @Test func storedKeysAreExactlyThoseOfTheLevelAndAgent() throws {
        let (store, run, level, agent) = try fresh()
        let otherLevel = try store.level(Fixture.level(1))
        let otherAgent = try store.agent(Fixture.agent(1))
        #expect(try store.storedKeys(levelID: level, agentID: agent).isEmpty)
        _ = try store.insert([
            Fixture.episode(run: run, level: level, agent: agent, seed: 7, sigma: 0),
            Fixture.episode(run: run, level: level, agent: agent, seed: 7, sigma: 0.1),
            Fixture.episode(run: run, level: level, agent: otherAgent, seed: 8, sigma: 0),
            Fixture.episode(run: run, level: otherLevel, agent: agent, seed: 9, sigma: 0),
        ])
        #expect(try store.storedKeys(levelID: level, agentID: agent)
            == [EpisodeKey(seed: 7, sigma: 0), EpisodeKey(seed: 7, sigma: 0.1)])
        #expect(try store.storedKeys(levelID: level, agentID: otherAgent) == [EpisodeKey(seed: 8, sigma: 0)])
        #expect(try store.storedKeys(levelID: otherLevel, agentID: agent) == [EpisodeKey(seed: 9, sigma: 0)])
        #expect(try store.storedKeys(levelID: otherLevel, agentID: otherAgent).isEmpty)
    }

    @Test func seedsAboveInt64MaxRoundTrip() throws {
        let (store, run, level, agent) = try fresh()
        let seeds: [UInt64] = [UInt64.max, UInt64(Int64.max) + 1, UInt64(Int64.max), 0, 0xdead_beef_cafe_f00d]
        _ = try store.insert(seeds.map { Fixture.episode(run: run, level: level, agent: agent, seed: $0, sigma: 0) })
        #expect(try store.storedKeys(levelID: level, agentID: agent) == Set(seeds.map { EpisodeKey(seed: $0, sigma: 0) }))
        #expect(Set(try store.games(levelID: level, agentID: agent).map(\.seed)) == Set(seeds))
        // Games are read with seeds ordered as unsigned numbers.
        #expect(try store.games().map(\.seed) == seeds.sorted())
        // And a rerun recognises them.
        #expect(try store.insert(seeds.map { Fixture.episode(run: run, level: level, agent: agent, seed: $0, sigma: 0) }) == 0)
    }

    @Test func gamesJoinLevelAndAgentInReportOrder() throws {
        let store = try PeggleStore()
        let run = try store.beginRun(command: "test", configuration: "{}", engineVersion: "0", startedAt: Fixture.startedAt)
        let zeta = try store.level(Fixture.level(0, name: "Zeta"))
        let alpha = try store.level(Fixture.level(1, name: "Alpha"))
        let agent = try store.agent(Fixture.agent(0))
        _ = try store.insert([
            Fixture.episode(run: run, level: zeta, agent: agent, seed: 1, sigma: 0),
            Fixture.episode(run: run, level: alpha, agent: agent, seed: 2, sigma: 0.1),
            Fixture.episode(run: run, level: alpha, agent: agent, seed: 3, sigma: 0),
            Fixture.episode(run: run, level: alpha, agent: agent, seed: 1, sigma: 0.1),
        ])
        let rows = try store.games()
        #expect(rows.map(\.levelName) == ["Alpha", "Alpha", "Alpha", "Zeta"])
        #expect(rows.map(\.sigma) == [0, 0.1, 0.1, 0])
        #expect(rows.map(\.seed) == [3, 1, 2, 1])
        let first = Fixture.episode(run: run, level: alpha, agent: agent, seed: 3, sigma: 0).game
        #expect(rows[0].levelHash == Fixture.level(1).contentHash)
        #expect(rows[0].agentKind == .greedy)
        #expect(rows[0].agentLabel == Fixture.agent(0).label)
        #expect(Fixture.outcome(rows[0]) == first.withoutShots)
    }

    // MARK: - Atomicity

    @Test func aBatchWithADuplicateShotIndexStoresNothing() throws {
        let (store, run, level, agent) = try fresh()
        _ = try store.insert([Fixture.episode(run: run, level: level, agent: agent, seed: 1, sigma: 0)])
        let before = try store.counts()
        let summaries = try store.games()
        var bad = Fixture.episode(run: run, level: level, agent: agent, seed: 3, sigma: 0)
        bad.game.shotLog[2].index = 0
        let batch = [Fixture.episode(run: run, level: level, agent: agent, seed: 2, sigma: 0), bad,
                     Fixture.episode(run: run, level: level, agent: agent, seed: 4, sigma: 0)]
        #expect { try store.insert(batch) } throws: { error in
            guard case let .sqlite(path, message) = error as? StoreError else { return false }
            return path == ":memory:" && message.contains("UNIQUE")
        }
        #expect(try store.counts() == before)
        #expect(try store.games() == summaries)
        #expect(try store.storedKeys(levelID: level, agentID: agent) == [EpisodeKey(seed: 1, sigma: 0)])
    }

    @Test func aBatchNamingAMissingLevelStoresNothing() throws {
        let (store, run, level, agent) = try fresh()
        _ = try store.insert([Fixture.episode(run: run, level: level, agent: agent, seed: 1, sigma: 0)])
        let before = try store.counts()
        let batch = [Fixture.episode(run: run, level: level, agent: agent, seed: 2, sigma: 0),
                     Fixture.episode(run: run, level: level + 99, agent: agent, seed: 3, sigma: 0)]
        #expect { try store.insert(batch) } throws: { error in
            guard case let .sqlite(_, message) = error as? StoreError else { return false }
            return message.contains("FOREIGN KEY")
        }
        #expect(try store.counts() == before)
        #expect(try store.storedKeys(levelID: level, agentID: agent) == [EpisodeKey(seed: 1, sigma: 0)])
        // The store still works after the failed batch.
        #expect(try store.insert(batch.dropLast()) == 1)
    }
}
