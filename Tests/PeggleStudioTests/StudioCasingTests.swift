import Foundation
import PeggleLevel
import PeggleStore
import PeggleStudio
import PeggleTestSupport
import Testing

/// One casing on the studio's wire: snake_case, as the level format and the serve protocol.
/// Every reply a test reads through `json` has its keys checked; this suite visits every route.
@Suite struct StudioCasingTests {
    /// Every API route of the router, as StudioServer.swift declares them: a new route must be
    /// visited below.
    static func declaredRoutes() throws -> Set<String> {
        let source = try String(contentsOf: Repository.url("Sources/PeggleStudio/StudioServer.swift"), encoding: .utf8)
        return Set(source.matches(of: /router\.(get|post)\("(\/api\/[^"]*)"/).map { "\($0.1.uppercased()) \($0.2)" })
    }

    @Test func everyRoutesReplyHasSnakeCaseKeysOnly() async throws {
        let folder = try StudioFolder()
        let mine = LevelCodec.encode(StudioFolder.mine)
        let visited = try await withRecordingStudio(folder, try PeggleStore()) { client in
            var visited = Set<String>()
            /// The route's reply, its keys checked by `json`.
            func reply(_ route: String, _ uri: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
                visited.insert(route)
                if let body { return try json(try await post(client, uri, body).body) }
                return try json(try await client.execute(uri: uri, method: .get).body)
            }
            let config = try await reply("GET /api/config", "/api/config")
            #expect(Set(config.keys).isSuperset(of: ["max_aim", "ball_radius", "peg_kinds", "rating_budget"]))
            #expect((config["bucket"] as? [String: Any])?["rim_radius"] != nil)
            let list = try await reply("GET /api/levels", "/api/levels")
            #expect((list["items"] as? [[String: Any]])?.map { $0["read_only"] as? Bool } == [true, false])
            #expect(try await reply("GET /api/levels/:file", "/api/levels/mine.json")["read_only"] as? Bool == false)
            _ = try await reply("GET /api/new", "/api/new")
            _ = try await reply("POST /api/levels", "/api/levels", ["level": mine, "file": "mine.json"])
            _ = try await reply("POST /api/edit", "/api/edit", ["level": mine, "op": ["type": "settings", "purple_roams": false]])
            let estimate = try await reply("POST /api/estimate", "/api/estimate", ["level": mine])
            #expect(estimate["out_of_distribution"] is Bool)
            // Two shots: the reply holds the state before the last, the shot and the state after.
            let played = try await reply("POST /api/play", "/api/play", ["level": mine, "seed": 1, "angles": [0.5, 0.0]])
            #expect((played["state"] as? [String: Any])?["shots_taken"] as? Int == 2)
            #expect((played["shot"] as? [String: Any])?["bucket_x"] is [Double])
            let recorded = try await reply("POST /api/games", "/api/games", ["level": mine, "seed": 1, "angles": [0.5, 0.0], "player": "Ann"])
            #expect(recorded["level_hash"] as? String == StudioFolder.mine.contentHash)
            // A rating's stream is read (and checked) by StudioRateTests, one rating at a time;
            // here its refusal, which any route answers as `{"error": ...}`.
            let refused = try await reply("POST /api/rate", "/api/rate", ["level": LevelCodec.encode(Level(name: "Empty"))])
            #expect(refused["error"] as? String == "the level cannot be rated yet: pegs: a classic level needs at least one orange peg")
            // The same for a tune (StudioTuneTests reads its stream).
            let untuned = try await reply("POST /api/levels/:file/tune", "/api/levels/mine.json/tune", ["tier": "hard", "max_edits": 0])
            #expect(untuned["error"] as? String == "bad request: max_edits: 0 is outside 1...20")
            return visited
        }
        #expect(visited == (try Self.declaredRoutes()))
    }

    @Test func aRequestKeyInAnotherCasingIsRefusedNamingIt() async throws {
        try await withStudio(try StudioFolder()) { client in
            let mine = LevelCodec.encode(StudioFolder.mine)
            let camel = try await post(client, "/api/edit", ["level": mine, "op": ["type": "settings", "purpleRoams": false]])
            #expect(camel.status == .badRequest)
            #expect(try errorText(camel) == "bad request: op.purpleRoams: the studio's keys are snake_case (purple_roams)")
            let capital = try await post(client, "/api/play", ["level": mine, "Seed": 3, "angles": []])
            #expect(try errorText(capital) == "bad request: Seed: the studio's keys are snake_case (seed)")
            // A field's own errors name it in snake_case.
            let wrong = try await post(client, "/api/edit", ["level": mine, "op": ["type": "settings", "purple_roams": 1]])
            #expect(try errorText(wrong) == "bad request: op.purple_roams: Expected to decode Bool but found number instead.")
        }
    }
}
