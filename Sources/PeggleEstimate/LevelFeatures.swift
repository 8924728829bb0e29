import Foundation
import PeggleGame
import PeggleLevel
import PeggleUtilities

/// Cheap numbers about a level that predict its sigma50 without playing a game: what the level
/// holds, what one shot from the start does at each of `aims` evenly spread angles (whole shots,
/// the same physics the games use), how well the best shots survive aim noise, what a second shot
/// after the best first one can do, the aim encoder's features averaged over its bins, and what
/// two short greedy rollouts of the game meet later (`rollout`: the last oranges' windows).
/// Deterministic: the same level gives the same bits. `names` and `version` identify the list a
/// model was fitted on, so a model of another list is refused rather than misread.
public struct LevelFeatures: Sendable, Equatable {
    /// Bumped whenever a feature is added, removed or computed differently.
    public static let version = 5
    /// Aims of the whole-shot sweep, evenly spread over the aim encoder's range.
    public static let aims = 49
    /// Aim-noise widths, radians, at which the sweep's best shot is valued on average (the sweep
    /// spacing is 0.06 rad, so these start near it; `fineOffsets` look closer).
    public static let noiseWidths: [Double] = [0.05, 0.1, 0.2]
    /// Offsets, radians, either side of the sweep's best aims at which shots are fired again: how
    /// far a best shot stays good below the sweep's spacing, where most sigma50s lie. A ladder that
    /// doubles, so a narrow window is seen at the resolution it needs; with the sweep's own aims
    /// beyond it, it is the profile the tolerance features integrate (`tolerance`).
    public static let fineLadder: [Double] = [0.0015, 0.004, 0.008, 0.012, 0.02, 0.035]
    /// The ladder's offsets that are also features of their own (version 2's fine look).
    public static let fineOffsets: [Double] = [0.004, 0.012]
    /// The aim noises, radians, at which the tolerance profile is valued: 0.0005 to 1.02 in steps
    /// of a factor 2^(1/4) (the rater's range, 0.001 to 1, with a step to spare each side).
    public static let toleranceSigmas: [Double] = (0...44).map { 0.0005 * pow(2, Double($0) / 4) }
    /// Aims of the second shot's sweep, and of each later sweep of the rollout.
    public static let secondAims = 15
    /// Shots of the rollout at most: the first two shots and the best aim of a sweep after each.
    public static let rolloutShots = 8
    /// Sweeps of the finer `aims` a rollout may fire where `secondAims` find no orange.
    public static let rolloutFineSweeps = 2

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
      + ["bts_ln_target_per_shot", "dodge_ln_shots",
         "classic_ln_sigma_demand", "bts_ln_sigma_demand", "dodge_ln_sigma_demand", "ln_sigma_half",
         "rollout_ln_pace", "rollout_ln_width_min", "rollout_ln_sigma_game",
         "rollout_other_ln_pace", "rollout_other_ln_width_min", "rollout_other_ln_sigma_game",
         "classic_rollout_shortfall", "classic_rollout_other_shortfall", "bts_rollout_shortfall", "bts_rollout_other_shortfall"]

    /// Features that can only make a level harder as they grow (-1) or only easier (+1), everything
    /// else the same: the mode's own knobs. A model must give them a weight of that sign (or 0) and
    /// keep them out of its kernel part, so a harder knob never lowers the estimate
    /// (`EstimateModel.decode` refuses a model that does not). `ln_orange_per_ball` grows with
    /// the oranges to clear and with fewer balls, `bts_ln_target_per_shot` with the target and a
    /// shorter clock, `dodge_ln_shots` with the clean shots asked for.
    public static let monotone: [String: Int] = [
        "balls": 1, "ln_orange_per_ball": -1, "bts_ln_target_per_shot": -1, "dodge_ln_shots": -1,
    ]

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
        case let .classic(c): v += [1, 0, 0]; balls = Double(c.balls)
        case let .beatTheScore(b): v += [0, 1, 0]; target = Double(b.targetScore)
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
        var cleared: [Double] = [], shotValues: [Double] = [], pegs = 0.0, caught = 0.0, clean = 0.0, points = 0.0, durations = 0.0
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
            durations += shot.duration
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
        // Fine tolerance: the sweep's best aims (the best single shot, and the best under the first
        // noise width if it is another; else the second best single shot) fired again at the
        // ladder's offsets to each side.
        var top = [shotValues.indices.max { shotValues[$0] < shotValues[$1] || (shotValues[$0] == shotValues[$1] && $0 > $1) }!]
        if noisyBestAim != top[0] {
            top.append(noisyBestAim)
        } else if let second = shotValues.indices.filter({ $0 != top[0] })
            .max(by: { shotValues[$0] < shotValues[$1] || (shotValues[$0] == shotValues[$1] && $0 > $1) }) {
            top.append(second)
        }
        var profiles: [[(offset: Double, value: Double)]] = []
        for i in top {
            var points = [(offset: 0.0, value: shotValues[i])]
            for o in Self.fineLadder {
                for a in [aims[i] - o, aims[i] + o] where abs(a) <= start.rules.maxAim {
                    points.append((a - aims[i], (try? start.outcome(ofShooting: a)).map { value($0.shot) } ?? 0))
                }
            }
            // Beyond the ladder, the sweep's own shots.
            for j in aims.indices where abs(aims[j] - aims[i]) > Self.fineLadder.last! + 1e-9 {
                points.append((aims[j] - aims[i], shotValues[j]))
            }
            profiles.append(points.sorted { $0.offset < $1.offset })
        }
        for offset in Self.fineOffsets {
            var best = 0.0
            for p in profiles {
                let at = p.filter { abs(abs($0.offset) - offset) < 1e-9 || $0.offset == 0 }
                best = max(best, at.map(\.value).reduce(0, +) / 3)
            }
            v.append(best)
        }
        let tolerance = Self.tolerance(profiles)

        // The second shot: after the first shot a noisy player would choose (best at the first
        // noise width), a sweep of `secondAims` from the board it leaves.
        var after = start
        let first = (try? after.shoot(angle: aims[noisyBestAim])) ?? ShotResult(angle: aims[noisyBestAim])
        var secondMax = 0.0, secondSum = 0.0, secondCleared = 0.0
        let laterAims = (0..<Self.secondAims).map { -encoder.maxAim + 2 * encoder.maxAim * Double($0) / Double(Self.secondAims - 1) }
        // A sweep of `laterAims` from a board: each shot's value and oranges cleared.
        func sweep(_ board: GameState) -> [(value: Double, cleared: Int)] {
            laterAims.map { a in (try? board.outcome(ofShooting: a).shot).map { (value($0), $0.orangeCleared) } ?? (0, 0) }
        }
        var second: [(value: Double, cleared: Int)] = []
        if !after.isOver {
            second = sweep(after)
            for s in second {
                secondMax = max(secondMax, s.value)
                secondSum += s.value
                secondCleared = max(secondCleared, Double(s.cleared))
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

        // The mode's knobs, on scales where their effect is about even. Beat the score: the share
        // of the board's points (every peg at x1) each shot the clock allows must score, the
        // shots being its limit over the sweep's mean shot time.
        let shotTime = max(durations / n, 0.5)
        if case let .beatTheScore(b) = level.mode {
            let board = Double(max(level.pegs.reduce(0) { $0 + start.rules.points(for: $1.kind) }, 1))
            v.append(log(Double(max(b.targetScore, 1)) / board * shotTime / max(b.timeLimit, 1e-3)))
        } else {
            v.append(0)
        }
        if case let .dodge(d) = level.mode { v.append(log(Double(max(d.shots, 1)))) } else { v.append(0) }
        // What one shot must do for the player to win half the time, in the shot's value: classic,
        // clear 1 / balls of the oranges; beat the score, score the target over the shots the
        // clock allows (its limit over the sweep's mean shot time); dodge with N shots, be clean
        // with probability 0.5^(1/N) (N clean shots in a row win; a clean shot changes nothing).
        let demand: Double
        switch level.mode {
        case let .classic(c): demand = 1 / Double(max(c.balls, 1))
        case let .beatTheScore(b): demand = min(1, shotTime / max(b.timeLimit, 1e-3))
        case let .dodge(d): demand = pow(0.5, 1 / Double(max(d.shots, 1)))
        }
        // ln of the largest aim noise at which the best aim still gives that value on average: the
        // direct measurement of sigma50 for one shot, one feature per mode (0 in the others: each
        // mode's own weight). And ln of the noise at which the best aim's value halves.
        let demanded = log(Self.largestSigma(tolerance, atLeast: demand))
        switch level.mode {
        case .classic: v += [demanded, 0, 0]
        case .beatTheScore: v += [0, demanded, 0]
        case .dodge: v += [0, 0, demanded]
        }
        v.append(log(Self.largestSigma(tolerance, atLeast: 0.5 * (tolerance.first ?? 0))))

        // The rollouts: what the last oranges demand, which the first two shots do not see
        // (`rollout`). Two plans, whose noise-free greedy paths differ, so one plan's luck weighs
        // less: from the first shot a noisy player would choose, and from the other of the
        // sweep's best aims (`top`). Classic: the pace (oranges cleared a shot over the oranges a
        // ball must clear), the narrowest window of aims that cleared an orange (radians), and
        // the noise the game tolerates (`gameSigma`). Beat the score: the points the rollout
        // scored and the rest of the clock at its last two shots' rate, over the target.
        let classic = level.mode.kind == .classic
        func shotValue(_ shot: ShotResult) -> Double { classic ? Double(shot.orangeCleared) : Double(shot.points) }
        func rollout(_ plan: Int) -> Rollout {
            let firstAim = plan == 0 ? noisyBestAim : (top.first { $0 != noisyBestAim } ?? noisyBestAim)
            var board = start
            if plan == 0 { board = after } else { _ = try? board.shoot(angle: aims[firstAim]) }
            let next = plan == 0 ? second : (board.isOver ? [] : sweep(board))
            return Self.rollout(after: board, second: next, laterAims: laterAims, fineAims: aims,
                                firstCleared: cleared.map { Int($0) }, firstAim: firstAim, sweep: sweep,
                                classic: classic, value: shotValue)
        }
        var paces: [Double] = []
        for plan in 0..<2 {
            switch level.mode {
            case .classic where orange > 0 && balls > 0:
                let roll = rollout(plan)
                let perShot = max(Double(roll.cleared), 0.5) / Double(roll.shots)
                paces.append(log(perShot * balls / orange))
                // No orange-clearing step: the window of an orange no sweep reached, half an aim of the 49.
                v += [paces[plan], log(roll.widths.min() ?? 0.5 * (aims[1] - aims[0])),
                      log(Self.gameSigma(roll, left: orange - Double(roll.cleared), balls: balls, fineAims: Self.aims))]
            case let .beatTheScore(b) where b.targetScore > 0:
                let roll = rollout(plan)
                let left = max(b.timeLimit - roll.duration, 0)
                let projected = roll.points + (roll.lastDuration > 0 ? left * roll.lastPoints / roll.lastDuration : 0)
                paces.append(log(max(projected, 1) / Double(b.targetScore)))
                v += [paces[plan], 0, 0]
            default:
                paces.append(0)
                v += [0, 0, 0]
            }
        }
        // How far each plan's ln pace falls below 1 (a pace of e): a bend where the estimate's
        // straight line in the pace does not fit, since a game whose noise-free plan barely keeps
        // up is lost to far less noise than the pace's slope says. One pair per mode, each with
        // its own weights.
        let shortfalls = paces.map { max(0, 1 - $0) }
        switch level.mode.kind {
        case .classic: v += shortfalls + [0, 0]
        case .beatTheScore: v += [0, 0] + shortfalls
        case .dodge: v += [0, 0, 0, 0]
        }
        values = v
    }

    /// What `rollout` found: shots taken (the first included), oranges cleared, points, time, each
    /// orange-clearing shot's window (radians: the run of neighbouring aims of its sweep that clear
    /// an orange too), oranges and sweep, and whether it ended with no aim clearing an orange.
    struct Rollout {
        var shots = 1, cleared = 0, points = 0.0, duration = 0.0
        /// Points and time of the last two shots.
        var lastPoints = 0.0, lastDuration = 0.0
        var widths: [Double] = [], clearedPerStep: [Double] = []
        /// Each orange-clearing shot's sweep: offsets from its aim and whether that aim clears an orange (1 or 0).
        var profiles: [[(offset: Double, value: Double)]] = []
        var stuck = false
    }

    /// A greedy game without noise from `after` (the board a first shot at `firstAim` of the
    /// start's sweep left; `second`, the sweep of it): each shot is the aim of a sweep of
    /// `laterAims` with the most `value` (classic: oranges cleared; beat the score: points), the
    /// middle of a run of such aims rather than its edge, until the game is over or
    /// `rolloutShots` are taken. Where no aim of the sweep clears an orange (classic), the
    /// start's finer sweep is fired, at most `rolloutFineSweeps` times; if that finds none
    /// either, the rollout is stuck: the rest needs a finer aim or a bank shot.
    static func rollout(after: GameState, second: [(value: Double, cleared: Int)], laterAims: [Double], fineAims: [Double],
                        firstCleared: [Int], firstAim: Int, sweep: (GameState) -> [(value: Double, cleared: Int)],
                        classic: Bool, value: (ShotResult) -> Double) -> Rollout {
        var r = Rollout()
        let fineSpacing = fineAims[1] - fineAims[0], laterSpacing = laterAims[1] - laterAims[0]
        // The run of aims around `best` that clear an orange, in radians.
        func width(_ cleared: [Int], _ best: Int, _ spacing: Double) -> Double {
            var lo = best, hi = best
            while lo > 0 && cleared[lo - 1] > 0 { lo -= 1 }
            while hi < cleared.count - 1 && cleared[hi + 1] > 0 { hi += 1 }
            return Double(hi - lo + 1) * spacing
        }
        r.cleared = after.orangeCleared
        r.points = Double(after.score)
        r.duration = after.elapsed
        func profile(_ cleared: [Int], _ aims: [Double], _ best: Int) -> [(offset: Double, value: Double)] {
            aims.indices.map { (aims[$0] - aims[best], cleared[$0] > 0 ? 1 : 0) }
        }
        if after.orangeCleared > 0 {
            r.widths.append(width(firstCleared, firstAim, fineSpacing))
            r.profiles.append(profile(firstCleared, fineAims, firstAim))
            r.clearedPerStep.append(Double(after.orangeCleared))
        }
        var board = after, next = second, fine = 0
        var recent = [(Double(after.score), after.elapsed)]
        while !board.isOver && r.shots < rolloutShots {
            if r.shots > 1 { next = sweep(board) }
            var aims = laterAims, spacing = laterSpacing
            var cleared = next.map(\.cleared), values = next.map(\.value)
            if classic && board.orangeRemaining > 0 && !cleared.contains(where: { $0 > 0 }) && fine < rolloutFineSweeps {
                fine += 1
                let shots = fineAims.map { a in try? board.outcome(ofShooting: a).shot }
                aims = fineAims; spacing = fineSpacing
                cleared = shots.map { $0?.orangeCleared ?? 0 }
                values = shots.map { $0.map(value) ?? 0 }
            }
            if classic && board.orangeRemaining > 0 && !cleared.contains(where: { $0 > 0 }) {
                r.stuck = true
                break
            }
            // The best aim with its neighbours counted half: the middle of a wide window rather
            // than the edge of a narrow one, as a player who expects noise would choose.
            let smooth = values.indices.map { k in
                values[k] + 0.5 * ((k > 0 ? values[k - 1] : 0) + (k < values.count - 1 ? values[k + 1] : 0))
            }
            let top = values.max()!
            let best = values.indices.filter { values[$0] == top }
                .max { smooth[$0] < smooth[$1] || (smooth[$0] == smooth[$1] && $0 > $1) }!
            let before = board.orangeCleared, scored = board.score, clock = board.elapsed
            _ = try? board.shoot(angle: aims[best])
            r.shots += 1
            r.points += Double(board.score - scored)
            r.duration += board.elapsed - clock
            recent.append((Double(board.score - scored), board.elapsed - clock))
            if board.orangeCleared > before {
                r.widths.append(width(cleared, best, spacing))
                r.profiles.append(profile(cleared, aims, best))
                r.clearedPerStep.append(Double(board.orangeCleared - before))
            }
        }
        r.cleared = board.orangeCleared
        for (p, t) in recent.suffix(2) { r.lastPoints += p; r.lastDuration += t }
        return r
    }

    /// The largest of `toleranceSigmas` (interpolated) at which a player who aims where the
    /// rollout aimed needs no more shots on average than `balls`: at each orange-clearing step,
    /// 1 / the chance that a Gaussian aim error lands on an aim of its sweep that clears an orange
    /// (`tolerance` of the step's profile); the oranges the rollout left take the last step's
    /// chance each, at the mean oranges a step cleared, or half an aim of the finer sweep's
    /// share if it was stuck. The first sigma if none is small enough.
    static func gameSigma(_ r: Rollout, left: Double, balls: Double, fineAims: Int) -> Double {
        let mean = r.clearedPerStep.isEmpty ? 1 : r.clearedPerStep.reduce(0, +) / Double(r.clearedPerStep.count)
        let extra = left > 0 ? left / max(mean, 1) : 0
        let chances = r.profiles.map { tolerance([$0]) }
        let shots = toleranceSigmas.indices.map { k in
            let last = r.stuck || chances.isEmpty ? 0.5 / Double(fineAims) : chances.last![k]
            return chances.reduce(0) { $0 + 1 / max($1[k], 1e-12) } + extra / max(last, 1e-12)
        }
        return largestSigma(shots.map { -$0 }, atLeast: -balls)
    }

    /// The best aim's value averaged over Gaussian aim noise, at each of `toleranceSigmas`, from
    /// each profile (a shot's value at offsets from its aim, sorted): each shot stands for the
    /// aims nearer to it than to its neighbours, weighted by the normal density there, and the
    /// outermost shots for every aim beyond them (the aim range's ends). The best profile per sigma.
    static func tolerance(_ profiles: [[(offset: Double, value: Double)]]) -> [Double] {
        toleranceSigmas.map { sigma in
            var best = 0.0
            let scale = 1 / (sigma * 2.0.squareRoot())
            for p in profiles where !p.isEmpty {
                var sum = 0.0, mass = 0.0, below = -1.0  // erf at the lower edge of shot k's aims
                for k in p.indices {
                    let above = k == p.count - 1 ? 1 : erf((p[k].offset + p[k + 1].offset) / 2 * scale)
                    sum += (above - below) * p[k].value
                    mass += above - below
                    below = above
                }
                if mass > 0 { best = max(best, sum / mass) }
            }
            return best
        }
    }

    /// The largest of `toleranceSigmas` at which `values` (one per sigma) is at least `level`,
    /// interpolated in ln sigma toward the next; the first sigma if none is, the last if all are.
    static func largestSigma(_ values: [Double], atLeast level: Double) -> Double {
        let s = toleranceSigmas
        guard let last = values.lastIndex(where: { $0 >= level }) else { return s[0] }
        if last == s.count - 1 { return s[last] }
        // values[last] >= level > values[last + 1]: where the line between them meets level.
        let t = (values[last] - level) / (values[last] - values[last + 1])
        return exp(log(s[last]) + t * (log(s[last + 1]) - log(s[last])))
    }
}
