import Foundation
import PeggleGame
import Testing
import PeggleStore

/// People counted by name and browser session (issue 49: a shared studio's playtesters).
@Suite struct HumanPlayersTests {
    static func person(_ name: String) -> AgentRecord {
        AgentRecord(kind: .human, parameters: "{\"name\":\"\(name)\"}", label: "human(name=\(name))")
    }

    /// Records a person's game on `level` (its seed makes it a new game) with `session`.
    static func play(_ store: PeggleStore, _ level: LevelRecord, _ name: String, seed: UInt64, session: String?) throws {
        var game = Fixture.episode(run: 0, level: 0, agent: 0, seed: seed, sigma: 0).game
        game.agentKind = .human
        let outcome = try store.record(game, level: level, agent: Self.person(name), command: "studio", configuration: "{}",
                                       engineVersion: "test", session: session, at: Fixture.startedAt)
        #expect(outcome == .added)
    }

    @Test func aPersonIsANameAndASession() throws {
        let dir = try TempDir()
        let store = try PeggleStore(path: dir.path("people.sqlite"))
        let a = Fixture.level(1), b = Fixture.level(2), c = Fixture.level(3)
        // Level a: Ann from two browsers (two people who typed the same name), twice from the
        // first; Bo once in the designer's own studio (no session); Cy from the first browser.
        try Self.play(store, a, "Ann", seed: 1, session: "s1")
        try Self.play(store, a, "Ann", seed: 2, session: "s1")
        try Self.play(store, a, "Ann", seed: 3, session: "s2")
        try Self.play(store, a, "Bo", seed: 4, session: nil)
        try Self.play(store, a, "Cy", seed: 5, session: "s1")
        // Level b: Ann once. Level c: only a program played it.
        try Self.play(store, b, "Ann", seed: 1, session: "s2")
        let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "test", startedAt: Fixture.startedAt)
        _ = try store.insert([Fixture.episode(run: run, level: try store.level(c), agent: try store.agent(Fixture.agent(0)),
                                              seed: 9, sigma: 0)])
        #expect(try store.humanPlayers() == [a.contentHash: 4, b.contentHash: 1])
    }
}
