import PeggleGame

/// The estimate's features, declared once: each group is a type whose values are its features
/// (its `keys`, in column order), and `EstimateFeature.groups` puts the groups in the model's
/// column order. A feature's name, its group and its trend live with its key; `LevelFeatures.names`
/// and `monotone`, `peggle estimate --features` and `--feature-list`, and scripts/fit-estimate
/// (which reads that list) all derive from it. `LevelFeatures` computes each group in one function
/// that writes its values by key (`GroupRow`), so adding a feature is a key here and its line in
/// its group's function, with a new `LevelFeatures.version` and a refitted model
/// (docs/architecture.md counts the files).
public struct EstimateFeature: Sendable, Equatable {
    /// The column's name in model files and in `peggle estimate --features`.
    public let name: String
    /// Its group's name (`FeatureGroup.group`): scripts/fit-estimate weighs features by group.
    public let group: String
    public let trend: FeatureTrend

    /// Every feature, in the model's column order.
    public static let all: [EstimateFeature] = groups.flatMap { $0.features }

    /// The groups in column order: the model file's order, so a change here is a new
    /// `LevelFeatures.version`.
    package static let groups: [any FeatureGroup.Type] = [
        Board.self, FirstSweep.self, Oranges.self, NoisyBest.self, FineBest.self, SecondShot.self,
        AimMean.self, Knobs.self, Tolerance.self, Rollout.self,
    ]

    /// Each group's first column, by group name.
    package static let offsets: [String: Int] = {
        var at = 0, offsets: [String: Int] = [:]
        for g in groups {
            offsets[g.group] = at
            at += g.keys.count
        }
        return offsets
    }()

    /// What the level holds: counts, the mode, its balls, a power.
    enum Board: String, FeatureGroup, CaseIterable {
        case orangeCount = "orange_count", pegCount = "peg_count", blockCount = "block_count", orangeShare = "orange_share"
        case modeClassic = "mode_classic", modeBeatTheScore = "mode_beat_the_score", modeDodge = "mode_dodge"
        case balls, hasPower = "has_power"
        static let group = "board"
        var trend: FeatureTrend { self == .balls ? .monotone(1) : .free }
    }

    /// What one whole shot from the start does at each of `LevelFeatures.aims` aims.
    enum FirstSweep: String, FeatureGroup, CaseIterable {
        case shotOrangeShareMean = "shot_orange_share_mean", shotOrangeShareMax = "shot_orange_share_max"
        case aimsClearingOrange = "aims_clearing_orange", shotPegsMean = "shot_pegs_mean", aimsCaught = "aims_caught"
        case aimsTouchingNothing = "aims_touching_nothing", shotPointsShareMean = "shot_points_share_mean"
        case aimRoughness = "aim_roughness"
        static let group = "first_sweep"
    }

    /// What each orange asks: the oranges a ball must clear, and each orange's window of the first sweep.
    enum Oranges: String, FeatureGroup, CaseIterable {
        case lnOrangePerBall = "ln_orange_per_ball"
        case orangeUnreachedShare = "orange_unreached_share", orangeWindowLnMean = "orange_window_ln_mean"
        case orangeWindowLnMin = "orange_window_ln_min"
        static let group = "oranges"
        /// More oranges or fewer balls: only harder.
        var trend: FeatureTrend { self == .lnOrangePerBall ? .monotone(-1) : .free }
    }

    /// The best aim's value under each of `LevelFeatures.noiseWidths` of aim noise.
    struct NoisyBest: FeatureGroup {
        /// The index in `LevelFeatures.noiseWidths`.
        let width: Int
        static let group = "noisy_best"
        static var keys: [Self] { LevelFeatures.noiseWidths.indices.map(Self.init) }
        var name: String { "noisy_best_value_\(milliradians(LevelFeatures.noiseWidths[width]))mrad" }
    }

    /// The best aims fired again at each of `LevelFeatures.fineOffsets`.
    struct FineBest: FeatureGroup {
        /// The index in `LevelFeatures.fineOffsets`.
        let offset: Int
        static let group = "fine_best"
        static var keys: [Self] { LevelFeatures.fineOffsets.indices.map(Self.init) }
        var name: String { "fine_best_value_\(milliradians(LevelFeatures.fineOffsets[offset]))mrad" }
    }

    /// A sweep of `LevelFeatures.secondAims` after the first shot a noisy player would choose.
    enum SecondShot: String, FeatureGroup, CaseIterable {
        case secondShotValueMax = "second_shot_value_max", secondShotValueMean = "second_shot_value_mean"
        case twoShotsOrangeShare = "two_shots_orange_share"
        static let group = "second_shot"
    }

    /// Each of the aim encoder's features, averaged over its bins.
    struct AimMean: FeatureGroup {
        let feature: AimFeature
        static let group = "aim_encoder"
        static var keys: [Self] { AimFeature.allCases.map(Self.init) }
        var name: String { "aim_" + feature.name + "_mean" }
    }

    /// The mode's knobs beside `balls` and `ln_orange_per_ball`, on scales where their effect is about even.
    enum Knobs: String, FeatureGroup, CaseIterable {
        case btsLnTargetPerShot = "bts_ln_target_per_shot", dodgeLnShots = "dodge_ln_shots"
        static let group = "knobs"
        /// A higher target, a shorter clock, more clean shots asked for: only harder.
        var trend: FeatureTrend { .monotone(-1) }
    }

    /// The tolerance profile: the noise at which the best aim still does what the mode asks (one
    /// feature per mode), and at which its value halves.
    enum Tolerance: String, FeatureGroup, CaseIterable {
        case classicLnSigmaDemand = "classic_ln_sigma_demand", btsLnSigmaDemand = "bts_ln_sigma_demand"
        case dodgeLnSigmaDemand = "dodge_ln_sigma_demand", lnSigmaHalf = "ln_sigma_half"
        static let group = "tolerance"
        /// A shot that tolerates more noise is easier: measured, not by construction.
        var trend: FeatureTrend { self == .lnSigmaHalf ? .free : .measured(1) }
    }

    /// The two greedy rollouts and how far their pace falls short.
    enum Rollout: String, FeatureGroup, CaseIterable {
        case lnPace = "rollout_ln_pace", lnWidthMin = "rollout_ln_width_min", lnSigmaGame = "rollout_ln_sigma_game"
        case otherLnPace = "rollout_other_ln_pace", otherLnWidthMin = "rollout_other_ln_width_min"
        case otherLnSigmaGame = "rollout_other_ln_sigma_game"
        case classicShortfall = "classic_rollout_shortfall", classicOtherShortfall = "classic_rollout_other_shortfall"
        case btsShortfall = "bts_rollout_shortfall", btsOtherShortfall = "bts_rollout_other_shortfall"
        static let group = "rollout"
    }

    /// An angle's whole milliradians, as feature names write it.
    static func milliradians(_ radians: Double) -> Int { Int((radians * 1000).rounded()) }
}

/// How a feature moves the difficulty as it grows, everything else the same.
public enum FeatureTrend: Sendable, Equatable {
    case free
    /// Only easier (+1) or only harder (-1), by construction: the mode's own knobs. A model must
    /// give it a weight of that sign (or 0) and keep it out of its kernel part, so a harder knob
    /// never lowers the estimate (`EstimateModel.decode` refuses a model that does not).
    case monotone(Int)
    /// Easier (+1) as it grows by what it measures, not by construction (the aim noise a shot
    /// tolerates): a fit may hold its weight to that sign (scripts/fit-estimate's `--signs
    /// monotone+demand`); a model need not.
    case measured(Int)

    /// The sign a model must give the feature: the monotone one, else 0.
    public var monotone: Int { if case let .monotone(s) = self { s } else { 0 } }
    /// The sign the feature may be held to: the monotone or the measured one, else 0.
    public var sign: Int {
        switch self {
        case .free: 0
        case let .monotone(s), let .measured(s): s
        }
    }
}

/// One group of features (`EstimateFeature.groups`): its values are its features.
package protocol FeatureGroup: Hashable, Sendable {
    /// The group's name, for scripts/fit-estimate's emphasis.
    static var group: String { get }
    /// Its features, in column order.
    static var keys: [Self] { get }
    var name: String { get }
    var trend: FeatureTrend { get }
}

extension FeatureGroup {
    var trend: FeatureTrend { .free }
    static var features: [EstimateFeature] { keys.map { EstimateFeature(name: $0.name, group: group, trend: $0.trend) } }
}

extension FeatureGroup where Self: CaseIterable & RawRepresentable<String> {
    static var keys: [Self] { Array(allCases) }
    var name: String { rawValue }
}

/// One group's values, written by key; reading `values` before every key is written is a
/// programming error, named.
struct GroupRow<Key: FeatureGroup> {
    private var slots = [Double?](repeating: nil, count: Key.keys.count)

    subscript(key: Key) -> Double {
        get { slots[Self.index(key)]! }
        set { slots[Self.index(key)] = newValue }
    }

    var values: [Double] {
        Key.keys.map { k in
            guard let v = slots[Self.index(k)] else { preconditionFailure("estimate feature \(k.name): not computed") }
            return v
        }
    }

    private static func index(_ key: Key) -> Int { Key.keys.firstIndex(of: key)! }
}

/// Every group's values, each placed at its group's columns.
struct FeatureRow {
    private var slots = [Double?](repeating: nil, count: EstimateFeature.all.count)

    mutating func place<Key>(_ row: GroupRow<Key>) {
        let at = EstimateFeature.offsets[Key.group]!
        for (k, v) in row.values.enumerated() {
            precondition(slots[at + k] == nil, "estimate group \(Key.group): placed twice")
            slots[at + k] = v
        }
    }

    var values: [Double] {
        slots.enumerated().map { k, v in
            guard let v else { preconditionFailure("estimate feature \(EstimateFeature.all[k].name): not computed") }
            return v
        }
    }
}
