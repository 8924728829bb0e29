import Foundation
import PeggleAgents
import PeggleGame
import PeggleRating
import PeggleStore
import Synchronization
import Testing

@Suite struct GameWriterTests {
    func game(seed: UInt64) -> PlayedGame {
        PlayedGame(levelHash: "", levelName: "", agentKind: .random, agentLabel: "", seed: seed, sigma: 0, status: .lost, score: 0,
                   shots: 1, orangeCleared: 0, orangeTotal: 1, ballsUsed: 1, gameSeconds: 1)
    }

    /// A failed run must not report itself finished: the final progress ("done in ...") is only
    /// for runs whose every batch was committed.
    @Test func aRefusedBatchStopsTheRunWithoutAFinalProgress() throws {
        let store = try PeggleStore()
        let run = try store.beginRun(command: "test", configuration: "{}", engineVersion: "0")
        let level = try store.level(LevelRecord(contentHash: "0000000000000001", name: "L", json: "{}", mode: .classic,
                                                power: .none, pegCount: 1, blue: 0, orange: 1, green: 0, purple: 0,
                                                zombie: 0, confusement: 0, blockCount: 0))
        let agent = try store.agent(AgentRecord(kind: .random, parameters: "{}", label: "random"))
        let finals = Mutex<[Bool]>([])
        let writer = GameWriter(store: store, runID: run, batch: 2, stopAfterBatches: nil, progressInterval: 1000) { _, final in
            finals.withLock { $0.append(final) }
        }
        writer.add(game(seed: 1), levelID: level, agentID: agent)
        writer.add(game(seed: 2), levelID: level + 99, agentID: agent)  // no such level: the batch is refused
        let state = writer.finish()
        #expect(state.failure != nil)
        #expect(state.stopReason == .storeFailed && writer.stopping)
        #expect(state.added == 0 && state.played == 2)
        #expect(finals.withLock { $0 }.allSatisfy { !$0 })
        #expect(try store.counts().episodes == 0)
    }

    @Test func everyGameHandedOverIsCommittedAndTheEndIsReported() throws {
        let store = try PeggleStore()
        let run = try store.beginRun(command: "test", configuration: "{}", engineVersion: "0")
        let level = try store.level(LevelRecord(contentHash: "0000000000000001", name: "L", json: "{}", mode: .classic,
                                                power: .none, pegCount: 1, blue: 0, orange: 1, green: 0, purple: 0,
                                                zombie: 0, confusement: 0, blockCount: 0))
        let agent = try store.agent(AgentRecord(kind: .random, parameters: "{}", label: "random"))
        let finals = Mutex<[Bool]>([])
        let writer = GameWriter(store: store, runID: run, batch: 3, stopAfterBatches: nil, progressInterval: 1000) { _, final in
            finals.withLock { $0.append(final) }
        }
        for seed in UInt64(1)...7 { writer.add(game(seed: seed), levelID: level, agentID: agent) }
        let state = writer.finish()
        #expect(state.failure == nil && state.stopReason == nil)
        #expect(state.added == 7 && state.played == 7)
        #expect(finals.withLock { $0 } == [true])
        #expect(try store.counts().episodes == 7)
    }
}
