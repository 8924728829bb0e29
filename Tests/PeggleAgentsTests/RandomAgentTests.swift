import PeggleAgents
import PeggleGame
import PeggleLevel
import PeggleUtilities
import Testing

@Suite struct RandomAgentTests {
    @Test func coversTheAimRangeUniformlyAndIsSeeded() throws {
        let game = try GameState(level: Level(name: "empty", pegs: [Peg(id: 1, kind: .orange, center: .init(400, 300))], blocks: []), seed: 0)
        var a = SeededGenerator(seed: 5), b = SeededGenerator(seed: 5)
        let ctx = ShotContext(shots: 0, maxShots: 10)
        var xs: [Double] = []
        for _ in 0..<4000 {
            let x = RandomAgent().choose(game, context: ctx, rng: &a)
            #expect(x == RandomAgent().choose(game, context: ctx, rng: &b))
            #expect(abs(x) <= game.rules.maxAim)
            xs.append(x)
        }
        // Uniform on [-1.5, 1.5]: mean 0 (sd of the mean 0.014), a quarter in each quarter of the range.
        #expect(abs(xs.reduce(0, +) / Double(xs.count)) < 0.06)
        let lowQuarter = xs.filter { $0 < -0.75 }.count
        #expect(abs(Double(lowQuarter) / 4000 - 0.25) < 0.03)
    }
}
