import PeggleDifficulty
import PeggleDrawing
import PeggleEnv
import PeggleEstimate
import PeggleLevel
import PeggleLevelFiles
import PeggleServe

/// The session every host of the environment runs, `peggle serve` and the native library alike,
/// so both read levels, draw and screen tiers with the same code: levels read by `LevelFile.load`
/// (a problem is a `level_error` naming the file), SVG and RGB pictures and the `pixels` encoder
/// by PeggleDrawing, the `tier-*` distributions by the instant estimate (`EstimatedTiers`).
public enum StandardSession {
    /// A new session within `memoryBudget` bytes. Each session has its own rasteriser, so
    /// sessions can render on different threads at once.
    public static func make(memoryBudget: Int = ServeSession.defaultMemoryBudget) -> ServeSession {
        let renderer = SVGRenderer()
        var rasteriser = PixelRenderer()  // keeps its scratch from render to render
        return ServeSession(
            loadLevel: { path in try LevelFile.load(path) },
            renderSVG: { state, shots in renderer.render(state, shots: shots) },
            renderRGB: { state, shots, width, pixels in try rasteriser.render(state, shots: shots, width: width, into: &pixels) },
            rasterizer: PixelRenderer(),
            tierScreen: EstimatedTiers(),
            memoryBudget: memoryBudget)
    }
}

/// The `tier-*` distributions' screen: PeggleEstimate's `EstimateScreen` with the built-in model
/// and tier edges, its target the tier asked for (docs/environment.md, "Tiers for a curriculum").
/// PeggleEnv declares what it needs (`TierScreen`) and the host hands this in, so the environment
/// does not depend on the estimate.
public struct EstimatedTiers: TierScreen {
    public init() {}

    public func generatorSeed(levelSeed: UInt64, distribution: DistributionMode, candidate: (UInt64) -> Level) -> UInt64 {
        let tier: Tier
        switch distribution {
        case .tierEasy: tier = .easy
        case .tierMedium: tier = .medium
        case .tierHard: tier = .hard
        case .tierVeryHard: tier = .veryHard
        case .easy, .hard: return levelSeed  // not screened (the environment never asks)
        }
        return EstimateScreen(target: .tier(tier)).screenedSeed(levelSeed: levelSeed, level: candidate).seed
    }
}
