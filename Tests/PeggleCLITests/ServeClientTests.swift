import Foundation
import PeggleEnv
import PeggleGame
import PeggleLab
import PeggleLevel
import PeggleServe
import PeggleTestSupport
import Testing

/// The Swift protocol client (`ServeClient`, which `peggle-bench serve` drives the server
/// with) against the real binary: the observations it decodes from either encoding are the
/// environment's own, bit for bit, and refusals come back with the protocol's code.
@Suite("ServeClient")
struct ServeClientTests {
    struct StepReply: ServeReply {
        struct Infos: Decodable { var shots: [Int] }
        var ok: Bool
        var error: ServeClient.ErrorBody?
        var rewards: [Float]
        var infos: Infos
    }

    @Test(arguments: ["f32", "b64f32"])
    func observationsAreTheEnvironmentsBitForBit(_ encoding: String) throws {
        let client = try ServeClient(executable: CLI.binary, directory: CLI.root)
        defer { client.close() }
        #expect(client.hello.contains(#""protocol":1"#))
        let made = try client.request(#"{"cmd":"make","levels":["Levels/first-steps.json"],"num_envs":3,"max_objects":40,"#
            + #""obs_encoding":"\#(encoding)","info_layout":"columns","encoder":"aim","action":"discrete","bins":9}"#)
        #expect(made.ok)
        var config = EnvConfig(levels: [try LevelCodec.decode(Repository.data("Levels/first-steps.json"))])
        config.encoder = .aim
        config.action = .discrete
        config.bins = 9
        var vec = try VectorEnv(config: config, count: 3)
        let reset = try client.request(#"{"cmd":"reset","seed":4}"#)
        try vec.reset(seed: 4)
        #expect(reset.obsShape == [3, 9 * 20])
        #expect(client.observations.map(\.bitPattern) == vec.observations.map(\.bitPattern))
        for actions in [[0, 4, 8], [2, 2, 2], [8, 1, 5]] {
            let step = try client.request(#"{"cmd":"step","actions":[\#(actions.map(String.init).joined(separator: ","))]}"#,
                                          as: StepReply.self)
            try vec.step(actions.map(Double.init))
            #expect(client.observations.map(\.bitPattern) == vec.observations.map(\.bitPattern))
            #expect(step.rewards == vec.rewards)
            #expect(step.infos.shots == vec.infos.map(\.shots))
        }
        #expect(throws: ServeClient.Failure.self) { try client.request(#"{"cmd":"step","actions":[9,0,0]}"#) }
        do {
            try client.request(#"{"cmd":"step","actions":[9,0,0]}"#)
        } catch let f as ServeClient.Failure {
            #expect(f.code == "bad_action")
            #expect(f.message == "action 9.0 of environment 0 is not in the action space Discrete(9)")
        }
    }
}
