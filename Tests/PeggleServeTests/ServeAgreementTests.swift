import Foundation
import PeggleEnv
import PeggleGame
import PeggleServe
import Testing

/// What the server plays is what the environment plays in process, option by option.
@Suite("Serve agrees with the environment")
struct ServeAgreementTests {
    /// Peggle-v1's settings on first steps, with `sigma` of aim noise.
    func noisy(_ sigma: Double) throws -> EnvConfig {
        var c = EnvConfig(levels: [try bundled("first-steps")])
        c.aimNoise = sigma
        c.bucketStart = .random
        return c
    }

    /// The serve `make` takes aim_noise and bucket_start, echoes them, and plays what the
    /// environment plays in process: the same observations, aims and fired angles.
    @Test func serveMatchesTheEnvironment() throws {
        let s = ServeProtocolTests.session()
        let made = try ServeProtocolTests.reply(s, #"{"cmd": "make", "level": "Levels/first-steps.json", "num_envs": 2, "#
            + #""max_shots": 30, "aim_noise": 0.03, "bucket_start": "random", "obs_encoding": "json"}"#)
        #expect(made["aim_noise"] as? Double == 0.03 && made["bucket_start"] as? String == "random")
        var c = try noisy(0.03)
        c.maxShots = 30
        var vec = try VectorEnv(config: c, count: 2)
        try vec.reset(seed: 5)
        let reset = try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": 5}"#)
        let infos0 = try #require(reset["infos"] as? [[String: Any]])
        #expect(infos0.map { ($0["game_seed"] as? NSNumber)?.uint64Value } == vec.infos.map(\.gameSeed))
        #expect(same(reset, vec))
        for a in [[0.25, -0.5], [0.6, 0.1], [-0.2, 0.3]] {  // env 1 wins at once: a reset, then a shot
            try vec.step(a)
            let line = s.handle(#"{"cmd": "step", "actions": [\#(a[0]), \#(a[1])]}"#)
            #expect(same(try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]), vec))
            // Read by JSONDecoder, which reads numbers exactly (JSONSerialization rounds some).
            let infos = try JSONDecoder().decode(Shots.self, from: Data(line.utf8)).infos
            #expect(infos.map(\.angle) == vec.infos.map { $0.shot?.angle })
            #expect(infos.map(\.fired_angle) == vec.infos.map { $0.shot?.firedAngle })
            #expect(vec.infos.allSatisfy { $0.shot.map { $0.firedAngle != $0.angle } ?? true })
        }
    }

    /// `physics: 2` reaches the games: the server plays what an environment whose rules say
    /// version 2 plays in process, and that is not what version 1 plays from the same seeds. The
    /// reply echoes `physics` only when it is not the default (version 1's replies are the bytes
    /// they were).
    @Test func physicsTwoPlaysVersionTwo() throws {
        let make = #"{"cmd": "make", "level": "Levels/first-steps.json", "num_envs": 2, "max_shots": 30, "obs_encoding": "json""#
        let s = ServeProtocolTests.session(), v1 = ServeProtocolTests.session()
        let made = try ServeProtocolTests.reply(s, make + #", "physics": 2}"#)
        #expect(made["physics"] as? Int == 2)
        #expect(try ServeProtocolTests.reply(v1, make + "}")["physics"] == nil)
        var c = EnvConfig(levels: [try bundled("first-steps")])
        c.maxShots = 30
        c.rules.physicsVersion = .timeOfImpact
        var vec = try VectorEnv(config: c, count: 2)
        try vec.reset(seed: 5)
        #expect(same(try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": 5}"#), vec))
        _ = try ServeProtocolTests.reply(v1, #"{"cmd": "reset", "seed": 5}"#)
        var differs = 0
        for a in [[0.25, -0.5], [0.6, 0.1], [-0.2, 0.3], [0.05, -0.05]] {
            try vec.step(a)
            let step = #"{"cmd": "step", "actions": [\#(a[0]), \#(a[1])]}"#
            #expect(same(try ServeProtocolTests.reply(s, step), vec))
            if !same(try ServeProtocolTests.reply(v1, step), vec) { differs += 1 }
        }
        #expect(differs == 4)
    }

    /// Whether a reply's observations (shortest decimals of float32) are the vector's, bit for bit.
    func same(_ reply: [String: Any], _ vec: VectorEnv) -> Bool {
        guard let obs = reply["obs"] as? [[Double]] else { return false }
        return obs.flatMap { $0.map(Float.init) } == vec.observations
    }

    struct Shots: Decodable {
        struct Info: Decodable { var angle: Double?, fired_angle: Double? }
        var infos: [Info]
    }
}
