import PeggleGame
import PeggleGenerator
import PeggleLevel

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

/// Everything that defines an environment. Every option's default is written here and only
/// here: the serve protocol starts from `EnvConfig(levels: [])` and reports these defaults in its
/// `spec` reply, and the Python package reads them from there.
public struct EnvConfig: Sendable {
    /// Levels to play; each episode plays one. Empty when `procedural` is set.
    public var levels: [Level]
    /// Levels generated from seeds instead of `levels`.
    public var procedural: ProceduralLevels?
    public var order: LevelOrder = .cycle
    /// Where a seeded reset starts the `cycle` order.
    public var cycleStart = CycleStart.first
    /// The observation encoder (docs/environment.md).
    public var encoder = EncoderKind.objects
    /// Object slots of the `objects` encoder; a level with more pegs plus blocks is refused.
    public var maxObjects = 128
    /// The `pixels` encoder's picture width, pixels (within `ObservationEncoder.pixelWidths`);
    /// the height keeps the board's aspect ratio.
    public var pixelWidth = ObservationEncoder.defaultPixelWidth
    /// Aim bins: the discrete action's, and the `aim` encoder's rows. With both, action b fires
    /// at row b's aim.
    public var bins = 31
    public var reward: RewardKind = .progress
    /// Continuous (a float in [-1, 1]) or discrete (a bin in 0 ..< `bins`).
    public var action = ActionKind.continuous
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
    /// What the `pixels` encoder draws with (PeggleDrawing's `PixelRenderer()`); required by that
    /// encoder, unused by the others. Each environment draws with its own copy.
    public var rasterizer: (any BoardRasterizer)?
    /// What a `tier-*` procedural distribution chooses its levels with (the instant estimate's
    /// screen, `TierScreen`); required by those distributions, unused otherwise.
    public var tierScreen: (any TierScreen)?

    /// The aim noises an environment takes, radians (the rater measures sigma50 up to 1.0).
    public static let aimNoiseRange = 0.0...1.0

    public init(levels: [Level]) { self.levels = levels }

    /// Procedural levels (see `ProceduralLevels`).
    public init(procedural: ProceduralLevels) {
        levels = []
        self.procedural = procedural
    }

    /// The observation encoder these settings describe.
    public var observationEncoder: ObservationEncoder {
        ObservationEncoder(kind: encoder, maxObjects: maxObjects, pixelWidth: pixelWidth, bins: bins, rules: rules)
    }

    /// The action these settings describe.
    public var actionMode: ActionMode {
        switch action {
        case .continuous: .continuous
        case .discrete: .discrete(bins: bins)
        }
    }

    /// How many levels' starting states an environment keeps: every level file's, and with
    /// procedural levels of at most `GeneratedGames.limit` seeds, every generated level's.
    public var keptLevels: Int {
        if let p = procedural { return p.numLevels > 0 && p.numLevels <= GeneratedGames.limit ? p.numLevels : 0 }
        return levels.count
    }

    /// The most pegs plus blocks a level of this configuration has.
    public var largestLevel: Int {
        procedural != nil ? LevelGenerator.maxObjects : levels.map { $0.pegs.count + $0.blocks.count }.max() ?? 0
    }
}
