import Foundation
import PeggleAgents
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleRating
import PeggleStore
import Synchronization
import Testing

/// Two rating runs on one database: the second leaves a level the first is rating to it, and a
/// run that plays games another run stored meanwhile counts them as already stored.
@Suite struct TwoRunsTests {
    static let level = Level(name: "Two runs", mode: .classic(balls: 3),
                             pegs: [Peg(id: 1, kind: .orange, center: Vec2(400, 300)),
                                    Peg(id: 2, kind: .blue, center: Vec2(300, 350))])
    static let config = RatingConfig(method: .grid, agents: [RandomAgent()], games: 6, sigmas: [0])

    static func run(_ store: PeggleStore) throws -> RatingRun {
        try RatingRun(store: store, levels: [("two.json", level)], config: config, command: "test", threads: 1,
                      commitBatch: 2, startedAt: Date(timeIntervalSince1970: 0))
    }

    @Test func aSecondRunLeavesAClaimedLevelAndCountsWhatAnotherRunStoredAsAlreadyStored() throws {
        let store = try PeggleStore()
        let first = try Self.run(store)
        let committed = DispatchSemaphore(value: 0), carryOn = DispatchSemaphore(value: 0)
        // The first run stops after its first commit until the test lets it go on.
        first.afterCommit = { batches in
            guard batches == 1 else { return }
            committed.signal()
            carryOn.wait()
        }
        let firstResult = Mutex<Result<RatingRun.Summary, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let result = Result { () throws(StoreError) in try first.run() }
            firstResult.withLock { $0 = result }
            done.signal()
        }.start()
        committed.wait()
        defer { carryOn.signal() }  // never leave the first run blocked, even when a check fails
        // Each commit takes exactly one batch of 2, however many games are waiting.
        let n = try store.counts().episodes
        try #require(n == 2, "the first commit took \(n) of the 6 games")

        // While the first run lives and holds its claim, a second run leaves the level to it.
        #expect(try store.claims().map(\.runID) == [first.runID])
        let second = try Self.run(store).run()
        #expect(second.levels == 0 && second.added == 0 && second.alreadyStored == 0)
        #expect(second.leftToOtherRuns.map(\.level) == ["two.json"])
        #expect(second.leftToOtherRuns.first?.claim.process == ProcessIdentity.current)
        #expect(try store.counts().episodes == n)

        // A third run that takes the claim over (as it would from a run taken for dead) plays the
        // missing games; the first run has played them too and finds them stored.
        try store.releaseClaims(runID: first.runID)
        let third = try Self.run(store).run()
        #expect(third.levels == 1 && third.added == 6 - n && third.alreadyStored == n)
        #expect(third.leftToOtherRuns.isEmpty)
        carryOn.signal()
        done.wait()
        let summary = try #require(firstResult.withLock { $0 }).get()
        // Not "n games added, 0 already stored" after playing 6: each game it played is counted.
        #expect(summary.added == n && summary.alreadyStored == 6 - n)
        #expect(try store.counts().episodes == 6)
        #expect(try store.claims().isEmpty)  // every run released its claims
    }

    @Test func aClaimOfAProcessThatHasEndedIsTakenOver() throws {
        let store = try PeggleStore()
        let levelID = try store.level(LevelRecord(level: Self.level, hash: Self.level.contentHash))
        let killedRun = try store.beginRun(command: "killed", configuration: "{}", engineVersion: "0")
        // A process id above Linux's largest (2^22) names no process: the run was killed.
        let dead = ProcessIdentity(host: ProcessIdentity.current.host, pid: 1 << 30, start: "1")
        #expect(!dead.isAlive)
        #expect(try store.claim(levels: [levelID], runID: killedRun, process: dead).isEmpty)
        let summary = try Self.run(store).run()
        #expect(summary.levels == 1 && summary.added == 6 && summary.leftToOtherRuns.isEmpty)
        #expect(try store.claims().isEmpty)
    }
}
