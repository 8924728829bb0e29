import Foundation
import PeggleGame
import PeggleLevel
import PeggleUtilities

/// Cheap numbers about a level that predict its sigma50 without playing a game: what the level
/// holds, what one shot from the start does at each of `aims` evenly spread angles (whole shots,
/// the same physics the games use), how well the best shots survive aim noise, what a second shot
/// after the best first one can do, and the aim encoder's features averaged over its bins.
/// Deterministic: the same level gives the same bits. `names` and `version` identify the list a
/// model was fitted on, so a model of another list is refused rather than misread.
public struct LevelFeatures: Sendable, Equatable {
    /// Bumped whenever a feature is added, removed or computed differently.
    public static let version = 2
    /// Aims of the whole-shot sweep, evenly spread over the aim encoder's range.
    public static let aims = 49
    /// Aim-noise widths, radians, at which the sweep's best shot is valued on average (the sweep
    /// spacing is 0.06 rad, so these start near it; `fineOffsets` look closer).
    public static let noiseWidths: [Double] = [0.05, 0.1, 0.2]
    /// Offsets, radians, either side of the sweep's best aims at which shots are fired again: how
    /// far a best shot stays good below the sweep's spacing, where most sigma50s lie.
    public static let fineOffsets: [Double] = [0.004, 0.012]
    /// Best aims of the sweep looked at closely.
    public static let fineAims = 2
    /// Aims of the second shot's sweep.
    public static let secondAims = 15

    /// Feature names, in the order of `values`.
    public static let names: [String] = [
        "orange_count", "peg_count", "block_count", "orange_share",
        "mode_classic", "mode_beat_the_score", "mode_dodge", "balls", "has_power",
        "shot_orange_share_mean", "shot_orange_share_max", "aims_clearing_orange", "shot_pegs_mean",
        "aims_caught", "aims_touching_nothing", "shot_points_share_mean", "aim_roughness",
        "ln_orange_per_ball", "orange_unreached_share", "orange_window_ln_mean", "orange_window_ln_min",
    ] + noiseWidths.map { "noisy_best_value_\(Int(($0 * 1000).rounded()))mrad" }
      + fineOffsets.map { "fine_best_value_\(Int(($0 * 1000).rounded()))mrad" }
      + ["second_shot_value_max", "second_shot_value_mean", "two_shots_orange_share"]
      + AimFeature.allCases.map { "aim_" + $0.name + "_mean" }

    public let values: [Double]

    /// Features given directly (tests of the model).
    init(values: [Double]) { self.values = values }

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
        let oranges = level.pegs.indices.filter { level.pegs[$0].kind == .orange }
        // What the mode asks of one shot, 0 to 1: the share of the oranges it clears, of the
        // target it scores, or (dodge) touching nothing.
        func value(_ shot: ShotResult) -> Double {
            switch level.mode {
            case .classic: orange > 0 ? Double(shot.orangeCleared) / orange : 0
            case .beatTheScore: target > 0 ? min(1, Double(shot.points) / target) : 0
            case .dodge: shot.hits.total == 0 ? 1 : 0
            }
        }
        var cleared: [Double] = [], shotValues: [Double] = [], pegs = 0.0, caught = 0.0, clean = 0.0, points = 0.0
        var window = [Double](repeating: 0, count: oranges.count)
        for angle in aims {
            // Every angle is within the rules' aim range and the start state is playing: a shot cannot be refused.
            var game = start
            let shot = (try? game.shoot(angle: angle)) ?? ShotResult(angle: angle)
            cleared.append(Double(shot.orangeCleared))
            shotValues.append(value(shot))
            pegs += Double(shot.hits.total)
            caught += shot.caught > 0 ? 1 : 0
            clean += shot.hits.total == 0 ? 1 : 0
            points += Double(shot.points)
            for (k, i) in oranges.enumerated() where game.pegs[i].isRemoved { window[k] += 1 }
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

        // Oranges per ball: how much each shot must clear (dodge and beat the score: 0).
        v.append(balls > 0 && orange > 0 ? log(orange / balls) : 0)
        // Each orange's window: how many of the sweep's first shots clear it. A narrow window
        // needs a precise aim; an empty one needs a bank shot or a later board.
        let reached = window.filter { $0 > 0 }
        v += [oranges.isEmpty ? 0 : Double(oranges.count - reached.count) / Double(oranges.count),
              oranges.isEmpty ? 0 : window.map { log(1 + $0) }.reduce(0, +) / Double(oranges.count),
              reached.min().map { log($0) } ?? 0]

        // Noise tolerance: the best aim's value averaged over Gaussian aim noise of each width
        // (the sweep's shots weighted by the normal density; aims past the range are not there).
        let spacing = aims[1] - aims[0]
        var noisyBestAim = 0
        for (w, sigma) in Self.noiseWidths.enumerated() {
            // The weights depend only on how many aims apart two shots are; past 4 sigma they are dropped.
            let reach = Int(4 * sigma / spacing)
            let g = (0...reach).map { exp(-0.5 * (Double($0) * spacing / sigma) * (Double($0) * spacing / sigma)) }
            var best = 0.0, bestAim = 0
            for i in aims.indices {
                var sum = 0.0, weight = 0.0
                for j in max(0, i - reach)...min(aims.count - 1, i + reach) {
                    sum += g[abs(j - i)] * shotValues[j]
                    weight += g[abs(j - i)]
                }
                if sum / weight > best { best = sum / weight; bestAim = i }
            }
            v.append(best)
            if w == 0 { noisyBestAim = bestAim }
        }
        // Fine tolerance: the sweep's best aims fired again a little to each side; per offset, the
        // best of (value at aim - offset, at aim, at aim + offset) averaged.
        let top = shotValues.indices.sorted { shotValues[$0] > shotValues[$1] || (shotValues[$0] == shotValues[$1] && $0 < $1) }
            .prefix(Self.fineAims)
        for offset in Self.fineOffsets {
            var best = 0.0
            for i in top {
                var sum = shotValues[i]
                for a in [aims[i] - offset, aims[i] + offset] where abs(a) <= start.rules.maxAim {
                    sum += (try? start.outcome(ofShooting: a)).map { value($0.shot) } ?? 0
                }
                best = max(best, sum / 3)
            }
            v.append(best)
        }

        // The second shot: after the first shot a noisy player would choose (best at the first
        // noise width), a sweep of `secondAims` from the board it leaves.
        var after = start
        let first = (try? after.shoot(angle: aims[noisyBestAim])) ?? ShotResult(angle: aims[noisyBestAim])
        var secondMax = 0.0, secondSum = 0.0, secondCleared = 0.0
        if !after.isOver {
            for k in 0..<Self.secondAims {
                let a = -encoder.maxAim + 2 * encoder.maxAim * Double(k) / Double(Self.secondAims - 1)
                guard let shot = try? after.outcome(ofShooting: a).shot else { continue }
                let s = value(shot)
                secondMax = max(secondMax, s)
                secondSum += s
                secondCleared = max(secondCleared, Double(shot.orangeCleared))
            }
        } else if after.status == .won {
            secondMax = 1
            secondSum = Double(Self.secondAims)
        }
        v += [secondMax, secondSum / Double(Self.secondAims),
              orange > 0 ? (Double(first.orangeCleared) + secondCleared) / orange : 0]

        let rows = encoder.encode(start), width = AimEncoder.featureCount
        for f in 0..<width {
            var sum = 0.0
            for b in 0..<encoder.bins { sum += Double(rows[b * width + f]) }
            v.append(sum / Double(encoder.bins))
        }
        values = v
    }
}
