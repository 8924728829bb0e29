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

    /// Feature names, in the order of `values` (`EstimateFeature.all`).
    public static let names: [String] = EstimateFeature.all.map(\.name)

    /// Features that can only make a level harder as they grow (-1) or only easier (+1), everything
    /// else the same: the mode's own knobs (`FeatureTrend.monotone`, declared with each feature).
    /// A model must give them a weight of that sign (or 0) and keep them out of its kernel part,
    /// so a harder knob never lowers the estimate (`EstimateModel.decode` refuses a model that
    /// does not).
    public static let monotone: [String: Int] = Dictionary(uniqueKeysWithValues: EstimateFeature.all.compactMap { f in
        f.trend.monotone == 0 ? nil : (f.name, f.trend.monotone)
    })

    public let values: [Double]

    /// Features given directly (tests of the model).
    package init(values: [Double]) { self.values = values }

    /// The features of `prepared`, one function per group (`EstimateFeature.groups`), each given
    /// what it needs of the groups computed before it; `FeatureRow` puts each group at its columns.
    public init(_ prepared: PreparedLevel) {
        let sweep = Sweep(prepared)
        var row = FeatureRow()
        row.place(Self.board(sweep))
        row.place(Self.firstSweep(sweep))
        row.place(Self.oranges(sweep))
        let (noisy, noisyBestAim) = Self.noisyBest(sweep)
        row.place(noisy)
        let (fine, top, profiles) = Self.fineBest(sweep, noisyBestAim: noisyBestAim)
        row.place(fine)
        let (second, afterFirst) = Self.secondShot(sweep, noisyBestAim: noisyBestAim)
        row.place(second)
        row.place(Self.aimMeans(sweep))
        row.place(Self.knobs(sweep))
        row.place(Self.tolerated(sweep, profiles: profiles))
        row.place(Self.rollouts(sweep, noisyBestAim: noisyBestAim, top: top, afterFirst: afterFirst))
        values = row.values
    }

    /// What most groups read: the level and its mode's numbers, and the first sweep, one whole
    /// shot from the start at each of `aims` evenly spread over the aim encoder's range.
    struct Sweep {
        let level: Level, start: GameState
        /// Oranges; the classic mode's balls, the beat-the-score target (0 in the other modes).
        let orange: Double, balls: Double, target: Double
        let encoder: AimEncoder
        /// The sweep's aims, and those of the second shot's and the rollouts' sweeps (`secondAims`).
        let aims: [Double], laterAims: [Double]
        /// The oranges' peg indices.
        let oranges: [Int]
        /// Per aim: oranges cleared, and the shot's `value`.
        var cleared: [Double] = [], shotValues: [Double] = []
        /// Summed over the aims: pegs hit, shots caught, shots touching nothing, points, time.
        var pegs = 0.0, caught = 0.0, clean = 0.0, points = 0.0, durations = 0.0
        /// Per orange: how many of the sweep's shots clear it.
        var window: [Double]

        init(_ prepared: PreparedLevel) {
            level = prepared.level
            start = prepared.start
            orange = Double(prepared.start.orangeTotal)
            switch level.mode {
            case let .classic(c): balls = Double(c.balls); target = 0
            case let .beatTheScore(b): balls = 0; target = Double(b.targetScore)
            case .dodge: balls = 0; target = 0
            }
            let encoder = AimEncoder()
            self.encoder = encoder
            func spread(_ count: Int) -> [Double] {
                (0..<count).map { -encoder.maxAim + 2 * encoder.maxAim * Double($0) / Double(count - 1) }
            }
            aims = spread(LevelFeatures.aims)
            laterAims = spread(LevelFeatures.secondAims)
            let levelPegs = prepared.level.pegs
            oranges = levelPegs.indices.filter { levelPegs[$0].kind == .orange }
            window = [Double](repeating: 0, count: oranges.count)
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
        }

        /// What the mode asks of one shot, 0 to 1: the share of the oranges it clears, of the
        /// target it scores, or (dodge) touching nothing.
        func value(_ shot: ShotResult) -> Double {
            switch level.mode {
            case .classic: orange > 0 ? Double(shot.orangeCleared) / orange : 0
            case .beatTheScore: target > 0 ? min(1, Double(shot.points) / target) : 0
            case .dodge: shot.hits.total == 0 ? 1 : 0
            }
        }

        /// A sweep of `laterAims` from a board: each shot's value and oranges cleared.
        func later(_ board: GameState) -> [(value: Double, cleared: Int)] {
            laterAims.map { a in (try? board.outcome(ofShooting: a).shot).map { (value($0), $0.orangeCleared) } ?? (0, 0) }
        }

        /// The sweep's mean shot time, at least half a second: what the clock allows a shot.
        var shotTime: Double { max(durations / Double(LevelFeatures.aims), 0.5) }
    }

    /// What the level holds.
    static func board(_ s: Sweep) -> GroupRow<EstimateFeature.Board> {
        var r = GroupRow<EstimateFeature.Board>()
        let level = s.level, kind = level.mode.kind
        r[.orangeCount] = s.orange
        r[.pegCount] = Double(level.pegs.count)
        r[.blockCount] = Double(level.blocks.count)
        r[.orangeShare] = level.pegs.isEmpty ? 0 : s.orange / Double(level.pegs.count)
        r[.modeClassic] = kind == .classic ? 1 : 0
        r[.modeBeatTheScore] = kind == .beatTheScore ? 1 : 0
        r[.modeDodge] = kind == .dodge ? 1 : 0
        r[.balls] = s.balls
        r[.hasPower] = level.power == .none ? 0 : 1
        return r
    }

    /// The first sweep's shots summed up.
    static func firstSweep(_ s: Sweep) -> GroupRow<EstimateFeature.FirstSweep> {
        var r = GroupRow<EstimateFeature.FirstSweep>()
        let n = Double(Self.aims), cleared = s.cleared, orange = s.orange
        let meanCleared = cleared.reduce(0, +) / n
        var rough = 0.0
        for k in 1..<cleared.count { rough += abs(cleared[k] - cleared[k - 1]) }
        r[.shotOrangeShareMean] = orange > 0 ? meanCleared / orange : 0
        r[.shotOrangeShareMax] = orange > 0 ? cleared.max()! / orange : 0
        r[.aimsClearingOrange] = Double(cleared.filter { $0 > 0 }.count) / n
        r[.shotPegsMean] = s.pegs / n
        r[.aimsCaught] = s.caught / n
        r[.aimsTouchingNothing] = s.clean / n
        r[.shotPointsShareMean] = s.target > 0 ? s.points / n / s.target : 0
        // How much the outcome changes between neighbouring aims: what aim noise meets.
        r[.aimRoughness] = rough / Double(cleared.count - 1) / max(meanCleared, 1)
        return r
    }

    /// Oranges per ball, and each orange's window.
    static func oranges(_ s: Sweep) -> GroupRow<EstimateFeature.Oranges> {
        var r = GroupRow<EstimateFeature.Oranges>()
        // Oranges per ball: how much each shot must clear (dodge and beat the score: 0).
        r[.lnOrangePerBall] = s.balls > 0 && s.orange > 0 ? log(s.orange / s.balls) : 0
        // Each orange's window: how many of the sweep's first shots clear it. A narrow window
        // needs a precise aim; an empty one needs a bank shot or a later board.
        let reached = s.window.filter { $0 > 0 }, count = s.oranges.count
        r[.orangeUnreachedShare] = count == 0 ? 0 : Double(count - reached.count) / Double(count)
        r[.orangeWindowLnMean] = count == 0 ? 0 : s.window.map { log(1 + $0) }.reduce(0, +) / Double(count)
        r[.orangeWindowLnMin] = reached.min().map { log($0) } ?? 0
        return r
    }

    /// Noise tolerance: the best aim's value averaged over Gaussian aim noise of each width (the
    /// sweep's shots weighted by the normal density; aims past the range are not there). Also the
    /// aim that is best at the first width: the first shot a noisy player would choose.
    static func noisyBest(_ s: Sweep) -> (GroupRow<EstimateFeature.NoisyBest>, noisyBestAim: Int) {
        var r = GroupRow<EstimateFeature.NoisyBest>()
        let aims = s.aims, shotValues = s.shotValues, spacing = aims[1] - aims[0]
        var noisyBestAim = 0
        for key in EstimateFeature.NoisyBest.keys {
            let sigma = Self.noiseWidths[key.width]
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
            r[key] = best
            if key.width == 0 { noisyBestAim = bestAim }
        }
        return (r, noisyBestAim)
    }

    /// Fine tolerance: the sweep's best aims (`top`: the best single shot, and the best under the
    /// first noise width if it is another; else the second best single shot) fired again at the
    /// ladder's offsets to each side. Also their profiles (a shot's value at offsets from its aim,
    /// the sweep's own shots beyond the ladder), which `tolerance` integrates.
    static func fineBest(_ s: Sweep, noisyBestAim: Int)
        -> (GroupRow<EstimateFeature.FineBest>, top: [Int], profiles: [[(offset: Double, value: Double)]]) {
        var r = GroupRow<EstimateFeature.FineBest>()
        let aims = s.aims, shotValues = s.shotValues, start = s.start
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
                    points.append((a - aims[i], (try? start.outcome(ofShooting: a)).map { s.value($0.shot) } ?? 0))
                }
            }
            // Beyond the ladder, the sweep's own shots.
            for j in aims.indices where abs(aims[j] - aims[i]) > Self.fineLadder.last! + 1e-9 {
                points.append((aims[j] - aims[i], shotValues[j]))
            }
            profiles.append(points.sorted { $0.offset < $1.offset })
        }
        for key in EstimateFeature.FineBest.keys {
            let offset = Self.fineOffsets[key.offset]
            var best = 0.0
            for p in profiles {
                let at = p.filter { abs(abs($0.offset) - offset) < 1e-9 || $0.offset == 0 }
                best = max(best, at.map(\.value).reduce(0, +) / 3)
            }
            r[key] = best
        }
        return (r, top, profiles)
    }

    /// The board the first shot a noisy player would choose leaves, and the sweep of `laterAims`
    /// from it (none if that shot ended the game).
    struct AfterFirst {
        var board: GameState
        var sweep: [(value: Double, cleared: Int)]
    }

    /// The second shot: after the first shot a noisy player would choose (best at the first
    /// noise width), a sweep of `secondAims` from the board it leaves.
    static func secondShot(_ s: Sweep, noisyBestAim: Int) -> (GroupRow<EstimateFeature.SecondShot>, AfterFirst) {
        var r = GroupRow<EstimateFeature.SecondShot>()
        let aims = s.aims
        var after = s.start
        let first = (try? after.shoot(angle: aims[noisyBestAim])) ?? ShotResult(angle: aims[noisyBestAim])
        var secondMax = 0.0, secondSum = 0.0, secondCleared = 0.0
        var second: [(value: Double, cleared: Int)] = []
        if !after.isOver {
            second = s.later(after)
            for shot in second {
                secondMax = max(secondMax, shot.value)
                secondSum += shot.value
                secondCleared = max(secondCleared, Double(shot.cleared))
            }
        } else if after.status == .won {
            secondMax = 1
            secondSum = Double(Self.secondAims)
        }
        r[.secondShotValueMax] = secondMax
        r[.secondShotValueMean] = secondSum / Double(Self.secondAims)
        r[.twoShotsOrangeShare] = s.orange > 0 ? (Double(first.orangeCleared) + secondCleared) / s.orange : 0
        return (r, AfterFirst(board: after, sweep: second))
    }

    /// The aim encoder's features at the start, each averaged over its bins.
    static func aimMeans(_ s: Sweep) -> GroupRow<EstimateFeature.AimMean> {
        var r = GroupRow<EstimateFeature.AimMean>()
        let rows = s.encoder.encode(s.start), width = AimEncoder.featureCount
        for key in EstimateFeature.AimMean.keys {
            var sum = 0.0
            for b in 0..<s.encoder.bins { sum += Double(rows[b * width + key.feature.rawValue]) }
            r[key] = sum / Double(s.encoder.bins)
        }
        return r
    }

    /// The mode's knobs, on scales where their effect is about even. Beat the score: the share
    /// of the board's points (every peg at x1) each shot the clock allows must score, the
    /// shots being its limit over the sweep's mean shot time. Dodge: the clean shots asked for.
    static func knobs(_ s: Sweep) -> GroupRow<EstimateFeature.Knobs> {
        var r = GroupRow<EstimateFeature.Knobs>()
        let level = s.level, start = s.start
        if case let .beatTheScore(b) = level.mode {
            let board = Double(max(level.pegs.reduce(0) { $0 + start.rules.points(for: $1.kind) }, 1))
            r[.btsLnTargetPerShot] = log(Double(max(b.targetScore, 1)) / board * s.shotTime / max(b.timeLimit, 1e-3))
        } else {
            r[.btsLnTargetPerShot] = 0
        }
        if case let .dodge(d) = level.mode { r[.dodgeLnShots] = log(Double(max(d.shots, 1))) } else { r[.dodgeLnShots] = 0 }
        return r
    }

    /// The noise the best aims tolerate (`tolerance` of their profiles).
    static func tolerated(_ s: Sweep, profiles: [[(offset: Double, value: Double)]]) -> GroupRow<EstimateFeature.Tolerance> {
        var r = GroupRow<EstimateFeature.Tolerance>()
        let tolerance = Self.tolerance(profiles)
        // What one shot must do for the player to win half the time, in the shot's value: classic,
        // clear 1 / balls of the oranges; beat the score, score the target over the shots the
        // clock allows (its limit over the sweep's mean shot time); dodge with N shots, be clean
        // with probability 0.5^(1/N) (N clean shots in a row win; a clean shot changes nothing).
        let demand: Double
        switch s.level.mode {
        case let .classic(c): demand = 1 / Double(max(c.balls, 1))
        case let .beatTheScore(b): demand = min(1, s.shotTime / max(b.timeLimit, 1e-3))
        case let .dodge(d): demand = pow(0.5, 1 / Double(max(d.shots, 1)))
        }
        // ln of the largest aim noise at which the best aim still gives that value on average: the
        // direct measurement of sigma50 for one shot, one feature per mode (0 in the others: each
        // mode's own weight). And ln of the noise at which the best aim's value halves.
        let demanded = log(Self.largestSigma(tolerance, atLeast: demand)), kind = s.level.mode.kind
        r[.classicLnSigmaDemand] = kind == .classic ? demanded : 0
        r[.btsLnSigmaDemand] = kind == .beatTheScore ? demanded : 0
        r[.dodgeLnSigmaDemand] = kind == .dodge ? demanded : 0
        r[.lnSigmaHalf] = log(Self.largestSigma(tolerance, atLeast: 0.5 * (tolerance.first ?? 0)))
        return r
    }

    /// The rollouts: what the last oranges demand, which the first two shots do not see
    /// (`rollout`). Two plans, whose noise-free greedy paths differ, so one plan's luck weighs
    /// less: from the first shot a noisy player would choose, and from the other of the
    /// sweep's best aims (`top`). Classic: the pace (oranges cleared a shot over the oranges a
    /// ball must clear), the narrowest window of aims that cleared an orange (radians), and
    /// the noise the game tolerates (`gameSigma`). Beat the score: the points the rollout
    /// scored and the rest of the clock at its last two shots' rate, over the target.
    static func rollouts(_ s: Sweep, noisyBestAim: Int, top: [Int], afterFirst: AfterFirst) -> GroupRow<EstimateFeature.Rollout> {
        var r = GroupRow<EstimateFeature.Rollout>()
        let level = s.level, aims = s.aims, orange = s.orange, balls = s.balls
        let classic = level.mode.kind == .classic
        func shotValue(_ shot: ShotResult) -> Double { classic ? Double(shot.orangeCleared) : Double(shot.points) }
        func rollout(_ plan: Int) -> Rollout {
            let firstAim = plan == 0 ? noisyBestAim : (top.first { $0 != noisyBestAim } ?? noisyBestAim)
            var board = s.start
            if plan == 0 { board = afterFirst.board } else { _ = try? board.shoot(angle: aims[firstAim]) }
            let next = plan == 0 ? afterFirst.sweep : (board.isOver ? [] : s.later(board))
            return Self.rollout(after: board, second: next, laterAims: s.laterAims, fineAims: aims,
                                firstCleared: s.cleared.map { Int($0) }, firstAim: firstAim, sweep: s.later,
                                classic: classic, value: shotValue)
        }
        // Each plan's three features.
        let planKeys: [(pace: EstimateFeature.Rollout, width: EstimateFeature.Rollout, sigma: EstimateFeature.Rollout)] = [
            (.lnPace, .lnWidthMin, .lnSigmaGame), (.otherLnPace, .otherLnWidthMin, .otherLnSigmaGame),
        ]
        var paces: [Double] = []
        for (plan, keys) in planKeys.enumerated() {
            switch level.mode {
            case .classic where orange > 0 && balls > 0:
                let roll = rollout(plan)
                let perShot = max(Double(roll.cleared), 0.5) / Double(roll.shots)
                paces.append(log(perShot * balls / orange))
                r[keys.pace] = paces[plan]
                // No orange-clearing step: the window of an orange no sweep reached, half an aim of the 49.
                r[keys.width] = log(roll.widths.min() ?? 0.5 * (aims[1] - aims[0]))
                r[keys.sigma] = log(Self.gameSigma(roll, left: orange - Double(roll.cleared), balls: balls, fineAims: Self.aims))
            case let .beatTheScore(b) where b.targetScore > 0:
                let roll = rollout(plan)
                let left = max(b.timeLimit - roll.duration, 0)
                let projected = roll.points + (roll.lastDuration > 0 ? left * roll.lastPoints / roll.lastDuration : 0)
                paces.append(log(max(projected, 1) / Double(b.targetScore)))
                r[keys.pace] = paces[plan]
                r[keys.width] = 0
                r[keys.sigma] = 0
            default:
                paces.append(0)
                r[keys.pace] = 0
                r[keys.width] = 0
                r[keys.sigma] = 0
            }
        }
        // How far each plan's ln pace falls below 1 (a pace of e): a bend where the estimate's
        // straight line in the pace does not fit, since a game whose noise-free plan barely keeps
        // up is lost to far less noise than the pace's slope says. One pair per mode, each with
        // its own weights.
        let shortfalls = paces.map { max(0, 1 - $0) }, kind = level.mode.kind
        r[.classicShortfall] = kind == .classic ? shortfalls[0] : 0
        r[.classicOtherShortfall] = kind == .classic ? shortfalls[1] : 0
        r[.btsShortfall] = kind == .beatTheScore ? shortfalls[0] : 0
        r[.btsOtherShortfall] = kind == .beatTheScore ? shortfalls[1] : 0
        return r
    }

    /// What `rollout` found: shots taken (the first included), oranges cleared, points, time, each
    /// orange-clearing shot's window (radians: the run of neighbouring aims of its sweep that clear
    /// an orange too), oranges and sweep, and whether it ended with no aim clearing an orange.
    package struct Rollout {
        var shots = 1, cleared = 0, points = 0.0, duration = 0.0
        /// Points and time of the last two shots.
        var lastPoints = 0.0, lastDuration = 0.0
        var widths: [Double] = []
        package var clearedPerStep: [Double] = []
        /// Each orange-clearing shot's sweep: offsets from its aim and whether that aim clears an orange (1 or 0).
        package var profiles: [[(offset: Double, value: Double)]] = []
        package var stuck = false

        package init() {}
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
    package static func gameSigma(_ r: Rollout, left: Double, balls: Double, fineAims: Int) -> Double {
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
    package static func tolerance(_ profiles: [[(offset: Double, value: Double)]]) -> [Double] {
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
    package static func largestSigma(_ values: [Double], atLeast level: Double) -> Double {
        let s = toleranceSigmas
        guard let last = values.lastIndex(where: { $0 >= level }) else { return s[0] }
        if last == s.count - 1 { return s[last] }
        // values[last] >= level > values[last + 1]: where the line between them meets level.
        let t = (values[last] - level) / (values[last] - values[last + 1])
        return exp(log(s[last]) + t * (log(s[last + 1]) - log(s[last])))
    }
}
