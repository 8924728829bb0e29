import Foundation
import PeggleEnv
import PeggleLevel
import PeggleServe
import Testing

/// A `tier-*` distribution over the protocol: the session plays the levels the screen it was given
/// chooses (`peggle serve` gives the estimate's), and a session given none refuses the `make`.
@Suite("Serve: tier screens")
struct ServeTierScreenTests {
    /// Picks a level seed's candidate by arithmetic, so the test sees which one was played.
    struct OffsetScreen: TierScreen {
        func generatorSeed(levelSeed: UInt64, distribution: DistributionMode, candidate: (UInt64) -> Level) -> UInt64 {
            levelSeed + 1_000_000
        }
    }

    static func session(_ screen: (any TierScreen)?) -> ServeSession {
        ServeSession(loadLevel: { path in throw ServeTestError(message: "\(path): no level files here") },
                     renderSVG: { _, _ in "<svg/>" }, tierScreen: screen)
    }

    static func reply(_ s: ServeSession, _ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(s.handle(line).utf8)) as? [String: Any])
    }

    static let make = #"{"cmd": "make", "num_levels": 4, "start_level": 10, "distribution_mode": "tier-hard"}"#

    @Test("a session plays the candidates its screen chooses; the level's name is the candidate's")
    func screenChooses() throws {
        let s = Self.session(OffsetScreen())
        #expect(try Self.reply(s, Self.make)["ok"] as? Bool == true)
        let reset = try Self.reply(s, #"{"cmd": "reset", "options": {"level": 2}}"#)
        let info = try #require((reset["infos"] as? [[String: Any]])?.first)
        #expect(info["level_seed"] as? Int == 12)
        let name = ProceduralLevels(distribution: .tierHard).name(generatorSeed: 1_000_012)
        #expect(info["level_name"] as? String == name)
        #expect(name.hasSuffix("1000012 (hard)"), "\(name)")
    }

    @Test("a session given no screen refuses a tier distribution with bad_request, and still makes easy and hard")
    func noScreen() throws {
        let s = Self.session(nil)
        let refused = try Self.reply(s, Self.make)
        let error = try #require(refused["error"] as? [String: Any])
        #expect(refused["ok"] as? Bool == false && error["code"] as? String == "bad_request")
        #expect(error["message"] as? String == EnvError.noTierScreen(.tierHard).message)
        #expect(try Self.reply(s, #"{"cmd": "make", "num_levels": 4, "distribution_mode": "hard"}"#)["ok"] as? Bool == true)
    }
}
