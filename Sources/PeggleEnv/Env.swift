import PeggleGame
import PeggleGenerator
import PegglePhysics
import PeggleUtilities
import Synchronization

/// What a reset or step reports besides the observation (Gymnasium's `info`).
public struct EnvInfo: Sendable, Equatable, Codable {
    /// Index into the configured levels; with procedural levels, the level seed minus `startLevel`.
    public var level: Int = 0
    /// The level seed drawn from the range (procedural levels only).
    public var levelSeed: UInt64?
    /// The seed the generator made the level from: the level seed, or under a tier distribution
    /// the candidate the estimate chose (procedural levels only).
    public var generatorSeed: UInt64?
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
    public struct ShotInfo: Sendable, Equatable, Codable {
        /// Aim the action asked for, radians.
        public var angle: Double
        /// Aim the shot was fired at, radians: `angle` plus the aim noise, clamped to the aim
        /// range (`angle` itself without noise).
        public var firedAngle: Double
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
    /// The observation encoder `config` describes (built once).
    public let encoder: ObservationEncoder
    /// The action `config` describes.
    public let action: ActionMode
    /// A validated new game per level; an episode starts from a copy (cheap: copy on write).
    /// Empty with procedural levels.
    let fresh: [GameState]
    /// Number of levels configured (procedural: the number of level seeds, `Int.max` at most).
    public var levelCount: Int {
        if let p = config.procedural { return Int(min(p.seedCount, UInt64(Int.max))) }
        return fresh.count
    }
    /// Procedural levels with at most `GeneratedGames.limit` seeds: the new game of every level
    /// generated so far, shared by every copy of this environment (a vector's environments, its
    /// snapshots), so each level is generated once and later resets cost a copy.
    let generated: GeneratedGames?
    /// With the `aim` encoder, its traces of each kept level's board before the first shot.
    let startTraces: KeptStartTraces?
    /// The seed of the level being played (procedural levels only).
    public internal(set) var levelSeed: UInt64?
    public internal(set) var generatorSeed: UInt64?
    public internal(set) var game: GameState?
    public internal(set) var levelIndex = 0
    /// Shots taken in this episode.
    public internal(set) var shots = 0
    /// The episode ended (terminated or truncated); `step` needs a `reset` first.
    public internal(set) var isDone = false
    /// The latest shot of this episode (with its trajectory when recording), for rendering.
    public internal(set) var lastShot: ShotResult?
    var rng: SeededGenerator
    var cursor = 0
    /// The episode's aim-noise stream, seeded at reset from `rng` (only when `aimNoise` > 0),
    /// so an episode's noise does not depend on earlier episodes' lengths.
    var noise = SeededGenerator(seed: 0)
    /// The encoder's buffers: the `pixels` encoder's rasteriser and picture, the `aim` encoder's scene.
    var scratch = EncoderScratch()

    /// An environment whose generator starts from `seed` (until a seeded reset).
    public init(config: EnvConfig, seed: UInt64 = 0) throws(EnvError) {
        let encoder = config.observationEncoder
        if let p = config.procedural {
            guard config.levels.isEmpty else { throw EnvError(.badRequest, "give levels or procedural levels, not both") }
            if let problem = p.problem { throw EnvError(.badRequest, problem) }
            if p.distribution.isTier && config.tierScreen == nil { throw .noTierScreen(p.distribution) }
            if encoder.kind == .objects && encoder.maxObjects < LevelGenerator.maxObjects {
                throw EnvError(.badRequest, "max_objects is \(encoder.maxObjects); generated levels have up to "
                    + "\(LevelGenerator.maxObjects) pegs and blocks, so it must be at least \(LevelGenerator.maxObjects)")
            }
        } else {
            guard !config.levels.isEmpty else { throw EnvError(.badRequest, "no levels given") }
        }
        guard config.maxShots >= 1 else { throw EnvError(.badRequest, "max_shots must be at least 1") }
        guard EnvConfig.aimNoiseRange.contains(config.aimNoise) else {
            throw EnvError(.badRequest, "aim_noise is \(config.aimNoise); it must be in "
                + "\(EnvConfig.aimNoiseRange.lowerBound)...\(EnvConfig.aimNoiseRange.upperBound) radians")
        }
        if encoder.kind == .pixels {
            let w = encoder.pixelWidth, range = ObservationEncoder.pixelWidths
            guard range.contains(w) else {
                throw EnvError(.badRequest, "pixel_width is \(w); it must be in \(range.lowerBound)...\(range.upperBound) pixels")
            }
            guard config.rasterizer != nil else {
                throw EnvError(.badRequest, "the pixels encoder needs a rasteriser: set EnvConfig.rasterizer (PeggleDrawing's PixelRenderer())")
            }
        }
        if (config.action == .discrete || encoder.kind == .aim) && config.bins < 2 {
            throw EnvError(.badRequest, "bins is \(config.bins); a discrete action and the aim encoder need at least 2")
        }
        var games: [GameState] = []
        for level in config.levels {
            if let p = encoder.problem(with: level) { throw EnvError(.levelError, "level '\(level.name)': \(p)") }
            do {
                games.append(try GameState(level: level, rules: config.rules, seed: 0))
            } catch {
                throw EnvError(.levelError, "level '\(level.name)': \(error.description)")
            }
        }
        self.config = config
        self.encoder = encoder
        action = config.actionMode
        scratch = EncoderScratch(renderer: encoder.kind == .pixels ? config.rasterizer : nil)
        self.fresh = games
        self.rng = SeededGenerator(seed: seed)
        if let p = config.procedural, p.numLevels > 0, p.numLevels <= GeneratedGames.limit {
            generated = GeneratedGames()
        } else {
            generated = nil
        }
        startTraces = encoder.kind == .aim && config.keptLevels > 0 ? KeptStartTraces(limit: config.keptLevels) : nil
    }

    public var observationSpace: Space { encoder.space }
    public var actionSpace: Space { action.space }
    public var observationSize: Int { encoder.size }

    /// The aim (radians) `value` asks for, or nil if it is not in the action space. With the `aim`
    /// encoder, discrete action b aims at row b's angle (the encoder's bins, within its aim
    /// range); otherwise as `ActionMode.angle`.
    public func angle(for value: Double) -> Double? {
        guard let angle = action.angle(for: value, rules: config.rules) else { return nil }
        if encoder.kind == .aim, case .discrete = action { return encoder.aim.angle(bin: Int(value)) }
        return angle
    }

    /// Starts an episode. With a seed the generator restarts from it (and level cycling from the
    /// first level, or from level `seed mod levels` with `cycleStart` `.seed`), so the same seed gives the same episode; without one it continues. `level`
    /// forces a level index.
    /// With procedural levels, a seeded reset draws the level seed from the range (Procgen's
    /// order: always drawn, never cycled), and `level` k forces seed `startLevel + k`.
    @discardableResult
    public mutating func reset(seed: UInt64? = nil, level: Int? = nil,
                               into obs: UnsafeMutableBufferPointer<Float>) throws(EnvError) -> EnvInfo {
        if let level { try checkLevel(level) }
        if let seed {
            rng = SeededGenerator(seed: seed)
            cursor = config.cycleStart == .seed && !fresh.isEmpty ? Int(seed % UInt64(fresh.count)) : 0
        }
        let chosen: Int
        var g: GameState
        // The level's key among the kept start traces: its seed, or its file's index.
        let levelKey: UInt64
        if let p = config.procedural {
            let s = level.map { p.seed(ofIndex: $0) } ?? p.drawSeed(&rng)
            (g, generatorSeed) = try newGame(p, seed: s)
            chosen = Int(s - UInt64(p.startLevel))
            levelSeed = s
            levelKey = s
        } else {
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
            g = fresh[chosen]
            levelKey = UInt64(chosen)
        }
        // 63 bits, so the seed fits a signed 64-bit integer wherever it is reported (NumPy int64).
        let gameSeed = rng.next() >> 1
        g.reseed(gameSeed)
        // Draws only for the options that are on, after the game seed, so an environment without
        // them draws exactly what it always did.
        if config.bucketStart == .random { g.placeBucket(phase: rng.nextUnit()) }
        if config.aimNoise > 0 { noise = SeededGenerator(seed: rng.next()) }
        game = g
        let kept = startTraces?.traces(levelKey)
        if let kept { scratch.aimScene.start(from: kept) } else { scratch.aimScene.forgetTraces() }
        levelIndex = chosen
        shots = 0
        isDone = false
        lastShot = nil
        observe(into: obs)
        if kept == nil, let cache = startTraces, let traced = encoder.aim.startTraces(in: scratch.aimScene) {
            cache.keep(traced, levelKey)
        }
        var info = summary()
        info.gameSeed = gameSeed
        return info
    }

    /// Refuses a level index outside the configured levels (or level seeds).
    func checkLevel(_ level: Int) throws(EnvError) {
        if let p = config.procedural {
            guard level >= 0, UInt64(level) < p.seedCount else {
                let seeds = p.numLevels > 0 ? "\(p.startLevel)...\(p.seed(ofIndex: p.numLevels - 1))" : "\(p.startLevel) and up"
                throw EnvError(.badRequest, "level \(level) is outside 0..<\(p.seedCount) (the level seeds are \(seeds))")
            }
        } else if !fresh.indices.contains(level) {
            throw EnvError(.badRequest, "level \(level) is outside 0..<\(fresh.count)")
        }
    }

    /// A new game on the level of `seed`: generated, or kept from an earlier reset. A generated
    /// level is valid and fits the encoder (the generator's cap is checked at init).
    /// The new game of level seed `seed`, and the generator seed of its level.
    func newGame(_ p: ProceduralLevels, seed: UInt64) throws(EnvError) -> (GameState, UInt64) {
        if let kept = generated?.game(seed: seed) { return kept }
        let generatorSeed = try p.generatorSeed(ofSeed: seed, rules: config.rules, screen: config.tierScreen)
        let level = p.level(generatorSeed: generatorSeed, rules: config.rules)
        guard let g = try? GameState(level: level, rules: config.rules, seed: 0) else {
            preconditionFailure("LevelGenerator made an invalid level from seed \(generatorSeed): \(level.validate(rules: config.rules))")
        }
        generated?.keep(g, generatorSeed: generatorSeed, seed: seed)
        return (g, generatorSeed)
    }

    /// Takes one shot with `action` (see `ActionMode`).
    public mutating func step(_ action: Double, into obs: UnsafeMutableBufferPointer<Float>) throws(EnvError) -> StepOutcome {
        guard game != nil else { throw EnvError(.notReset, "call reset before step") }
        guard !isDone else { throw EnvError(.episodeOver, "the episode has ended; call reset") }
        guard let angle = angle(for: action) else {
            throw EnvError(.badAction, "action \(action) is not in the action space \(actionSpace)")
        }
        return shoot(angle: angle, into: obs)
    }

    /// Shoots at a valid angle (callers have checked the action and that an episode is running),
    /// plus the aim noise.
    mutating func shoot(angle: Double, into obs: UnsafeMutableBufferPointer<Float>) -> StepOutcome {
        let cleanBefore = game!.cleanShots
        var fired = angle
        if config.aimNoise > 0 {
            // As `Episode.play`: one variate per shot, then clamped to the aim range.
            let limit = config.rules.maxAim
            fired = min(max(angle + config.aimNoise * noise.nextGaussian(), -limit), limit)
        }
        // Shot in place, so the game's storage is not copied. The angle is in range and the game
        // is running: shoot cannot fail.
        let shot = (try? game!.shoot(angle: fired, recordTrajectory: config.recordTrajectory)) ?? ShotResult(angle: fired)
        let after = game!
        lastShot = shot
        shots += 1
        let terminated = after.isOver
        let truncated = !terminated && shots >= config.maxShots
        isDone = terminated || truncated
        observe(into: obs)
        var info = summary()
        info.shot = .init(angle: angle, firedAngle: fired, hits: shot.hits, points: shot.points, freeBalls: shot.freeBalls,
                          caught: shot.caught, trajectory: shot.trajectory)
        return StepOutcome(reward: config.reward.reward(cleanShotsBefore: cleanBefore, after: after, shot: shot),
                           terminated: terminated, truncated: truncated, info: info)
    }

    /// Writes the current observation (zeros before the first reset).
    public mutating func observe(into obs: UnsafeMutableBufferPointer<Float>) {
        guard game != nil else {
            for k in 0..<observationSize { obs[k] = 0 }
            return
        }
        // Borrowed in place: binding it to a local (`if let`) copied the whole game into a box.
        encoder.encode(game!, shots: shots, maxShots: config.maxShots, scratch: &scratch, into: obs)
    }

    func summary() -> EnvInfo {
        guard let g = game else { return EnvInfo() }
        return EnvInfo(level: levelIndex, levelSeed: levelSeed, generatorSeed: generatorSeed, score: g.score, ballsLeft: g.ballsLeft,
                       orangeLeft: g.orangeRemaining, shots: shots, status: g.status)
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
