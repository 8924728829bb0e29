import Foundation
import Hummingbird
import PeggleGame
import PeggleLevel
import PeggleStore
import PeggleStudio
import PeggleTestSupport
import Testing

/// Rate with `--db`: the games are stored as `peggle rate` stores them, a second Rate replays them,
/// and a level a `peggle rate` holds is refused with the process named. In `StudioRateTests`, whose
/// tests run one at a time: the studio runs one rating at a time per process.
extension StudioRateTests {
    static func rate(_ client: RouterClient, _ level: String) async throws -> (status: HTTPResponse.Status, result: [String: Any]?, error: String?) {
        let r = try await post(client, "/api/rate", ["level": level, "budget": 16])
        let lines = try String(buffer: r.body).split(separator: "\n").map { try jsonLine(Data($0.utf8)) }
        if r.status != .ok { return (r.status, nil, try errorText(r)) }
        return (r.status, lines.last?["result"] as? [String: Any], lines.last?["message"] as? String)
    }

    @Test func aRatingIsStoredAndARatingAgainReplaysIt() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        let mine = LevelCodec.encode(StudioFolder.mine)
        let direct = try StudioRating.rate(StudioFolder.mine, budget: 16, seed: 0, threads: 1) { _ in }
        try await withRecordingStudio(folder, store) { client in
            // A person's game on the level first: it is stored beside the rating, not fitted with it.
            let played = try await post(client, "/api/games", ["level": mine, "seed": 3, "angles": [0.0], "player": "Ann"])
            #expect(played.status == .ok)
            let first = try await Self.rate(client, mine)
            let result = try #require(first.result, "\(first.error ?? "")")
            #expect(result["games"] as? Int == direct.games)
            #expect(result["sigma50_text"] as? String == direct.sigma50Text)
            let stored = try store.counts().episodes
            #expect(stored == direct.games + 1)
            #expect(try store.runs().map(\.command) == [StudioAPI.playCommand, "studio rate"])
            // Rated again with the same seed: every game is found stored, none is played.
            let again = try #require(try await Self.rate(client, mine).result)
            #expect(again["games"] as? Int == direct.games && again["sigma50_text"] as? String == direct.sigma50Text)
            #expect(try store.counts().episodes == stored)
        }
    }

    @Test func aLevelAPeggleRateHoldsIsRefusedNamingTheProcess() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        let levelID = try store.level(LevelRecord(level: StudioFolder.mine, hash: try PreparedLevel(StudioFolder.mine).hash))
        let other = try store.beginRun(command: "peggle rate", configuration: "{}", engineVersion: "0")
        #expect(try store.claim(levels: [levelID], runID: other).isEmpty)  // taken; this process is alive, so it holds
        try await withRecordingStudio(folder, store) { client in
            let r = try await Self.rate(client, LevelCodec.encode(StudioFolder.mine))
            // A status before anything streams, not an error line in a 200.
            #expect(r.status == .conflict)
            #expect(r.result == nil)
            #expect(r.error == "a peggle rate (process \(ProcessIdentity.current.pid) on \(ProcessIdentity.current.host)) is "
                + "rating this level in the database now; rate again when it has finished")
        }
        #expect(try store.counts().episodes == 0)
    }
}
