import Foundation
import Hummingbird
import PeggleAgents
import PeggleDifficulty
import PeggleLevel
import PeggleLevelSearch
import PeggleStore
import PeggleStudio
import PeggleTestSupport
import Testing

/// Tune to tier (`POST /api/levels/FILE/tune`, `StudioTune`): `peggle level tune` on a file of the
/// folder, streamed as the rating is; a level that reaches the tier goes to a new file, never over
/// one. In `StudioRateTests`, whose tests run one at a time: the studio runs one rating or tune at a
/// time per process. The ratings here are small (16 games), since what is tested is the route, not the dial.
extension StudioRateTests {
    /// A tune's reply: its status, its JSON lines (progress, then the result or an error), the result.
    static func tune(_ client: RouterClient, _ file: String, _ body: [String: Any]) async throws
        -> (status: HTTPResponse.Status, events: [[String: Any]], result: [String: Any]?, seconds: Double?) {
        let r = try await post(client, "/api/levels/\(file)/tune", body)
        let events = try String(buffer: r.body).split(separator: "\n").map { try jsonLine(Data($0.utf8)) }
        if r.status == .ok { #expect(r.headers[.contentType] == "application/x-ndjson") }
        return (r.status, events, events.last?["result"] as? [String: Any], events.last?["seconds"] as? Double)
    }

    /// The folder with Ghost Story: rated medium on 16 games, easy after one edit.
    static func tuneFolder() throws -> StudioFolder {
        let folder = try StudioFolder()
        try Repository.data("Levels/ghost-story.json").write(to: folder.url.appendingPathComponent("ghost-story.json"))
        return folder
    }

    /// Whether a number of a reply is `value`: the encoder writes the shortest text that reads back
    /// as `value`, which JSONSerialization on Linux may read one unit in the last place off.
    static func same(_ number: Any?, _ value: Double) -> Bool {
        guard let x = number as? Double else { return false }
        return abs(x - value) <= value.ulp
    }

    static var small: [String: Any] { ["tier": "easy", "budget": 16, "max_edits": 2, "max_ratings": 2] }

    @Test func aTuneThatReachesTheTierWritesANewFileBesideTheOriginal() async throws {
        let folder = try Self.tuneFolder()
        let original = try folder.text("ghost-story.json")
        // A file holds the first name already: it is left as it is, and the tuned level takes the next.
        try Data("{\"taken\": true}".utf8).write(to: folder.url.appendingPathComponent("ghost-story.tuned-easy.json"))
        // The library's search with the same settings: the route must give its edits and ratings.
        let ghost = try LevelCodec.decode(Repository.data("Levels/ghost-story.json"))
        let settings = LevelTune.Settings(target: .tier(.easy), maxEdits: 2, maxConfirmations: 2, adaptive: AdaptiveSettings(budget: 16))
        let direct = try LevelTune(settings: settings, skillAgent: try AgentFactory.make(.greedy), threads: 1)
            .run(ghost, store: try PeggleStore(), command: "test")
        let store = try PeggleStore()
        try await withRecordingStudio(folder, store) { client in
            let r = try await Self.tune(client, "ghost-story.json", Self.small)
            #expect(r.status == .ok)
            let progress = r.events.dropLast()
            #expect(progress.allSatisfy { $0["type"] as? String == "progress" })
            // Each rating's games as they are played, and the command's lines.
            #expect(progress.contains { $0["played"] as? Int == 16 && $0["at_most"] as? Int == 16 })
            #expect(progress.compactMap { $0["line"] as? String } == [
                "rated after 0 edits: sigma50 0.0609 (0.00462-0.6), tier medium",
                "edit 1: peg 29: orange made blue; estimate 0.253, predicted 0.091",
                "rated after 1 edit: sigma50 0.31 (0.0491-1.45), tier easy",
            ])
            let result = try #require(r.result)
            #expect(r.events.last?["type"] as? String == "result" && (r.seconds ?? 0) > 0)
            #expect(result["status"] as? String == "reached" && result["tier"] as? String == "easy")
            #expect(result["file"] as? String == "ghost-story.json" && result["level"] as? String == "Ghost Story")
            #expect(result["out"] as? String == "ghost-story.tuned-easy-2.json")
            let edits = try #require(result["edits"] as? [[String: Any]])
            #expect(edits.map { $0["description"] as? String } == direct.steps.map(\.edit.description))
            #expect(edits.map { $0["kind"] as? String } == ["orange-to-blue"])
            #expect(edits.count == 1 && Self.same(edits[0]["estimate"], direct.steps[0].estimate.sigma50))
            let before = try #require(result["before"] as? [String: Any]), after = try #require(result["after"] as? [String: Any])
            #expect(Self.same(before["sigma50"], direct.before.rated.estimate) && before["tier"] as? String == "medium")
            #expect(Self.same(after["sigma50"], direct.after.rated.estimate) && after["tier"] as? String == "easy")
            #expect((result["ratings"] as? [Any])?.count == 2 && result["games_added"] as? Int == 32)
            // The new file: the library's tuned level, named for the tier, no longer read-only.
            var expected = direct.level
            expected.name = "Ghost Story (easy)"
            expected.readOnly = false
            #expect(try folder.text("ghost-story.tuned-easy-2.json") == LevelCodec.encode(expected))
            // Listed, and opened as any level.
            let opened = try json(try await client.execute(uri: "/api/levels/ghost-story.tuned-easy-2.json", method: .get).body)
            #expect(opened["read_only"] as? Bool == false && (opened["issues"] as? [Any])?.isEmpty == true)

            // Again: the next free file and a name no level has; the ratings replayed from the database.
            let again = try #require(try await Self.tune(client, "ghost-story.json", Self.small).result)
            #expect(again["out"] as? String == "ghost-story.tuned-easy-3.json")
            #expect(again["games_added"] as? Int == 0 && again["games_stored"] as? Int == 32)
            #expect(try LevelCodec.decode(Data(folder.text("ghost-story.tuned-easy-3.json").utf8)).name == "Ghost Story (easy) 2")
        }
        #expect(try folder.text("ghost-story.json") == original)
        #expect(try folder.text("ghost-story.tuned-easy.json") == "{\"taken\": true}")
        #expect(try folder.files() == ["first-steps.json", "ghost-story.json", "ghost-story.tuned-easy-2.json",
                                       "ghost-story.tuned-easy-3.json", "ghost-story.tuned-easy.json", "mine.json"])
        // A run per rating (two a tune), as `peggle level tune --db` stores them, under the studio's command.
        #expect(try store.runs().map(\.command) == Array(repeating: "studio tune", count: 4))
    }

    /// A level in the tier already, and a tier out of reach: said so, and nothing is written.
    @Test func aTuneThatNeedNotOrCannotReachWritesNothing() async throws {
        let folder = try StudioFolder()
        let before = try folder.files()
        try await withStudio(folder) { client in
            let there = try #require(try await Self.tune(client, "mine.json", ["tier": "easy", "budget": 8]).result)
            #expect(there["status"] as? String == "already_there" && there["out"] == nil)
            #expect((there["edits"] as? [Any])?.isEmpty == true && (there["ratings"] as? [Any])?.count == 1)
            let (_, _, result, _) = try await Self.tune(client, "mine.json", ["tier": "very-hard", "budget": 8, "max_edits": 1, "max_ratings": 1])
            let far = try #require(result)
            #expect(far["status"] as? String == "not_reached" && far["out"] == nil)
            #expect(far["max_edits"] as? Int == 1 && far["max_ratings"] as? Int == 1)
            #expect((far["after"] as? [String: Any])?["tier"] as? String == "easy")
        }
        #expect(try folder.files() == before)
        #expect(try folder.text("mine.json") == LevelCodec.encode(StudioFolder.mine))
    }
}

/// A tune request is checked before anything runs: each bad field is named with its value.
@Suite struct StudioTuneRequestTests {
    @Test func badTuneRequestsAreRefusedNamingTheFieldAndValue() async throws {
        let folder = try StudioFolder()
        try Data(LevelCodec.encode(Level(name: "Empty")).utf8).write(to: folder.url.appendingPathComponent("empty.json"))
        try Data("not json".utf8).write(to: folder.url.appendingPathComponent("broken.json"))
        // The file a reached tier would write is refused before any rating: past 255 bytes once
        // `.tuned-hard` is added.
        let long = String(repeating: "l", count: 240) + ".json"
        try Data(LevelCodec.encode(StudioFolder.mine).utf8).write(to: folder.url.appendingPathComponent(long))
        func contents() throws -> [String] { try folder.files().map { "\($0)\n\(try folder.text($0))" } }
        let before = try contents()
        try await withStudio(folder) { client in
            let cases: [(file: String, body: String, status: HTTPResponse.Status, message: String)] = [
                ("mine.json", #"{"tier": "extreme"}"#, .badRequest, "bad request: tier: 'extreme' is not easy, medium, hard or very-hard"),
                // The tables' name of a tier is not the one a tune asks with (`--tier`'s).
                ("mine.json", #"{"tier": "very hard"}"#, .badRequest, "bad request: tier: 'very hard' is not easy, medium, hard or very-hard"),
                ("mine.json", #"{"budget": 16}"#, .badRequest, "bad request: tier is missing"),
                ("mine.json", #"{"tier": 3}"#, .badRequest, "bad request: tier: Expected to decode String but found number instead."),
                ("mine.json", #"{"tier": "hard", "max_edits": 0}"#, .badRequest, "bad request: max_edits: 0 is outside 1...20"),
                ("mine.json", #"{"tier": "hard", "max_ratings": 21}"#, .badRequest, "bad request: max_ratings: 21 is outside 1...20"),
                ("mine.json", #"{"tier": "hard", "max_ratings": 1e30}"#, .badRequest, "bad request: max_ratings: 1e30 is not a whole number in 1...20"),
                ("mine.json", #"{"tier": "hard", "budget": 7}"#, .badRequest, "bad request: budget: 7 is outside 8...160"),
                ("mine.json", #"{"tier": "hard", "seed": -1}"#, .badRequest, "bad request: seed: -1 is not a whole number in 0...18446744073709551615"),
                ("mine.json", #"{"tier": "hard", "maxEdits": 2}"#, .badRequest, "bad request: maxEdits: the studio's keys are snake_case (max_edits)"),
                ("mine.json", #"{"tier": "hard""#, .badRequest, "bad request: the body is not valid JSON"),
                ("nosuch.json", #"{"tier": "hard"}"#, .notFound, "nosuch.json: no such level in the folder"),
                ("..%2Fmine.json", #"{"tier": "hard"}"#, .badRequest, "'../mine.json' is not a file name in the levels folder (no folders, no '..')"),
                ("mine.txt", #"{"tier": "hard"}"#, .badRequest, "'mine.txt' does not end in .json (lower case); level files are .json files"),
                ("empty.json", #"{"tier": "hard"}"#, .unprocessableContent,
                 "the level cannot be tuned yet: pegs: a classic level needs at least one orange peg"),
                ("broken.json", #"{"tier": "hard"}"#, .unprocessableContent, "broken.json: not valid JSON"),
                (long, #"{"tier": "hard"}"#, .badRequest,
                 "'\(LevelCodec.cut(String(repeating: "l", count: 240) + ".tuned-hard.json"))' is 256 bytes long; a file name has at most 255"),
            ]
            for (file, body, status, message) in cases {
                let r = try await client.execute(uri: "/api/levels/\(file)/tune", method: .post, headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(string: body))
                #expect(r.status == status, "\(file) \(body)")
                // The decoder's own words follow a broken file's name.
                let said = try errorText(r)
                #expect(file == "broken.json" ? said.hasPrefix(message) : said == message, "\(file) \(body): \(said)")
            }
        }
        #expect(try contents() == before)
    }
}
