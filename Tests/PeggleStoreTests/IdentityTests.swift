import Foundation
import PeggleStore
import Testing

@Suite struct IdentityTests {
    @Test func levelIsIdempotentAndKeepsItsIdWhenRenamed() throws {
        let store = try PeggleStore()
        let a = try store.level(Fixture.level(0))
        let b = try store.level(Fixture.level(1))
        #expect(a != b)
        #expect(try store.level(Fixture.level(0)) == a)
        var renamed = Fixture.level(0, name: "Renamed")
        renamed.json = "{\"name\":\"Renamed\"}"
        #expect(try store.level(renamed) == a)
        let levels = try store.levels()
        #expect(levels.count == 2)
        #expect(levels.first { $0.id == a }?.name == "Renamed")
        #expect(levels.first { $0.id == a }?.json == "{\"name\":\"Renamed\"}")
        var expected = Fixture.level(1)
        expected.id = b
        #expect(levels.first { $0.id == b } == expected)
    }

    @Test func agentIsIdempotentWithAndWithoutWeights() throws {
        let store = try PeggleStore()
        let plain = try store.agent(Fixture.agent(0))
        #expect(try store.agent(Fixture.agent(0)) == plain)
        #expect(try store.agent(Fixture.agent(0)) == plain)
        // "" and nil are one key, so neither adds a row.
        #expect(try store.agent(Fixture.agent(0, weightsHash: "")) == plain)
        let weighted = try store.agent(Fixture.agent(0, weightsHash: "00ff00ff00ff00ff"))
        #expect(weighted != plain)
        #expect(try store.agent(Fixture.agent(0, weightsHash: "00ff00ff00ff00ff")) == weighted)
        let other = try store.agent(Fixture.agent(1))
        #expect(other != plain && other != weighted)
        var linear = Fixture.agent(0)
        linear.kind = .linear
        #expect(try store.agent(linear) != plain)
        #expect(try store.agents().count == 4)
        #expect(try store.agents().first { $0.id == plain }?.weightsHash == nil)
    }

    @Test func theAgentKeyIsEnforcedByTheDatabaseToo() throws {
        let store = try PeggleStore()
        _ = try store.agent(Fixture.agent(0))
        // Bypassing agent(): the unique index still refuses a second agent with a NULL hash.
        #expect(throws: (any Error).self) {
            try store.writer.write { db in
                var copy = Fixture.agent(0)
                try copy.insert(db)
            }
        }
    }

    @Test func runsRecordStartAndFinishInUTC() throws {
        let store = try PeggleStore()
        let id = try store.beginRun(command: "peggle rate", configuration: "{\"seeds\":8}", engineVersion: "0.1",
                                    startedAt: Fixture.startedAt)
        var runs = try store.runs()
        #expect(runs == [RunRecord(id: id, command: "peggle rate", configuration: "{\"seeds\":8}", engineVersion: "0.1",
                                   startedAt: "2025-06-15T15:06:40Z", finishedAt: nil, episodesAdded: 0)])
        try store.finishRun(id, episodesAdded: 12, finishedAt: Fixture.startedAt.addingTimeInterval(61))
        runs = try store.runs()
        #expect(runs.first?.finishedAt == "2025-06-15T15:07:41Z")
        #expect(runs.first?.episodesAdded == 12)
        #expect(throws: StoreError.self) { try store.finishRun(id + 1, episodesAdded: 0) }
    }
}
