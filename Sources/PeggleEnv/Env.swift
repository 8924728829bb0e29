import PeggleGame
import PegglePhysics

/// Why an environment call was refused. `code` is stable (the serve protocol sends it).
public struct EnvError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String
    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { "\(code): \(message)" }
}

/// How a level is chosen at each reset.
public enum LevelOrder: String, Sendable, CaseIterable {
    /// The levels in turn, from the first after a seeded reset.
    case cycle
    /// A level drawn from the environment's seeded generator.
    case random
}

/// Everything that defines an environment.
public struct EnvConfig: Sendable {
    /// Levels to play; each episode plays one.
    public var levels: [Level]
    public var order: LevelOrder = .cycle
    public var encoder = ObservationEncoder()
    public var reward: RewardKind = .progress
    public var action: ActionMode = .continuous
    /// Shots after which an episode is truncated (if not over before).
    public var maxShots = 100
    /// Record each shot's trajectory into `info` (for rendering; costs allocation).
    public var recordTrajectory = false
    public var rules = Rules()

    public init(levels: [Level]) { self.levels = levels }
}

/// What a reset or step reports besides the observation (Gymnasium's `info`).
public struct EnvInfo: Sendable, Equatable {
    /// Index into the configured levels.
    public var level: Int = 0
    /// Seed of the game played (drawn from the environment's generator).
    public var gameSeed: UInt64 = 0
    public var score = 0
    public var ballsLeft = 0
    public var orangeLeft = 0
    public var shots = 0
    public var status: GameStatus = .playing
    /// Set on steps (nil after a reset).
    public var shot: ShotInfo?

    /// What the shot did.
    public struct ShotInfo: Sendable, Equatable {
        /// Aim, radians.
        public var angle: Double
        public var hits: KindCounts
        public var points: Int
        public var freeBalls: Int
        public var caught: Int
        public var trajectory: Trajectory?
    }
}

/// What a step returns besides the observation.
public struct StepOutcome: Sendable, Equatable {
    public var reward: Float
    public var terminated: Bool
    public var truncated: Bool
    public var info: EnvInfo
}

/// One Peggle environment, Gymnasium style: `reset` starts an episode on a level, `step` takes
/// one shot. Observations are written into caller-owned buffers (`into:`); the array-returning
/// overloads are for convenience. A value: copying it is a snapshot.
public struct PeggleEnv: Sendable {
    public let config: EnvConfig
    /// A validated new game per level; an episode starts from a copy (cheap: copy on write).
    let fresh: [GameState]
    /// Number of levels configured.
    public var levelCount: Int { fresh.count }
    public private(set) var game: GameState?
    public private(set) var levelIndex = 0
    /// Shots taken in this episode.
    public private(set) var shots = 0
    /// The episode ended (terminated or truncated); `step` needs a `reset` first.
    public private(set) var isDone = false
    /// The latest shot of this episode (with its trajectory when recording), for rendering.
    public private(set) var lastShot: ShotResult?
    var rng: SeededGenerator
    var cursor = 0


    /// An environment whose generator starts from `seed` (until a seeded reset).
    public init(config: EnvConfig, seed: UInt64 = 0) throws(EnvError) {
        guard !config.levels.isEmpty else { throw EnvError("bad_request", "no levels given") }
        guard config.maxShots >= 1 else { throw EnvError("bad_request", "max_shots must be at least 1") }
        if case let .discrete(bins) = config.action, bins < 2 {
            throw EnvError("bad_request", "a discrete action needs at least 2 bins")
        }
        var games: [GameState] = []
        for level in config.levels {
            if let p = config.encoder.problem(with: level) { throw EnvError("level_error", "level '\(level.name)': \(p)") }
            do {
                games.append(try GameState(level: level, rules: config.rules, seed: 0))
            } catch {
                throw EnvError("level_error", "level '\(level.name)': \(error.description)")
            }
        }
        self.config = config
        self.fresh = games
        self.rng = SeededGenerator(seed: seed)
    }

    public var observationSpace: Space { config.encoder.space }
    public var actionSpace: Space { config.action.space }
    public var observationSize: Int { config.encoder.size }

    /// Starts an episode. With a seed the generator restarts from it (and level cycling from the
    /// first level), so the same seed gives the same episode; without one it continues. `level`
    /// forces a level index.
    @discardableResult
    public mutating func reset(seed: UInt64? = nil, level: Int? = nil,
                               into obs: UnsafeMutableBufferPointer<Float>) throws(EnvError) -> EnvInfo {
        if let level, !fresh.indices.contains(level) {
            throw EnvError("bad_request", "level \(level) is outside 0..<\(fresh.count)")
        }
        if let seed {
            rng = SeededGenerator(seed: seed)
            cursor = 0
        }
        let chosen: Int
        if let level {
            chosen = level
        } else {
            switch config.order {
            case .cycle:
                chosen = cursor % fresh.count
                cursor += 1
            case .random:
                chosen = rng.nextInt(below: fresh.count)
            }
        }
        // 63 bits, so the seed fits a signed 64-bit integer wherever it is reported (NumPy int64).
        let gameSeed = rng.next() >> 1
        var g = fresh[chosen]
        g.reseed(gameSeed)
        game = g
        levelIndex = chosen
        shots = 0
        isDone = false
        lastShot = nil
        observe(into: obs)
        var info = summary()
        info.gameSeed = gameSeed
        return info
    }

    /// Takes one shot with `action` (see `ActionMode`).
    public mutating func step(_ action: Double, into obs: UnsafeMutableBufferPointer<Float>) throws(EnvError) -> StepOutcome {
        guard game != nil else { throw EnvError("not_reset", "call reset before step") }
        guard !isDone else { throw EnvError("episode_over", "the episode has ended; call reset") }
        guard let angle = config.action.angle(for: action, rules: config.rules) else {
            throw EnvError("bad_action", "action \(action) is not in the action space \(config.action.space)")
        }
        return shoot(angle: angle, into: obs)
    }

    /// Shoots at a valid angle (callers have checked the action and that an episode is running).
    mutating func shoot(angle: Double, into obs: UnsafeMutableBufferPointer<Float>) -> StepOutcome {
        let cleanBefore = game!.cleanShots
        // Shot in place, so the game's storage is not copied. The angle is in range and the game
        // is running: shoot cannot fail.
        let shot = (try? game!.shoot(angle: angle, recordTrajectory: config.recordTrajectory)) ?? ShotResult(angle: angle)
        let after = game!
        lastShot = shot
        shots += 1
        let terminated = after.isOver
        let truncated = !terminated && shots >= config.maxShots
        isDone = terminated || truncated
        observe(into: obs)
        var info = summary()
        info.shot = .init(angle: angle, hits: shot.hits, points: shot.points, freeBalls: shot.freeBalls,
                          caught: shot.caught, trajectory: shot.trajectory)
        return StepOutcome(reward: config.reward.reward(cleanShotsBefore: cleanBefore, after: after, shot: shot),
                           terminated: terminated, truncated: truncated, info: info)
    }

    /// Writes the current observation (zeros before the first reset).
    public func observe(into obs: UnsafeMutableBufferPointer<Float>) {
        guard game != nil else {
            for k in 0..<observationSize { obs[k] = 0 }
            return
        }
        // Borrowed in place: binding it to a local (`if let`) copied the whole game into a box.
        config.encoder.encode(game!, shots: shots, maxShots: config.maxShots, into: obs)
    }

    func summary() -> EnvInfo {
        guard let g = game else { return EnvInfo() }
        return EnvInfo(level: levelIndex, score: g.score, ballsLeft: g.ballsLeft, orangeLeft: g.orangeRemaining,
                       shots: shots, status: g.status)
    }

    // MARK: Convenience (allocating)

    /// `reset` into a new array.
    public mutating func reset(seed: UInt64? = nil, level: Int? = nil) throws(EnvError) -> (observation: [Float], info: EnvInfo) {
        var obs = [Float](repeating: 0, count: observationSize)
        let info = try obs.withUnsafeMutableBufferPointer { (p) throws(EnvError) -> EnvInfo in
            try reset(seed: seed, level: level, into: p)
        }
        return (obs, info)
    }

    /// `step` into a new array.
    public mutating func step(_ action: Double) throws(EnvError)
        -> (observation: [Float], reward: Float, terminated: Bool, truncated: Bool, info: EnvInfo) {
        var obs = [Float](repeating: 0, count: observationSize)
        let out = try obs.withUnsafeMutableBufferPointer { (p) throws(EnvError) -> StepOutcome in
            try step(action, into: p)
        }
        return (obs, out.reward, out.terminated, out.truncated, out.info)
    }
}
