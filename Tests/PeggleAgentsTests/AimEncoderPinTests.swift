import Foundation
import PeggleEnv
import PeggleGame
import Testing
@testable import PeggleAgents
import PeggleTestSupport

/// The aim encoder's features, pinned bit for bit on the bundled levels: the linear agent's
/// weights mean what they meant when they were trained only while this holds, and the
/// environment's `aim` observation is these same features (docs/agents.md, version 1).
@Suite struct AimEncoderPinTests {
    @Test func featuresOfTheBundledLevelsArePinned() throws {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let encoder = AimEncoder()
        for file in ["first-steps.json", "fortress.json", "upside-down.json", "spiral.json", "green-light.json", "ghost-story.json"] {
            var game = try GameState(level: try bundledLevel(file), seed: 4)
            for angle in [0.3, -0.7] {
                for f in encoder.encode(game) {
                    var v = UInt64(f.bitPattern)
                    for _ in 0..<4 {
                        hash = (hash ^ (v & 0xff)) &* 0x100_0000_01b3
                        v >>= 8
                    }
                }
                _ = try? game.shoot(angle: angle)
            }
        }
        #expect(String(hash, radix: 16) == "459fde1288aeedea")
    }
}
