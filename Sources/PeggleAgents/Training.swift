import PeggleGame
import PeggleLevel
import PeggleUtilities

/// Settings of a cross-entropy-method run. Everything here except `iterations` and `threads` must
/// match to resume a saved run (more iterations extend it; threads never change a result).
public struct TrainingConfig: Sendable, Equatable {
    /// The training levels, in order.
    public var levels: [Level]
    /// Seeds the whole run: population draws and episode seeds of every iteration.
    public var seed: UInt64 = 0
    /// CEM iterations to reach.
    public var iterations: Int = 40
    /// Weight vectors sampled per iteration.
    public var population: Int = 32
    /// Episodes per level that every member plays each iteration (the same seeds for all members).
    public var episodesPerLevel: Int = 2
    /// Share of the population whose weights set the next distribution.
    public var eliteFraction: Double = 0.25
    /// Aim noise of the training episodes, radians.
    public var sigma: Double = 0
    /// Fitness = mean orange-cleared fraction + `winBonus` x win rate.
    public var winBonus: Double = 0.5
    /// Standard deviation of every weight at the start.
    public var initialStd: Double = 1
    /// Variance added to the elite's at iteration k, times `noiseDecay`^k: keeps CEM from
    /// collapsing onto the first lucky elite (Szita and Lőrincz's noisy CEM).
    public var extraNoise: Double = 0.25
    public var noiseDecay: Double = 0.9
    /// Episodes per level of the mean policy after each iteration, for the learning curve.
    public var curveEpisodesPerLevel: Int = 4
    /// Episodes per level of the final evaluation (seeds 0..<n, sigma 0).
    public var evalEpisodesPerLevel: Int = 100
    public var maxShots: Int = Episode.defaultMaxShots
    public var encoder = AimEncoder()
    /// The agent's jitter (fraction of half a bin).
    public var jitter: Double = 0.5
    public var rules = Rules()

    public init(levels: [Level]) { self.levels = levels }

    /// Elite members per iteration (at least 2, so the spread is defined).
    public var eliteCount: Int { min(population, max(2, Int((eliteFraction * Double(population)).rounded(.up)))) }

    /// The first problem with these settings, naming the field and value.
    public var problem: String? {
        if levels.isEmpty { return "levels: no training levels" }
        if iterations < 1 { return "iterations: \(iterations) (must be at least 1)" }
        if population < 2 { return "population: \(population) (must be at least 2)" }
        if episodesPerLevel < 1 { return "episodes: \(episodesPerLevel) (must be at least 1)" }
        if !(sigma >= 0 && sigma.isFinite) { return "sigma: \(sigma) (must be a finite number >= 0)" }
        if !(eliteFraction > 0 && eliteFraction <= 1) { return "elite: \(eliteFraction) (must be in (0, 1])" }
        if curveEpisodesPerLevel < 0 { return "curve-episodes: \(curveEpisodesPerLevel) (must be >= 0)" }
        if evalEpisodesPerLevel < 1 { return "eval-episodes: \(evalEpisodesPerLevel) (must be at least 1)" }
        if maxShots < 1 { return "max-shots: \(maxShots) (must be at least 1)" }
        return nil
    }
}

/// One row of the learning curve.
public struct CurvePoint: Sendable, Equatable, Codable {
    /// 1-based iteration just finished.
    public var iteration: Int
    /// Fitness of the population: mean, best member, mean of the elite.
    public var meanFitness: Double, bestFitness: Double, eliteFitness: Double
    /// The updated mean policy on the curve episodes (sigma 0).
    public var evalWinRate: Double, evalOrangeFraction: Double
    /// Wall-clock seconds since training began (the tool fills it in; 0 from the library).
    public var seconds: Double

    enum CodingKeys: String, CodingKey {
        case iteration, seconds
        case meanFitness = "mean_fitness", bestFitness = "best_fitness", eliteFitness = "elite_fitness"
        case evalWinRate = "eval_win_rate", evalOrangeFraction = "eval_orange_fraction"
    }
}

/// The optimizer's whole state: enough to continue bit for bit. The random stream of iteration
/// k is a function of the config's seed and k alone, so the iteration count is its state.
public struct CEMState: Sendable, Equatable, Codable {
    /// Iterations finished.
    public var iteration: Int
    /// Mean and standard deviation of each weight.
    public var mean: [Double]
    public var std: [Double]
    public var curve: [CurvePoint]

    /// The policy the state stands for: the distribution's mean.
    public func agent(_ config: TrainingConfig) -> LinearAgent {
        LinearAgent(weights: mean.map { Float($0) }, encoder: config.encoder, jitter: config.jitter)
    }
}

/// How a policy did on a set of levels.
public struct Evaluation: Sendable, Equatable, Codable {
    public struct PerLevel: Sendable, Equatable, Codable {
        public var name: String
        public var hash: String
        public var winRate: Double
        public var orangeFraction: Double
        enum CodingKeys: String, CodingKey {
            case name, hash
            case winRate = "win_rate", orangeFraction = "orange_fraction"
        }
    }
    /// Aim noise, radians.
    public var sigma: Double
    public var episodesPerLevel: Int
    /// All episodes played (levels x episodes per level).
    public var episodes: Int
    /// Means over every episode (each level weighs the same).
    public var winRate: Double
    public var orangeFraction: Double
    public var levels: [PerLevel]

    enum CodingKeys: String, CodingKey {
        case sigma, episodes, levels
        case episodesPerLevel = "episodes_per_level", winRate = "win_rate", orangeFraction = "orange_fraction"
    }
}

/// Cross-entropy-method training of `LinearAgent` weights.
///
/// Each iteration draws `population` weight vectors from a diagonal Gaussian, plays every member
/// on the same episodes (each level, `episodesPerLevel` seeds drawn for the iteration: common
/// random numbers, so members differ by their weights and not by their luck), and refits the mean
/// and spread to the best `eliteCount`. The members' games run in lockstep: each round encodes
/// every unfinished game on worker threads, scores all their feature rows against all members'
/// weights in one `cblas_sgemm`, and shoots each game's best bin on worker threads. Games are
/// independent and written by index, so the thread count never changes a result.
public enum Trainer {
    /// The state before the first iteration.
    public static func start(_ config: TrainingConfig) -> CEMState {
        let f = AimEncoder.featureCount
        return CEMState(iteration: 0, mean: [Double](repeating: 0, count: f),
                        std: [Double](repeating: config.initialStd, count: f), curve: [])
    }

    /// The generator of iteration `k` (0-based), a function of the seed and k alone.
    static func generator(seed: UInt64, iteration k: Int) -> SeededGenerator {
        SeededGenerator(seed: seed ^ (UInt64(k + 1) &* 0x9E37_79B9_7F4A_7C15))
    }

    /// Runs one iteration and returns its curve point (seconds 0); `state` moves on by one.
    @discardableResult
    public static func iterate(_ state: inout CEMState, _ config: TrainingConfig, threads: Int = 1) -> CurvePoint {
        precondition(config.problem == nil, config.problem ?? "")
        let f = AimEncoder.featureCount, p = config.population
        var rng = generator(seed: config.seed, iteration: state.iteration)
        // Population, member-major: z first, so the episode seeds do not depend on the width.
        var members = [Double](repeating: 0, count: p * f)
        for m in 0..<p {
            for k in 0..<f { members[m * f + k] = state.mean[k] + state.std[k] * rng.nextGaussian() }
        }
        var episodes: [(level: Int, seed: UInt64)] = []
        for l in config.levels.indices {
            for _ in 0..<config.episodesPerLevel { episodes.append((l, rng.next())) }
        }
        let results = playPopulation(weights: members.map { Float($0) }, members: p, episodes: episodes,
                                     config: config, threads: threads)
        // Fitness per member: the mean over its episodes.
        var fitness = [Double](repeating: 0, count: p)
        for m in 0..<p {
            var sum = 0.0
            for e in episodes.indices {
                let r = results[m * episodes.count + e]
                sum += r.orangeFraction + (r.won ? config.winBonus : 0)
            }
            fitness[m] = sum / Double(episodes.count)
        }
        // Elite: highest fitness, lower member index first on a tie (a total order).
        let order = (0..<p).sorted { fitness[$0] != fitness[$1] ? fitness[$0] > fitness[$1] : $0 < $1 }
        let elite = Array(order.prefix(config.eliteCount))
        let extra = config.extraNoise * power(config.noiseDecay, state.iteration)
        for k in 0..<f {
            var mean = 0.0
            for m in elite { mean += members[m * f + k] }
            mean /= Double(elite.count)
            var variance = 0.0
            for m in elite { variance += (members[m * f + k] - mean) * (members[m * f + k] - mean) }
            variance /= Double(elite.count)
            state.mean[k] = mean
            state.std[k] = (variance + extra).squareRoot()
        }
        state.iteration += 1
        var point = CurvePoint(iteration: state.iteration, meanFitness: fitness.reduce(0, +) / Double(p),
                               bestFitness: fitness[order[0]],
                               eliteFitness: elite.map { fitness[$0] }.reduce(0, +) / Double(elite.count),
                               evalWinRate: 0, evalOrangeFraction: 0, seconds: 0)
        if config.curveEpisodesPerLevel > 0 {
            // Seeds far from the final evaluation's 0..<n, the same every iteration.
            let e = evaluate(state.agent(config), levels: config.levels, episodesPerLevel: config.curveEpisodesPerLevel,
                             firstSeed: 1 << 40, sigma: 0, rules: config.rules, maxShots: config.maxShots, threads: threads)
            point.evalWinRate = e.winRate
            point.evalOrangeFraction = e.orangeFraction
        }
        state.curve.append(point)
        return point
    }

    /// The final evaluation of a run: the mean policy, seeds 0..<evalEpisodesPerLevel, sigma 0.
    public static func finalEvaluation(_ state: CEMState, _ config: TrainingConfig, threads: Int = 1) -> Evaluation {
        evaluate(state.agent(config), levels: config.levels, episodesPerLevel: config.evalEpisodesPerLevel,
                 firstSeed: 0, sigma: 0, rules: config.rules, maxShots: config.maxShots, threads: threads)
    }

    /// Plays `agent` on every level with seeds `firstSeed..<firstSeed + episodesPerLevel` through
    /// `Episode.play`, in parallel.
    public static func evaluate(_ agent: some Agent, levels: [Level], episodesPerLevel: Int, firstSeed: UInt64 = 0,
                                sigma: Double = 0, rules: Rules = Rules(), maxShots: Int = Episode.defaultMaxShots,
                                threads: Int = 1) -> Evaluation {
        let n = episodesPerLevel
        // Each level is validated and built once; every game starts from a copy.
        let prepared = levels.map { level in
            do { return try PreparedLevel(level, rules: rules) } catch {
                preconditionFailure("level \(level.name) is not valid: \(error)")
            }
        }
        var outcome = [(won: Bool, orange: Double)](repeating: (false, 0), count: levels.count * n)
        outcome.withUnsafeMutableBufferPointer { out in
            let shared = SharedBuffer(out)
            Parallel.forEach(levels.count * n, threads: threads) { i in
                let r = Episode.play(agent, prepared: prepared[i / n], seed: firstSeed + UInt64(i % n), sigma: sigma,
                                     maxShots: maxShots)
                shared[i] = (r.won, r.orangeFraction)
            }
        }
        var per: [Evaluation.PerLevel] = []
        for (l, level) in levels.enumerated() {
            let slice = outcome[(l * n)..<((l + 1) * n)]
            per.append(.init(name: level.name, hash: level.contentHash,
                             winRate: Double(slice.filter(\.won).count) / Double(n),
                             orangeFraction: slice.map(\.orange).reduce(0, +) / Double(n)))
        }
        let total = Double(max(1, outcome.count))
        return Evaluation(sigma: sigma, episodesPerLevel: n, episodes: outcome.count,
                          winRate: Double(outcome.filter(\.won).count) / total,
                          orangeFraction: outcome.map(\.orange).reduce(0, +) / total, levels: per)
    }

    /// The outcome of one training game.
    public struct GameOutcome: Sendable, Equatable {
        public var won: Bool
        public var orangeFraction: Double

        package init(won: Bool, orangeFraction: Double) {
            self.won = won
            self.orangeFraction = orangeFraction
        }
    }

    /// Plays every member on every episode, in lockstep rounds with one `cblas_sgemm` per round.
    /// `weights` is `members` rows of `AimEncoder.featureCount`. Each game follows
    /// `Episode.play`'s seeding (game, agent and noise streams from the episode seed), so a game
    /// here is the episode `Episode.play(LinearAgent(member's weights), ...)` plays, up to the
    /// rounding of a score tie. Results are member-major: `[member * episodes.count + episode]`.
    public static func playPopulation(weights: [Float], members: Int, episodes: [(level: Int, seed: UInt64)],
                                      config: TrainingConfig, threads: Int = 1) -> [GameOutcome] {
        let f = AimEncoder.featureCount, bins = config.encoder.bins
        precondition(weights.count == members * f)
        let agent = LinearAgent(weights: [Float](repeating: 0, count: f), encoder: config.encoder, jitter: config.jitter)
        // Each level is validated and built once; every game starts from a copy.
        let prepared = config.levels.map { level in
            do { return try PreparedLevel(level, rules: config.rules) } catch {
                preconditionFailure("level \(level.name) is not valid: \(error)")
            }
        }
        var games: [BatchGame] = []
        games.reserveCapacity(members * episodes.count)
        for m in 0..<members {
            for e in episodes {
                // The same streams as `Episode.play`, so a training game is the game the agent plays.
                let seeds = EpisodeSeeds(episode: e.seed)
                let game = prepared[e.level].newGame(seed: seeds.game)
                games.append(BatchGame(game: game, agentRNG: SeededGenerator(seed: seeds.agent),
                                       noise: SeededGenerator(seed: seeds.noise), member: m))
            }
        }
        let sigma = config.sigma, maxShots = config.maxShots, encoder = config.encoder
        var features: [Float] = [], scores: [Float] = []
        while true {
            let active = games.indices.filter { !games[$0].done }
            if active.isEmpty { break }
            let rows = active.count * bins
            if features.count < rows * f { features = [Float](repeating: 0, count: rows * f) }
            if scores.count < rows * members { scores = [Float](repeating: 0, count: rows * members) }
            features.withUnsafeMutableBufferPointer { fp in
                games.withUnsafeMutableBufferPointer { gp in
                    let fs = SharedBuffer(fp), gs = SharedBuffer(gp)
                    Parallel.forEach(active.count, threads: threads) { k in
                        let row = UnsafeMutableBufferPointer(rebasing: fs.buffer[(k * bins * f)..<((k + 1) * bins * f)])
                        encoder.encode(gs[active[k]].game, into: row)
                    }
                }
            }
            features.withUnsafeBufferPointer { fp in
                weights.withUnsafeBufferPointer { wp in
                    scores.withUnsafeMutableBufferPointer { sp in
                        BLAS.scores(features: fp, rows: rows, width: f, weights: wp, members: members, into: sp)
                    }
                }
            }
            scores.withUnsafeBufferPointer { sp in
                games.withUnsafeMutableBufferPointer { gp in
                    let gs = SharedBuffer(gp), ss = sp
                    let scoresShared = SharedReadBuffer(ss)
                    Parallel.forEach(active.count, threads: threads) { k in
                        let block = UnsafeBufferPointer(rebasing: scoresShared.buffer[(k * bins * members)..<((k + 1) * bins * members)])
                        // In place: a copy of the game would share its physics buffers and make
                        // the shot duplicate them (copy-on-write).
                        Self.shoot(&gs.buffer[active[k]], scores: block, agent: agent, members: members,
                                   sigma: sigma, maxShots: maxShots)
                    }
                }
            }
        }
        return games.map {
            GameOutcome(won: $0.game.status == .won,
                        orangeFraction: $0.game.orangeTotal == 0 ? 1 : Double($0.game.orangeCleared) / Double($0.game.orangeTotal))
        }
    }

    /// One shot of a training game: its member's best bin, jitter, noise, as `Episode.play` does.
    static func shoot(_ g: inout BatchGame, scores: UnsafeBufferPointer<Float>, agent: LinearAgent, members: Int,
                      sigma: Double, maxShots: Int) {
        let best = LinearAgent.bestBin(scores, bins: agent.encoder.bins, stride: members, column: g.member)
        let limit = g.game.rules.maxAim
        let chosen = agent.aim(bin: best, maxAim: limit, rng: &g.agentRNG)
        let z = g.noise.nextGaussian()
        let angle = min(max(chosen + sigma * z, -limit), limit)
        do { _ = try g.game.shoot(angle: angle) } catch {
            preconditionFailure("training aimed \(angle): \(error)")
        }
        if g.game.isOver || g.game.shotsTaken >= maxShots { g.done = true }
    }

    struct BatchGame: Sendable {
        var game: GameState
        var agentRNG: SeededGenerator
        var noise: SeededGenerator
        var member: Int
        var done = false
    }
}

/// x^k for a whole k >= 0, by repeated multiplication (no libm: the same bits everywhere).
func power(_ x: Double, _ k: Int) -> Double {
    var r = 1.0
    for _ in 0..<max(0, k) { r *= x }
    return r
}

/// A buffer that parallel workers write at disjoint indices.
struct SharedBuffer<T>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<T>
    init(_ buffer: UnsafeMutableBufferPointer<T>) { self.buffer = buffer }
    subscript(i: Int) -> T {
        get { buffer[i] }
        nonmutating set { buffer[i] = newValue }
    }
}

/// A buffer that parallel workers only read.
struct SharedReadBuffer<T>: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<T>
    init(_ buffer: UnsafeBufferPointer<T>) { self.buffer = buffer }
}
