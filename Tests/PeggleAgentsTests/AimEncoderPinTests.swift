import Foundation
import PeggleAgents
import PeggleEnv
import PeggleGame
import PeggleTestSupport
import Testing

/// The aim encoder's features, pinned bit for bit on the bundled levels: the linear agent's
/// weights mean what they meant when they were trained only while this holds, and the
/// environment's `aim` observation is these same features (docs/agents.md, version 1).
@Suite struct AimEncoderPinTests {
    @Test func featuresOfTheBundledLevelsArePinned() throws {
        var hash = FNV1a()
        let encoder = AimEncoder()
        for file in ["first-steps.json", "fortress.json", "upside-down.json", "spiral.json", "green-light.json", "ghost-story.json"] {
            var game = try GameState(level: try bundledLevel(file), seed: 4)
            for angle in [0.3, -0.7] {
                hash.add(encoder.encode(game))
                _ = try? game.shoot(angle: angle)
            }
        }
        #expect(String(hash.value, radix: 16) == "ad9f5227108722a")
    }
}
