import Foundation
import GRDB
import PeggleGame
import PeggleStore
import Testing

/// The choices in the store's rows (agent kind, level mode and power) are their types in Swift
/// and their raw values in the database, the text `peggle` has always written. Agent kinds are
/// open: the store keeps any well-formed kind and refuses a malformed one by name.
@Suite struct ChoiceColumnTests {
    /// Kinds the store has stored since the first schema, and one no build declares.
    static let kinds: [AgentKind] = [.random, .greedy, .linear, .human, AgentKind(declaring: "aardvark")]

    @Test func agentKindsModesAndPowersAreStoredAsTheirRawValues() throws {
        let store = try PeggleStore()
        let run = try store.beginRun(command: "test", configuration: "{}", engineVersion: "0", startedAt: Fixture.startedAt)
        var agentIDs: [Int64] = []
        for kind in Self.kinds {
            agentIDs.append(try store.agent(AgentRecord(kind: kind, parameters: "{}", label: kind.rawValue)))
        }
        var level = Fixture.level(0)
        level.mode = .beatTheScore
        level.power = .multiball
        let levelID = try store.level(level)
        let (kinds, choices) = try store.writer.read { db in
            (try String.fetchAll(db, sql: "SELECT kind FROM agent ORDER BY id"),
             try Row.fetchOne(db, sql: "SELECT mode, power FROM level"))
        }
        #expect(kinds == ["random", "greedy", "linear", "human", "aardvark"])
        #expect(choices?["mode"] as String? == "beat_the_score")
        #expect(choices?["power"] as String? == "multiball")

        #expect(try store.agents().map(\.kind) == Self.kinds)
        #expect(try store.levels().map(\.mode) == [.beatTheScore])
        #expect(try store.levels().map(\.power) == [.multiball])
        let items = agentIDs.map { Fixture.episode(run: run, level: levelID, agent: $0, seed: 1, sigma: 0) }
        #expect(try store.insert(items) == 5)
        #expect(Set(try store.games().map(\.agentKind)) == Set(Self.kinds))
    }

    @Test(arguments: ["", "Greedy", "greedy(x=1)", "linear:w.json", "2d", "a b"])
    func aGameOfAMalformedAgentKindIsRefusedByName(kind: String) throws {
        #expect(AgentKind(rawValue: kind) == nil)
        let store = try PeggleStore()
        let run = try store.beginRun(command: "test", configuration: "{}", engineVersion: "0", startedAt: Fixture.startedAt)
        let levelID = try store.level(Fixture.level(0))
        let agentID = try store.agent(Fixture.agent(0))
        #expect(try store.insert([Fixture.episode(run: run, level: levelID, agent: agentID, seed: 1, sigma: 0)]) == 1)
        try store.writer.write { db in try db.execute(sql: "UPDATE agent SET kind = ?", arguments: [kind]) }
        do {
            _ = try store.games()
            Issue.record("a game of the malformed agent kind '\(kind)' was read")
        } catch {
            #expect("\(error)".contains("agent with malformed kind '\(kind)'"), "\(error)")
        }
        #expect(throws: (any Error).self) { try store.agents() }
    }
}
