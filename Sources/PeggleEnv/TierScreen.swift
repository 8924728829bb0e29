import PeggleLevel

/// What a `tier-*` distribution needs of a difficulty screen, and nothing more: which of a level
/// seed's candidates it plays. Judging a level's difficulty is the instant estimate's job, in a
/// module above this one, so the screen is handed in with the settings (`EnvConfig.tierScreen`),
/// as the `pixels` encoder's rasteriser is: `peggle serve` gives its sessions `EstimatedTiers`
/// (PeggleEstimate's `EstimateScreen`, one target per tier), and an environment asked for a tier
/// without a screen is refused when it is made (`EnvError.noTierScreen`).
public protocol TierScreen: Sendable {
    /// The generator seed that level seed `levelSeed` plays under `distribution` (one of the
    /// tiers): one of the seed's candidates, a pure function of the arguments. `candidate` makes a
    /// candidate generator seed's level as the environment would play it (its distribution's
    /// generator, templates and mode).
    func generatorSeed(levelSeed: UInt64, distribution: DistributionMode, candidate: (UInt64) -> Level) -> UInt64
}

extension EnvError {
    /// A `tier-*` distribution asked of an environment given no screen.
    public static func noTierScreen(_ distribution: DistributionMode) -> EnvError {
        .badRequest("distribution_mode \(distribution.rawValue) screens levels by difficulty, and this environment was given "
            + "no tier screen (EnvConfig.tierScreen; `peggle serve` gives PeggleEstimate's)")
    }
}
