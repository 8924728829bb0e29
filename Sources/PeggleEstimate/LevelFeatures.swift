import PeggleGame
import PeggleLevel
import PeggleUtilities

/// Cheap numbers about a level that predict its sigma50 without playing a game: what the level
/// holds, and what one shot from the start does at each of `aims` evenly spread angles (whole
/// shots, the same physics the games use), with the aim encoder's features averaged over its bins.
/// Deterministic: the same level gives the same bits. `names` and `version` identify the list a
/// model was fitted on, so a model of another list is refused rather than misread.
public struct LevelFeatures: Sendable, Equatable {
    /// Bumped whenever a feature is added, removed or computed differently.
    public static let version = 1
    /// Aims of the whole-shot sweep, evenly spread over the aim encoder's range.
    public static let aims = 121

    /// Feature names, in the order of `values`.
    public static let names: [String] = [
        "orange_count", "peg_count", "block_count", "orange_share",
        "mode_classic", "mode_beat_the_score", "mode_dodge", "balls", "has_power",
        "shot_orange_share_mean", "shot_orange_share_max", "aims_clearing_orange", "shot_pegs_mean",
        "aims_caught", "aims_touching_nothing", "shot_points_share_mean", "aim_roughness",
    ] + AimFeature.allCases.map { "aim_" + $0.name + "_mean" }

    public let values: [Double]

    public init(_ prepared: PreparedLevel) {
        let level = prepared.level, start = prepared.start
        let orange = Double(prepared.start.orangeTotal)
        var v: [Double] = [orange, Double(level.pegs.count), Double(level.blocks.count),
                           level.pegs.isEmpty ? 0 : orange / Double(level.pegs.count)]
        var balls = 0.0, target = 0.0
        switch level.mode {
        case let .classic(b): v += [1, 0, 0]; balls = Double(b)
        case let .beatTheScore(score, _): v += [0, 1, 0]; target = Double(score)
        case .dodge: v += [0, 0, 1]
        }
        v += [balls, level.power == .none ? 0 : 1]

        let encoder = AimEncoder()
        let aims = (0..<Self.aims).map { -encoder.maxAim + 2 * encoder.maxAim * Double($0) / Double(Self.aims - 1) }
        var cleared: [Double] = [], pegs = 0.0, caught = 0.0, clean = 0.0, points = 0.0
        for angle in aims {
            // Every angle is within the rules' aim range and the start state is playing: a shot cannot be refused.
            let shot = (try? start.outcome(ofShooting: angle))?.shot ?? ShotResult(angle: angle)
            cleared.append(Double(shot.orangeCleared))
            pegs += Double(shot.hits.total)
            caught += shot.caught > 0 ? 1 : 0
            clean += shot.hits.total == 0 ? 1 : 0
            points += Double(shot.points)
        }
        let n = Double(Self.aims)
        let meanCleared = cleared.reduce(0, +) / n
        var rough = 0.0
        for k in 1..<cleared.count { rough += abs(cleared[k] - cleared[k - 1]) }
        v += [orange > 0 ? meanCleared / orange : 0, orange > 0 ? cleared.max()! / orange : 0,
              Double(cleared.filter { $0 > 0 }.count) / n, pegs / n, caught / n, clean / n,
              target > 0 ? points / n / target : 0,
              // How much the outcome changes between neighbouring aims: what aim noise meets.
              rough / Double(cleared.count - 1) / max(meanCleared, 1)]

        let rows = encoder.encode(start), width = AimEncoder.featureCount
        for f in 0..<width {
            var sum = 0.0
            for b in 0..<encoder.bins { sum += Double(rows[b * width + f]) }
            v.append(sum / Double(encoder.bins))
        }
        values = v
    }
}
