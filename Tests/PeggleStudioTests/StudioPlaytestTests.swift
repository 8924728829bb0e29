import Foundation
import Hummingbird
import PeggleGame
import PeggleLevel
import PeggleStore
import PeggleStudio
import PeggleTestSupport
import Testing

/// Runs `test` against a studio that records games in `store`.
func withRecordingStudio<T: Sendable>(_ folder: StudioFolder, _ store: PeggleStore,
                                      _ test: @Sendable (RouterClient) async throws -> T) async throws -> T {
    let api = StudioAPI(library: try LevelLibrary(folder: folder.path), store: store)
    return try await RouterClient.test(StudioServer.router(api: api, threads: 2, address: .testRouter), test)
}

@Suite struct StudioPlaytestTests {
    /// The play's seed is an episode seed: the game's stream is derived as for an agent's game.
    @Test func playUsesTheEpisodeSeedsGameStream() async throws {
        let folder = try StudioFolder()
        let text = try folder.text("first-steps.json")
        let level = try LevelCodec.decode(Data(text.utf8))
        var game = try GameState(level: level, seed: EpisodeSeeds(episode: 7).game)
        _ = try game.shoot(angle: 0.3)
        let (score, bucketX) = (game.score, game.bucket.x)
        try await withStudio(folder) { client in
            let r = try json(try await post(client, "/api/play", ["level": text, "seed": 7, "angles": [0.3]]).body)
            let state = try #require(r["state"] as? [String: Any])
            #expect(state["score"] as? Int == score)
            #expect(state["bucket_x"] as? Double == bucketX)
        }
    }

    /// A finished game is stored as a `human` game with its shots, and replays to its stored outcome.
    @Test func aFinishedGameIsStoredAndReplaysToItsOutcome() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        let mine = LevelCodec.encode(StudioFolder.mine)
        let seed: UInt64 = 9_007_199_254_740_991  // the largest seed the page draws (2^53 - 1)
        try await withRecordingStudio(folder, store) { client in
            let config = try json(try await client.execute(uri: "/api/config", method: .get).body)
            #expect(config["recording"] as? Bool == true)
            // The first shot goes wide, the second straight down: won in 2 shots.
            let body: [String: Any] = ["level": mine, "seed": seed, "angles": [0.5, 0.0], "player": "  Ann "]
            let r = try await post(client, "/api/games", body)
            #expect(r.status == .ok)
            let reply = try json(r.body)
            #expect(reply["stored"] as? Bool == true)
            #expect(reply["agent"] as? String == "human(name=Ann)")
            #expect(reply["status"] as? String == "won")
            #expect(reply["shots"] as? Int == 2)
            // The same game again (a replay on the page): nothing new.
            let again = try json(try await post(client, "/api/games", body).body)
            #expect(again["stored"] as? Bool == false)
            // Another game under the same seed cannot be stored: a seed and the shots fix a game.
            var other = body
            other["angles"] = [0.0]
            let clash = try await post(client, "/api/games", other)
            #expect(clash.status == .conflict)
            #expect(try errorText(clash) == "Ann has another game with seed \(seed) stored for this level: "
                + "a new game needs a new seed (New game draws one)")
        }
        let agents = try store.agents()
        #expect(agents.map(\.kind) == [.human])
        #expect(agents.map(\.parameters) == [#"{"name":"Ann"}"#])
        let runs = try store.runs()
        #expect(runs.count == 1)
        #expect(runs[0].command == StudioAPI.playCommand)
        #expect(runs[0].episodesAdded == 1)
        #expect(runs[0].finishedAt == runs[0].startedAt)
        let stored = try store.games(levelID: try #require(store.levels().first?.id), agentID: try #require(agents.first?.id),
                                     withShots: true)
        #expect(stored.count == 1)
        let game = try #require(stored.first)
        #expect(game.agentKind == .human)
        #expect(game.seed == 9_007_199_254_740_991)
        #expect(game.sigma == 0)
        #expect(game.shotLog.map(\.angle) == [0.5, 0.0])
        #expect(game.shotLog.map(\.chosen) == [0.5, 0.0])
        let prepared = try PreparedLevel(StudioFolder.mine)
        let replayed = try prepared.replay(game)
        #expect(replayed.status == .won)
        #expect(replayed.score == game.score)
        #expect(game.levelHash == prepared.hash)
    }

    @Test func unfinishedGamesBadNamesAndAStudioWithoutADatabaseAreRefused() async throws {
        let folder = try StudioFolder()
        let mine = LevelCodec.encode(StudioFolder.mine)
        let store = try PeggleStore()
        try await withRecordingStudio(folder, store) { client in
            let unfinished = try await post(client, "/api/games", ["level": mine, "seed": 1, "angles": [0.5], "player": "Ann"])
            #expect(unfinished.status == .unprocessableContent)
            #expect(try errorText(unfinished) == "the game is not finished after 1 shots: only finished games are recorded")
            let empty = try await post(client, "/api/games", ["level": mine, "seed": 1, "angles": [0.0], "player": " "])
            #expect(empty.status == .badRequest)
            #expect(try errorText(empty) == "bad request: player: the name is empty; type a name to record games")
            let long = try await post(client, "/api/games", ["level": mine, "seed": 1, "angles": [0.0],
                                                             "player": String(repeating: "a", count: 41)])
            #expect(try errorText(long) == "bad request: player: 41 characters (Unicode code points); at most 40")
            // One grapheme cluster of 400 KB (a letter and 200,000 combining marks) is 200,001
            // characters as names count them, not 1: refused, not stored.
            let heavy = "a" + String(repeating: "\u{301}", count: 200_000)
            let huge = try await post(client, "/api/games", ["level": mine, "seed": 1, "angles": [0.0], "player": heavy])
            #expect(huge.status == .badRequest)
            #expect(try errorText(huge) == "bad request: player: 200001 characters (Unicode code points); at most 40")
            // 40 four-byte characters (160 bytes) are a name.
            let emoji = try await post(client, "/api/games", ["level": mine, "seed": 1, "angles": [0.0],
                                                              "player": String(repeating: "\u{1F3AF}", count: 40)])
            #expect(emoji.status == .ok, "\(String(buffer: emoji.body))")
            let missing = try await post(client, "/api/games", ["level": mine, "seed": 1, "angles": [0.0]])
            #expect(try errorText(missing) == "bad request: player is missing")
        }
        #expect(try store.counts().episodes == 1)  // the 40-emoji player's game only
        try await withStudio(folder) { client in
            let config = try json(try await client.execute(uri: "/api/config", method: .get).body)
            #expect(config["recording"] as? Bool == false)
            let r = try await post(client, "/api/games", ["level": mine, "seed": 1, "angles": [0.0], "player": "Ann"])
            #expect(r.status == .conflict)
            #expect(try errorText(r) == "games are not recorded: the studio was started without --db")
        }
    }
}
