import PeggleAgents
import PeggleGame
import PeggleGenerator
import Testing

/// Generated levels are playable: the greedy agent at sigma 0 wins easy ones. (docs/generator.md
/// has the full measurement: 200 of 200 easy levels won, with the command.)
@Suite struct GeneratedLevelPlayTests {
    @Test("The greedy agent at sigma 0 wins each of the first 10 easy levels")
    func greedyWinsEasyLevels() throws {
        let agent = GreedyAgent(threads: 2)
        for seed: UInt64 in 1...10 {
            let level = LevelGenerator.generate(seed: seed, distribution: .easy)
            let game = try Episode.play(agent, level: level, seed: 0, sigma: 0)
            #expect(game.won, "\(level.name): \(game.status) after \(game.shots) shots")
        }
    }
}
