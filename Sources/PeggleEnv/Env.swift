import Synchronization
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

/// Where a seeded reset starts the `cycle` order.
public enum CycleStart: String, Sendable, CaseIterable {
    /// At the first level, whatever the seed (so `reset(seed: k)` every episode always plays
    /// level 0).
    case first
    /// At level `seed mod levels`: `reset(seed: k)` for k = 0, 1, 2... plays every level in
    /// turn, and a vector's environment i (seeded `s + i`) starts at level `(s + i) mod levels`.
    case seed
}

/// Where the bucket is when an episode starts.
public enum BucketStart: String, Sendable, CaseIterable {
    /// Where the rules start it: the board centre, moving right (every episode alike).
    case centre
    /// A phase of its back-and-forth cycle drawn from the environment's seeded generator
    /// (`GameState.placeBucket(phase:)`): a uniform place along its track, either direction.
    case random
}

/// Levels generated from seeds, as Procgen draws them: each episode plays the level of a seed
/// drawn by the environment's generator from [startLevel, startLevel + numLevels), or from
/// [startLevel, 2^63) when `numLevels` is 0 (unlimited). Disjoint ranges are disjoint level sets:
/// train on one, test on another.
public struct ProceduralLevels: Sendable, Equatable {
    /// How many level seeds; 0 is unlimited.
    public var numLevels: Int
    /// The first level seed, 0 or more.
    public var startLevel: Int
    /// Procgen's `distribution_mode`: easy or hard.
    public var distribution: LevelDistribution
    /// The templates levels are drawn from; a seed's template is fixed by the seed
    /// (`LevelGenerator.template(forSeed:among:)`), so two template sets split levels by layout.
    public var templates: [LevelTemplate]
    /// Replaces every generated level's own mode, when set.
    public var mode: GameMode?

    public init(numLevels: Int = 0, startLevel: Int = 0, distribution: LevelDistribution = .hard,
                templates: [LevelTemplate] = LevelTemplate.allCases, mode: GameMode? = nil) {
        self.numLevels = numLevels
        self.startLevel = startLevel
        self.distribution = distribution
        self.templates = templates
        self.mode = mode
    }

    /// Level seeds are below this: 2^63, so every seed fits a signed 64-bit integer (NumPy int64).
    public static let seedLimit = UInt64(1) << 63

    /// Why these settings cannot make levels, if they cannot.
    public var problem: String? {
        if numLevels < 0 { return "num_levels is \(numLevels); it must be 0 (unlimited) or more" }
        if startLevel < 0 { return "start_level is \(startLevel); it must be 0 or more" }
        if UInt64(startLevel) + UInt64(numLevels) > Self.seedLimit {
            return "start_level + num_levels is \(UInt64(startLevel) + UInt64(numLevels)); level seeds must stay below 2^63"
        }
        if templates.isEmpty { return "no templates to draw levels from" }
        return nil
    }

    /// How many level seeds there are: `numLevels`, or all seeds from `startLevel` below 2^63.
    public var seedCount: UInt64 { numLevels > 0 ? UInt64(numLevels) : Self.seedLimit - UInt64(startLevel) }

    /// The seed of level index `k` (0-based within the range).
    public func seed(ofIndex k: Int) -> UInt64 { UInt64(startLevel) + UInt64(k) }

    /// A level seed drawn from the range with `rng`.
    public func drawSeed(_ rng: inout SeededGenerator) -> UInt64 {
        let n = seedCount
        // The range holds at most 2^63 seeds: 63 random bits cover it exactly; fewer, an unbiased draw.
        let offset = n == Self.seedLimit ? rng.next() >> 1 : UInt64(rng.nextInt(below: Int(n)))
        return UInt64(startLevel) + offset
    }

    /// The template of level seed `seed`.
    public func template(ofSeed seed: UInt64) -> LevelTemplate {
        LevelGenerator.template(forSeed: seed, among: templates)
    }

    /// The level of `seed` (with `mode` if set), generated under `rules` (the defaults unless a
    /// caller changed them).
    public func level(seed: UInt64, rules: Rules = Rules()) -> Level {
        var l = LevelGenerator.generate(seed: seed, distribution: distribution, template: template(ofSeed: seed), rules: rules)
        if let mode { l.mode = mode }
        return l
    }

    /// The name of the level of `seed` ("Arcs 42 (hard)").
    public func name(ofSeed seed: UInt64) -> String {
        LevelGenerator.name(seed: seed, distribution: distribution, template: template(ofSeed: seed))
    }
}

/// The new games of generated levels, by level seed, shared between the copies of an
/// environment. A level is a pure function of its seed, so whether a reset finds its game here or
/// generates it changes nothing but the time it takes.
final class GeneratedGames: Sendable {
    /// Most level seeds whose games are kept: at the generator's largest level a new game holds
    /// about 48 KiB, so 1,000 hold about 47 MiB (counted in the serve memory budget).
    static let limit = 1000
    private let games = Mutex<[UInt64: GameState]>([:])

    func game(seed: UInt64) -> GameState? { games.withLock { $0[seed] } }

    func keep(_ game: GameState, seed: UInt64) {
        games.withLock { if $0.count < Self.limit { $0[seed] = game } }
    }
}

/// Everything that defines an environment.
public struct EnvConfig: Sendable {
    /// Levels to play; each episode plays one. Empty when `procedural` is set.
    public var levels: [Level]
    /// Levels generated from seeds instead of `levels`.
    public var procedural: ProceduralLevels?
    public var order: LevelOrder = .cycle
    /// Where a seeded reset starts the `cycle` order.
    public var cycleStart = CycleStart.first
    public var encoder = ObservationEncoder()
    public var reward: RewardKind = .progress
    public var action: ActionMode = .continuous
    /// Shots after which an episode is truncated (if not over before).
    public var maxShots = 100
    /// Record each shot's trajectory into `info` (for rendering; costs allocation).
    public var recordTrajectory = false
    /// Aim noise, radians: the standard deviation of a Gaussian added to every shot's aim (then
    /// clamped to the aim range), as the rater's `sigma` (`Episode.play`). 0: shots go exactly
    /// where the action aims. Within `aimNoiseRange`.
    public var aimNoise = 0.0
    /// Where the bucket starts each episode.
    public var bucketStart = BucketStart.centre
    public var rules = Rules()
    /// What the `pixels` encoder draws with (PeggleAnalytics' `PixelRenderer()`); required by that
    /// encoder, unused by the others. Each environment draws with its own copy.
    public var rasterizer: (any BoardRasterizer)?

    /// The aim noises an environment takes, radians (the rater measures sigma50 up to 1.0).
    public static let aimNoiseRange = 0.0...1.0

    public init(levels: [Level]) { self.levels = levels }

    /// Procedural levels (see `ProceduralLevels`).
    public init(procedural: ProceduralLevels) {
        levels = []
        self.procedural = procedural
    }

    /// The most pegs plus blocks a level of this configuration has.
    public var largestLevel: Int {
        procedural != nil ? LevelGenerator.maxObjects : levels.map { $0.pegs.count + $0.blocks.count }.max() ?? 0
    }
}

/// What a reset or step reports besides the observation (Gymnasium's `info`).
public struct EnvInfo: Sendable, Equatable {
    /// Index into the configured levels; with procedural levels, the level seed minus `startLevel`.
    public var level: Int = 0
    /// The seed the level was generated from (procedural levels only).
    public var levelSeed: UInt64?
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
    /// The seed of the level being played (procedural levels only).
    public private(set) var levelSeed: UInt64?
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
    /// The episode's aim-noise stream, seeded at reset from `rng` (only when `aimNoise` > 0),
    /// so an episode's noise does not depend on earlier episodes' lengths.
    var noise = SeededGenerator(seed: 0)
    /// The `pixels` encoder's rasteriser and picture (empty for the other encoders).
    var raster = PixelRaster()

    /// An environment whose generator starts from `seed` (until a seeded reset).
    public init(config: EnvConfig, seed: UInt64 = 0) throws(EnvError) {
        if let p = config.procedural {
            guard config.levels.isEmpty else { throw EnvError("bad_request", "give levels or procedural levels, not both") }
            if let problem = p.problem { throw EnvError("bad_request", problem) }
            if config.encoder.kind == .objects && config.encoder.maxObjects < LevelGenerator.maxObjects {
                throw EnvError("bad_request", "max_objects is \(config.encoder.maxObjects); generated levels have up to "
                    + "\(LevelGenerator.maxObjects) pegs and blocks, so it must be at least \(LevelGenerator.maxObjects)")
            }
        } else {
            guard !config.levels.isEmpty else { throw EnvError("bad_request", "no levels given") }
        }
        guard config.maxShots >= 1 else { throw EnvError("bad_request", "max_shots must be at least 1") }
        guard EnvConfig.aimNoiseRange.contains(config.aimNoise) else {
            throw EnvError("bad_request", "aim_noise is \(config.aimNoise); it must be in "
                + "\(EnvConfig.aimNoiseRange.lowerBound)...\(EnvConfig.aimNoiseRange.upperBound) radians")
        }
        if config.encoder.kind == .pixels {
            let w = config.encoder.pixelWidth, range = ObservationEncoder.pixelWidths
            guard range.contains(w) else {
                throw EnvError("bad_request", "pixel_width is \(w); it must be in \(range.lowerBound)...\(range.upperBound) pixels")
            }
            guard config.rasterizer != nil else {
                throw EnvError("bad_request", "the pixels encoder needs a rasteriser: set EnvConfig.rasterizer (PeggleAnalytics' PixelRenderer())")
            }
            // The encoder's shape was fixed with its rules' aspect ratio; the pictures follow these.
            guard config.rules.pictureHeight(width: w) == config.encoder.pixelHeight else {
                throw EnvError("bad_request", "the pixels encoder was made for another board's aspect ratio than config.rules'")
            }
        }
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
        raster = PixelRaster(renderer: config.encoder.kind == .pixels ? config.rasterizer : nil)
        self.fresh = games
        self.rng = SeededGenerator(seed: seed)
        if let p = config.procedural, p.numLevels > 0, p.numLevels <= GeneratedGames.limit {
            generated = GeneratedGames()
        } else {
            generated = nil
        }
    }

    public var observationSpace: Space { config.encoder.space }
    public var actionSpace: Space { config.action.space }
    public var observationSize: Int { config.encoder.size }

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
        if let p = config.procedural {
            let s = level.map { p.seed(ofIndex: $0) } ?? p.drawSeed(&rng)
            g = newGame(p, seed: s)
            chosen = Int(s - UInt64(p.startLevel))
            levelSeed = s
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
        }
        // 63 bits, so the seed fits a signed 64-bit integer wherever it is reported (NumPy int64).
        let gameSeed = rng.next() >> 1
        g.reseed(gameSeed)
        // Draws only for the options that are on, after the game seed, so an environment without
        // them draws exactly what it always did.
        if config.bucketStart == .random { g.placeBucket(phase: rng.nextUnit()) }
        if config.aimNoise > 0 { noise = SeededGenerator(seed: rng.next()) }
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

    /// Refuses a level index outside the configured levels (or level seeds).
    func checkLevel(_ level: Int) throws(EnvError) {
        if let p = config.procedural {
            guard level >= 0, UInt64(level) < p.seedCount else {
                let seeds = p.numLevels > 0 ? "\(p.startLevel)...\(p.seed(ofIndex: p.numLevels - 1))" : "\(p.startLevel) and up"
                throw EnvError("bad_request", "level \(level) is outside 0..<\(p.seedCount) (the level seeds are \(seeds))")
            }
        } else if !fresh.indices.contains(level) {
            throw EnvError("bad_request", "level \(level) is outside 0..<\(fresh.count)")
        }
    }

    /// A new game on the level of `seed`: generated, or kept from an earlier reset. A generated
    /// level is valid and fits the encoder (the generator's cap is checked at init).
    func newGame(_ p: ProceduralLevels, seed: UInt64) -> GameState {
        if let kept = generated?.game(seed: seed) { return kept }
        let level = p.level(seed: seed, rules: config.rules)
        guard let g = try? GameState(level: level, rules: config.rules, seed: 0) else {
            preconditionFailure("LevelGenerator made an invalid level from seed \(seed): \(level.validate(rules: config.rules))")
        }
        generated?.keep(g, seed: seed)
        return g
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
        config.encoder.encode(game!, shots: shots, maxShots: config.maxShots, raster: &raster, into: obs)
    }

    func summary() -> EnvInfo {
        guard let g = game else { return EnvInfo() }
        return EnvInfo(level: levelIndex, levelSeed: levelSeed, score: g.score, ballsLeft: g.ballsLeft,
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
