import PeggleGame
import PeggleLevel
import PeggleUtilities

/// Plays whole games with an agent and aim noise.
public enum Episode {
    /// The default shot cap: classic games end long before it unless free balls keep coming.
    public static let defaultMaxShots = 200

    /// Plays one game of `level` (validated and built for this game alone; to play many games
    /// of one level, prepare it once and use `play(_:prepared:seed:sigma:maxShots:firstChoice:)`).
    public static func play(_ agent: some Agent, level: Level, rules: Rules = Rules(), seed: UInt64,
                            sigma: Double = 0, maxShots: Int = defaultMaxShots) throws(LevelIssue) -> PlayedGame {
        play(agent, prepared: try PreparedLevel(level, rules: rules), seed: seed, sigma: sigma, maxShots: maxShots)
    }

    /// Plays one game of a prepared level. `seed` alone fixes everything: the game's random
    /// events, the agent's stream and the aim noise each get their own generator derived from it,
    /// so the same seed, agent and sigma give the same game on any thread.
    /// - Parameters:
    ///   - sigma: aim noise, radians: a normal variate times sigma is added to every chosen angle
    ///     (then clamped to the aim range). It models a less precise player.
    ///   - firstChoice: the agent's first choice when the caller already knows it (radians, before
    ///     noise). Only for agents with `choiceIgnoresRandomStream`: every game of a level starts
    ///     from the same board, so such an agent makes the same first choice at a given sigma in
    ///     every game, and a rater computes it once.
    public static func play(_ agent: some Agent, prepared: PreparedLevel, seed: UInt64, sigma: Double = 0,
                            maxShots: Int = defaultMaxShots, firstChoice: Double? = nil) -> PlayedGame {
        precondition(sigma >= 0 && sigma.isFinite, "sigma must be a finite number >= 0")
        precondition(firstChoice == nil || agent.choiceIgnoresRandomStream, "a first choice given for an agent that draws randomness")
        let seeds = EpisodeSeeds(episode: seed)  // shared with `PreparedLevel.replay`
        var game = prepared.newGame(seed: seeds.game)
        var agentRNG = SeededGenerator(seed: seeds.agent)
        var noise = SeededGenerator(seed: seeds.noise)
        let rules = prepared.rules
        var log: [PlayedShot] = []
        while !game.isOver && game.shotsTaken < maxShots {
            let chosen: Double
            if game.shotsTaken == 0, let firstChoice {
                chosen = firstChoice
            } else {
                chosen = agent.choose(game, context: ShotContext(shots: game.shotsTaken, maxShots: maxShots, sigma: sigma),
                                      rng: &agentRNG)
            }
            // One variate per shot even at sigma 0, so the noise stream lines up across sigmas.
            let z = noise.nextGaussian()
            let limit = rules.maxAim
            let angle = min(max(chosen + sigma * z, -limit), limit)
            let r: ShotResult
            do { r = try game.shoot(angle: angle) } catch {
                preconditionFailure("agent \(agent.kind.rawValue) aimed \(chosen): \(error)")
            }
            log.append(PlayedShot(index: log.count, chosen: chosen, angle: angle, hits: r.hits, points: r.points,
                                  freeBalls: r.freeBalls, caught: r.caught, orangeCleared: r.orangeCleared,
                                  seconds: r.duration))
        }
        var used = game.shotsTaken
        if case let .classic(c) = prepared.level.mode { used = c.balls - game.ballsLeft }
        return PlayedGame(levelHash: prepared.hash, levelName: prepared.level.name, agentKind: agent.kind,
                          agentLabel: agent.label, seed: seed, sigma: sigma, status: game.status, score: game.score,
                          shots: game.shotsTaken, orangeCleared: game.orangeCleared, orangeTotal: game.orangeTotal,
                          ballsUsed: used, gameSeconds: game.elapsed, shotLog: log)
    }

    /// The first choice of `agent` on `prepared` at aim noise `sigma`: what every game's first
    /// shot chooses when the agent ignores its random stream (see `play`'s `firstChoice`).
    public static func firstChoice(_ agent: some Agent, prepared: PreparedLevel, sigma: Double,
                                   maxShots: Int = defaultMaxShots) -> Double {
        precondition(agent.choiceIgnoresRandomStream, "the first choice of an agent that draws randomness depends on the seed")
        var unused = SeededGenerator(seed: 0)
        return agent.choose(prepared.start, context: ShotContext(shots: 0, maxShots: maxShots, sigma: sigma), rng: &unused)
    }
}
