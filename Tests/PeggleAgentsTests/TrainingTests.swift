import Foundation
import PeggleAgents
import PeggleEnv
import PeggleGame
import PeggleUtilities
import Testing

@Suite struct TrainingTests {
    /// A run small enough for a debug build: two levels, four members, one episode each.
    func tinyConfig() throws -> TrainingConfig {
        var config = TrainingConfig(levels: [try bundledLevel("first-steps.json"), try bundledLevel("zombie-night.json")])
        config.seed = 17
        config.iterations = 3
        config.population = 4
        config.episodesPerLevel = 1
        config.curveEpisodesPerLevel = 1
        config.evalEpisodesPerLevel = 1
        config.maxShots = 30
        return config
    }

    func run(_ config: TrainingConfig, iterations: Int, threads: Int) -> CEMState {
        var state = Trainer.start(config)
        for _ in 0..<iterations { Trainer.iterate(&state, config, threads: threads) }
        return state
    }

    @Test func sameSeedSameWeightsWhateverTheThreadCount() throws {
        let config = try tinyConfig()
        let one = run(config, iterations: 2, threads: 1)
        let two = run(config, iterations: 2, threads: 2)
        let five = run(config, iterations: 2, threads: 5)
        #expect(one.mean.map(\.bitPattern) == two.mean.map(\.bitPattern))
        #expect(one.mean.map(\.bitPattern) == five.mean.map(\.bitPattern))
        #expect(one.std.map(\.bitPattern) == five.std.map(\.bitPattern))
        #expect(one.curve == five.curve)
        #expect(one.iteration == 2 && one.curve.count == 2)
        // The run moved: CEM refitted the distribution to its elite.
        #expect(one.mean != Trainer.start(config).mean)
        var other = config
        other.seed = 18
        #expect(run(other, iterations: 2, threads: 1).mean != one.mean)
    }

    @Test func resumingFromTheSavedDocumentEqualsAnUninterruptedRun() throws {
        let config = try tinyConfig()
        let straight = run(config, iterations: 3, threads: 2)
        let two = run(config, iterations: 2, threads: 1)
        // Through the file's JSON text, as `peggle train` saves and reloads it.
        let text = try PolicyDocument(config: config, files: ["a.json", "b.json"], state: two, evaluation: nil).json
        let saved = try PolicyDocument.decode(Data(text.utf8), path: "state.json")
        #expect(saved.complete == false)
        var resumed = try #require(saved.state)
        #expect(resumed == two)
        Trainer.iterate(&resumed, config, threads: 2)
        #expect(resumed.mean.map(\.bitPattern) == straight.mean.map(\.bitPattern))
        #expect(resumed.std.map(\.bitPattern) == straight.std.map(\.bitPattern))
        #expect(resumed.agent(config).weightsHash == straight.agent(config).weightsHash)
    }

    @Test func batchedGamesPlayTheEpisodesTheAgentPlays() throws {
        let config = try tinyConfig()
        var rng = SeededGenerator(seed: 3)
        let members = 3, f = AimEncoder.featureCount
        let weights = (0..<(members * f)).map { _ in Float(rng.nextGaussian()) }
        let episodes: [(level: Int, seed: UInt64)] = [(0, 5), (1, 6), (1, 7)]
        let batch = Trainer.playPopulation(weights: weights, members: members, episodes: episodes, config: config, threads: 2)
        #expect(batch.count == members * episodes.count)
        for m in 0..<members {
            let agent = LinearAgent(weights: Array(weights[(m * f)..<((m + 1) * f)]))
            for (e, ep) in episodes.enumerated() {
                let r = try Episode.play(agent, level: config.levels[ep.level], seed: ep.seed, maxShots: config.maxShots)
                #expect(batch[m * episodes.count + e] == Trainer.GameOutcome(won: r.won, orangeFraction: r.orangeFraction),
                        "member \(m) episode \(e)")
            }
        }
    }

    @Test func settingsProblemsNameTheFieldAndValue() throws {
        var c = try tinyConfig()
        #expect(c.problem == nil)
        c.population = 0
        #expect(c.problem == "population: 0 (must be at least 2)")
        c = try tinyConfig()
        c.iterations = 0
        #expect(c.problem == "iterations: 0 (must be at least 1)")
        c = try tinyConfig()
        c.episodesPerLevel = 0
        #expect(c.problem == "episodes: 0 (must be at least 1)")
        c = try tinyConfig()
        c.sigma = -0.1
        #expect(c.problem == "sigma: -0.1 (must be a finite number >= 0)")
    }

    @Test func evaluationAveragesEveryEpisodeAndNamesEachLevel() throws {
        let levels = [singleOrangeLevel(), try bundledLevel("first-steps.json")]
        var w = [Float](repeating: 0, count: AimEncoder.featureCount)
        w[0] = 1
        let e = Trainer.evaluate(LinearAgent(weights: w), levels: levels, episodesPerLevel: 3, threads: 2)
        #expect(e.episodes == 6 && e.episodesPerLevel == 3 && e.sigma == 0)
        #expect(e.levels.map(\.name) == ["one orange", "First Steps"])
        #expect(e.levels[0].winRate == 1 && e.levels[0].orangeFraction == 1)
        #expect(abs(e.orangeFraction - (e.levels[0].orangeFraction + e.levels[1].orangeFraction) / 2) < 1e-12)
        let r0 = try Episode.play(LinearAgent(weights: w), level: levels[1], seed: 0)
        let r1 = try Episode.play(LinearAgent(weights: w), level: levels[1], seed: 1)
        let r2 = try Episode.play(LinearAgent(weights: w), level: levels[1], seed: 2)
        #expect(abs(e.levels[1].orangeFraction - (r0.orangeFraction + r1.orangeFraction + r2.orangeFraction) / 3) < 1e-12)
    }
}
