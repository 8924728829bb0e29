import PeggleEnv
import PeggleGame
import PeggleLevel
import PegglePhysics
import Testing

/// What a whole episode of the `progress` reward sums to (Rewards.swift, docs/environment.md):
/// a won beat-the-score episode is 1 + score / target, which passes 2 when the winning shot
/// passes the target.
@Suite struct RewardSumTests {
    /// A row of blue pegs and a target of 15 points: the shot that wins scores 20 or more, so it
    /// passes the target.
    static func level(target: Int) -> Level {
        let pegs = (0..<20).map { k in Peg(id: k + 1, kind: .blue, center: Vec2(153 + 26 * Double(k), 300)) }
        return Level(name: "Score", mode: .beatTheScore(targetScore: target, timeLimit: 600), pegs: pegs)
    }

    @Test func aWonBeatTheScoreEpisodeSumsToOnePlusScoreOverTarget() throws {
        var env = try PeggleEnv(config: config([Self.level(target: 15)]))
        _ = try env.reset(seed: 1)
        var total: Float = 0
        var last: GameStatus?
        while !env.isDone {
            // Each shot: the aim whose shot, tried on a copy, earns the most.
            let aims = stride(from: -0.5, through: 0.5, by: 0.05)
            let best = try aims.max { a, b in
                var ca = env, cb = env
                return try ca.step(a).reward < cb.step(b).reward
            }!
            let s = try env.step(best)
            total += s.reward
            last = s.info.status
        }
        let game = try #require(env.game)
        try #require(last == .won, "a one-step search should score 15 points on a row of blue pegs")
        #expect(game.score > 15)  // points come in tens
        #expect(abs(total - Float(1 + Double(game.score) / 15)) < 1e-5)
        #expect(total > 2)
    }
}
