import Foundation
import PeggleAgents
import PeggleGame
import PeggleLevel
import PeggleTestSupport
import Testing

/// A stored game keeps its seed and fired angles, not which pegs each shot lit: the report
/// recovers those by replaying (`PreparedLevel.replay`). These tests hold the episode runner and
/// the replay to the same game.
@Suite struct ReplayTests {
    static let bundled = ["brick-road", "first-steps", "fortress", "gauntlet", "ghost-story", "green-light", "last-stand",
                          "needle-s-eye", "purple-haze", "score-rush", "spiral", "springboard", "upside-down", "zombie-night"]

    @Test("every bundled level: random games at several aim noises replay shot for shot to their stored outcome")
    func randomGamesReplay() throws {
        for name in Self.bundled {
            let prepared = try PreparedLevel(LevelCodec.decode(Repository.data("Levels/\(name).json")))
            for (seed, sigma) in [(UInt64(0), 0.0), (7, 0.05), (1 << 63 + 5, 0.3)] {
                let game = Episode.play(RandomAgent(), prepared: prepared, seed: seed, sigma: sigma)
                let end = try prepared.replay(game)
                #expect(end.status == game.status && end.score == game.score && end.shotsTaken == game.shots, "\(name) seed \(seed)")
                #expect(end.orangeCleared == game.orangeCleared && end.elapsed == game.gameSeconds, "\(name) seed \(seed)")
            }
        }
    }

    @Test("a greedy game (the skill agent's kind) replays, with the first choice given as the rater gives it")
    func greedyGameReplays() throws {
        let prepared = try PreparedLevel(LevelCodec.decode(Repository.data("Levels/green-light.json")))
        let greedy = GreedyAgent(candidates: 8, refineRounds: 1, refineCandidates: 2, noiseSamples: 2, threads: 1)
        let first = Episode.firstChoice(greedy, prepared: prepared, sigma: 0.02)
        let game = Episode.play(greedy, prepared: prepared, seed: 11, sigma: 0.02, firstChoice: first)
        let end = try prepared.replay(game)
        #expect(end.status == game.status && end.score == game.score && end.shotsTaken == game.shots)
    }

    @Test("a game whose stored angles or outcome differ from the engine's is refused with the shot and field")
    func tamperedGamesAreRefused() throws {
        let prepared = try PreparedLevel(LevelCodec.decode(Repository.data("Levels/first-steps.json")))
        let game = Episode.play(RandomAgent(), prepared: prepared, seed: 3, sigma: 0)
        try #require(game.shots >= 2)

        var otherScore = game
        otherScore.score += 1
        #expect(throws: ReplayError.differs(shot: nil, field: "score")) { try prepared.replay(otherScore) }

        var otherAim = game
        otherAim.shotLog[1].angle = -otherAim.shotLog[1].angle + 0.123
        #expect(throws: ReplayError.self) { try prepared.replay(otherAim) }

        var tooFar = game
        tooFar.shotLog[0].angle = 2
        #expect(throws: ReplayError.refused(shot: 0, .angleOutOfRange(angle: 2, limit: prepared.rules.maxAim))) {
            try prepared.replay(tooFar)
        }
        #expect(throws: ReplayError.missingShots(stored: 0, taken: game.shots)) { try prepared.replay(game.withoutShots) }
    }
}
