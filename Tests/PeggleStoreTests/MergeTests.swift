import Foundation
import GRDB
import PeggleGame
import PeggleStore
import Testing

@Suite struct MergeTests {
    /// A file store holding `plan`'s games of `levels` x `agents` x `sigmas` x `seeds`.
    func shard(_ dir: TempDir, _ name: String, seeds: [UInt64], levels: Int = 2, command: String = "rate") throws -> PeggleStore {
        let store = try PeggleStore(path: dir.path(name))
        let run = try store.beginRun(command: command, configuration: "{\"seeds\":\"\(seeds)\"}", engineVersion: "0",
                                     startedAt: Fixture.startedAt)
        for batch in try Fixture.plan(store, run: run, levels: levels, seeds: seeds) { _ = try store.insert(batch) }
        try store.finishRun(run, episodesAdded: 0, finishedAt: Fixture.startedAt)
        return store
    }

    @Test func mergingShardsGivesTheUnionAndMergingAgainAddsNothing() throws {
        let dir = try TempDir()
        let a = try shard(dir, "a.sqlite", seeds: [1, 2, 3])
        let b = try shard(dir, "b.sqlite", seeds: [3, 4], levels: 3, command: "rate b")
        // The same games in one database, inserted directly (the store skips the repeated ones).
        let whole = try shard(dir, "whole.sqlite", seeds: [1, 2, 3])
        let run = try whole.beginRun(command: "rate b", configuration: "{}", engineVersion: "0", startedAt: Fixture.startedAt)
        for batch in try Fixture.plan(whole, run: run, levels: 3, seeds: [3, 4]) { _ = try whole.insert(batch) }

        let target = try PeggleStore(path: dir.path("target.sqlite"))
        let ra = try target.merge(try PeggleStore(readingOnly: dir.path("a.sqlite")))
        #expect(ra.gamesAdded == 2 * 2 * 2 * 3 && ra.gamesAlreadyThere == 0 && ra.conflicts.isEmpty)
        #expect(ra.levelsAdded == 2 && ra.agentsAdded == 2 && ra.runsAdded == 1)
        let rb = try target.merge(try PeggleStore(readingOnly: dir.path("b.sqlite")))
        // b: 3 levels x 2 agents x 2 sigmas x seeds 3, 4; seed 3 of the first two levels is there already.
        #expect(rb.gamesAdded == 3 * 2 * 2 * 2 - 2 * 2 * 2 && rb.gamesAlreadyThere == 2 * 2 * 2)
        #expect(rb.levelsAdded == 1 && rb.agentsAdded == 0 && rb.runsAdded == 1)
        #expect(try target.games() == whole.games())
        #expect(try Fixture.allShots(target) == Fixture.allShots(whole))
        #expect(try target.runs().map(\.command) == ["rate", "rate b"])
        #expect(try target.integrityOK())

        // Idempotent: the same shards again add nothing at all.
        let before = try target.counts()
        for name in ["a.sqlite", "b.sqlite"] {
            let again = try target.merge(try PeggleStore(readingOnly: dir.path(name)))
            #expect(again.gamesAdded == 0 && again.levelsAdded == 0 && again.agentsAdded == 0 && again.runsAdded == 0)
        }
        #expect(try target.counts() == before)
        // Shards are only read.
        #expect(try a.counts().episodes == 24 && b.counts().episodes == 24)
    }

    @Test func aConflictingGameIsReportedAndTheTargetKeepsItsOwn() throws {
        let dir = try TempDir()
        _ = try shard(dir, "a.sqlite", seeds: [1, 2])
        let b = try PeggleStore(path: dir.path("b.sqlite"))
        let run = try b.beginRun(command: "rate", configuration: "{}", engineVersion: "1", startedAt: Fixture.startedAt)
        let level = try b.level(Fixture.level(0)), agent = try b.agent(Fixture.agent(0))
        var changed = Fixture.episode(run: run, level: level, agent: agent, seed: 2, sigma: 0)
        changed.game.score += 5
        _ = try b.insert([changed, Fixture.episode(run: run, level: level, agent: agent, seed: 9, sigma: 0)])

        let target = try PeggleStore(path: dir.path("a.sqlite"))
        let before = try target.games()
        let r = try target.merge(try PeggleStore(readingOnly: dir.path("b.sqlite")))
        #expect(r.gamesAdded == 1 && r.gamesAlreadyThere == 0)
        #expect(r.conflicts.count == 1)
        let c = try #require(r.conflicts.first)
        #expect(c.key == EpisodeKey(seed: 2, sigma: 0) && c.levelHash == Fixture.level(0).contentHash)
        #expect(c.kept == "lost, score 20, 3 shots, orange 1/3, balls used 3, 13.5 s")
        #expect(c.refused == "lost, score 25, 3 shots, orange 1/3, balls used 3, 13.5 s")
        let after = try target.games()
        #expect(after.filter { $0.seed == 2 && $0.sigma == 0 && $0.levelHash == c.levelHash && $0.agentLabel == c.agentLabel }
            .map(\.score) == [20])
        #expect(after.count == before.count + 1)
    }

    @Test func theMergedFileAloneHoldsEverything() throws {
        let dir = try TempDir()
        _ = try shard(dir, "a.sqlite", seeds: [1, 2, 3])
        let target = try PeggleStore(path: dir.path("t.sqlite"))
        _ = try target.merge(try PeggleStore(readingOnly: dir.path("a.sqlite")))
        // The merge ends with a checkpoint: a copy of the main file alone is complete.
        try FileManager.default.copyItem(atPath: dir.path("t.sqlite"), toPath: dir.path("copy.sqlite"))
        #expect(try PeggleStore(readingOnly: dir.path("copy.sqlite")).counts() == target.counts())
    }

    @Test func onlyLevelsMergesThoseLevelsWithTheirAgentsAndRunsAlone() throws {
        let dir = try TempDir()
        let a = try shard(dir, "a.sqlite", seeds: [1, 2], levels: 3)
        // A run that played only the third level, with its own agent.
        let run = try a.beginRun(command: "rate third", configuration: "{}", engineVersion: "0", startedAt: Fixture.startedAt)
        let third = try a.level(Fixture.level(2)), lone = try a.agent(Fixture.agent(5))
        _ = try a.insert([Fixture.episode(run: run, level: third, agent: lone, seed: 7, sigma: 0)])

        let target = try PeggleStore(path: dir.path("t.sqlite"))
        let wanted: Set<String> = [Fixture.level(0).contentHash, Fixture.level(1).contentHash]
        let r = try target.merge(try PeggleStore(readingOnly: dir.path("a.sqlite")), onlyLevels: wanted)
        // 2 levels x 2 agents x 2 sigmas x 2 seeds; the third level, its agent and its run stay out.
        #expect(r.gamesAdded == 16 && r.levelsAdded == 2 && r.agentsAdded == 2 && r.runsAdded == 1)
        #expect(Set(try target.levels().map(\.contentHash)) == wanted)
        #expect(try target.runs().map(\.command) == ["rate"])
        #expect(try target.games() == a.games().filter { wanted.contains($0.levelHash) })
        // The rest follows in a second merge, which finds the first part there.
        let rest = try target.merge(try PeggleStore(readingOnly: dir.path("a.sqlite")))
        #expect(rest.gamesAdded == 9 && rest.gamesAlreadyThere == 16 && rest.levelsAdded == 1 && rest.agentsAdded == 1)
        #expect(try target.games() == a.games())
        // A level the shard does not hold merges nothing.
        let none = try PeggleStore(path: dir.path("n.sqlite")).merge(try PeggleStore(readingOnly: dir.path("a.sqlite")),
                                                                     onlyLevels: ["0123456789abcdef"])
        #expect(none.gamesAdded == 0 && none.levelsAdded == 0 && none.agentsAdded == 0 && none.runsAdded == 0)
    }
}
