import PeggleGame

/// One shot of an episode, as the store keeps it.
public struct ShotRecord: Sendable, Equatable {
    /// 0-based shot number.
    public var index: Int
    /// The agent's choice, radians, before noise.
    public var chosen: Double
    /// The angle fired: the choice plus aim noise, clamped to the aim range, radians.
    public var angle: Double
    public var hits: KindCounts
    public var points: Int
    /// Free balls this shot earned (bucket catches plus score thresholds).
    public var freeBalls: Int
    /// Balls caught by the bucket this shot.
    public var caught: Int
    public var orangeCleared: Int
    /// Game seconds the shot took.
    public var seconds: Double
}

/// How one game went.
public struct EpisodeResult: Sendable, Equatable {
    public var status: GameStatus
    public var won: Bool { status == .won }
    /// Stopped at the runner's shot cap with the game still going.
    public var truncated: Bool
    public var score: Int
    public var shots: Int
    public var orangeCleared: Int
    public var orangeTotal: Int
    /// Classic: balls the game cost, net of free balls (starting balls minus balls left).
    /// Other modes: shots taken.
    public var ballsUsed: Int
    /// Game time over all shots, seconds.
    public var gameSeconds: Double
    public var shotRecords: [ShotRecord]
    /// Orange pegs cleared over orange pegs on the level (1 when the level has none).
    public var orangeFraction: Double { orangeTotal == 0 ? 1 : Double(orangeCleared) / Double(orangeTotal) }
}

/// Plays whole games with an agent and aim noise.
public enum Episode {
    /// The default shot cap: classic games end long before it unless free balls keep coming.
    public static let defaultMaxShots = 200

    /// Plays one game of `level`. `seed` alone fixes everything: the game's random events, the
    /// agent's stream and the aim noise each get their own generator derived from it, so the same
    /// seed, agent and sigma give the same episode on any thread.
    /// - Parameter sigma: aim noise, radians: a normal variate times sigma is added to every
    ///   chosen angle (then clamped to the aim range). It models a less precise player.
    public static func play(_ agent: some Agent, level: Level, rules: Rules = Rules(), seed: UInt64,
                            sigma: Double = 0, maxShots: Int = defaultMaxShots) throws(LevelFormatError) -> EpisodeResult {
        precondition(sigma >= 0 && sigma.isFinite, "sigma must be a finite number >= 0")
        var master = SeededGenerator(seed: seed)
        let gameSeed = master.next(), agentSeed = master.next(), noiseSeed = master.next()
        var game = try GameState(level: level, rules: rules, seed: gameSeed)
        var agentRNG = SeededGenerator(seed: agentSeed)
        var noise = SeededGenerator(seed: noiseSeed)
        var records: [ShotRecord] = []
        while !game.isOver && game.shotsTaken < maxShots {
            let chosen = agent.choose(game, context: ShotContext(shots: game.shotsTaken, maxShots: maxShots, sigma: sigma), rng: &agentRNG)
            // One variate per shot even at sigma 0, so the noise stream lines up across sigmas.
            let z = noise.nextGaussian()
            let limit = rules.maxAim
            let angle = min(max(chosen + sigma * z, -limit), limit)
            let r: ShotResult
            do { r = try game.shoot(angle: angle) } catch {
                preconditionFailure("agent \(agent.kind) aimed \(chosen): \(error)")
            }
            records.append(ShotRecord(index: records.count, chosen: chosen, angle: angle, hits: r.hits, points: r.points,
                                      freeBalls: r.freeBalls, caught: r.caught, orangeCleared: r.orangeCleared,
                                      seconds: r.duration))
        }
        var used = game.shotsTaken
        if case let .classic(balls) = level.mode { used = balls - game.ballsLeft }
        return EpisodeResult(status: game.status, truncated: !game.isOver, score: game.score, shots: game.shotsTaken,
                             orangeCleared: game.orangeCleared, orangeTotal: game.orangeTotal, ballsUsed: used,
                             gameSeconds: game.elapsed, shotRecords: records)
    }
}
