import PeggleGame
import PeggleLevel
import PeggleUtilities

/// One-shot lookahead: for each shot it fires candidate aims on copies of the game (a copy of a
/// `GameState` is cheap and carries the game's random stream, so a copy's shot is exactly what
/// the real shot would do at that angle) and keeps the aim whose shot is worth most by
/// `ShotValue`.
///
/// **Search.** A coarse sweep of `candidates` angles spaced evenly over the whole aim range, then
/// `refineRounds` rounds, each trying `refineCandidates` angles spread evenly over a window
/// around the best so far (strictly inside ± one coarse spacing, half on each side; the window
/// halves every round).
///
/// **Aim noise.** A player who knows their aim wobbles by sigma radians aims where the shot is
/// good *on average*, not at a knife-edge that works only when hit exactly. When the episode's
/// sigma is above 0, each candidate's value is the mean over `noiseSamples` shots at
/// `angle + sigma * z_j`, with z_j the normal quantiles at (j - 1/2) / M: a fixed, stratified
/// sample, so the choice is deterministic and every candidate is judged on the same offsets.
///
/// **Screening under noise** (`screen`, 4 by default; 0 turns it off). Valuing every candidate on every offset
/// costs `(candidates + refineRounds * refineCandidates) * noiseSamples` shots a decision (512 by
/// default). With screening, each round's candidates are first valued on the two offsets nearest
/// one standard deviation either side; only the best quarter (at least 2) are valued on all eight
/// and can be chosen: 48 x 2 + 12 x 6 + 2 x (8 x 2 + 2 x 6) = 224 shots; but when a screened shot
/// wins or loses the game, the whole round gets the full sample (a rare win among the other
/// offsets is what decides such a shot, and two offsets cannot see it). A kept candidate's value
/// is exactly the unscreened one; the choice differs only when the screen drops the candidate the
/// full sample would have chosen (docs/agents.md measures how often, and what it does to sigma50).
///
/// Simulations per decision without noise: `candidates + refineRounds * refineCandidates` (64).
public struct GreedyAgent: Agent {
    /// Angles in the coarse sweep (at least 2).
    public var candidates: Int
    /// Refinement rounds after the sweep.
    public var refineRounds: Int
    /// Angles tried in each refinement round.
    public var refineCandidates: Int
    /// Shots per candidate when the episode has aim noise (at least 1).
    public var noiseSamples: Int
    /// Under aim noise, screen each round's candidates on two offsets and value only the best
    /// `1/screen` of them (at least 2) on every offset; 0 or 1: no screening.
    public var screen: Int
    /// Screening by default: it halves the cost of a rating and moved sigma50 no more than the
    /// seed does (docs/agents.md, docs/performance.md).
    public static let defaultScreen = 4
    /// The other defaults: every greedy agent made without tuning (`rate`'s, the studio's, the
    /// level search's) and the command line's option defaults are these.
    public static let defaultCandidates = 48, defaultRefineRounds = 2, defaultRefineCandidates = 8, defaultNoiseSamples = 8
    /// The ranges the command line (`--candidates`, `--refine`, `--samples`, `--screen`) accepts.
    public static let candidatesRange = 2...10_000, refineRoundsRange = 0...20, refineCandidatesRange = 0...1000,
                      noiseSamplesRange = 1...1000, screenRange = 0...1000
    /// Threads simulating candidates in parallel. Never changes the choice, so it is not a parameter.
    public var threads: Int

    public init(candidates: Int = defaultCandidates, refineRounds: Int = defaultRefineRounds,
                refineCandidates: Int = defaultRefineCandidates, noiseSamples: Int = defaultNoiseSamples,
                screen: Int = defaultScreen, threads: Int = 1) {
        precondition(candidates >= 2 && refineRounds >= 0 && refineCandidates >= 0 && noiseSamples >= 1 && screen >= 0
                     && threads >= 1)
        self.candidates = candidates
        self.refineRounds = refineRounds
        self.refineCandidates = refineCandidates
        self.noiseSamples = noiseSamples
        self.screen = screen
        self.threads = threads
    }

    public var kind: AgentKind { .greedy }
    /// The search is deterministic: it never draws from the stream it is handed.
    public var choiceIgnoresRandomStream: Bool { true }
    public var parameters: [String: String] {
        var p = ["candidates": "\(candidates)", "refine": "\(refineRounds)x\(refineCandidates)", "samples": "\(noiseSamples)"]
        // Screening changes what the agent decides, so it is part of its identity when on.
        if screen > 1 && noiseSamples >= 4 { p["screen"] = "\(screen)" }
        return p
    }

    public func choose(_ game: GameState, context: ShotContext, rng: inout SeededGenerator) -> Double {
        search(game, sigma: context.sigma).angle
    }

    /// The coarse sweep's angles, radians, ascending.
    public func coarseAngles(limit: Double) -> [Double] {
        (0..<candidates).map { -limit + 2 * limit * Double($0) / Double(candidates - 1) }
    }

    /// The offsets, in standard deviations, at which a candidate is tried under aim noise.
    public var noiseOffsets: [Double] {
        noiseSamples == 1 ? [0] : (0..<noiseSamples).map { NormalQuantile.of((Double($0) + 0.5) / Double(noiseSamples)) }
    }

    /// The offsets (indices into `noiseOffsets`) a screened candidate is first valued on: the two
    /// nearest one standard deviation either side (a two-point quadrature of the normal).
    var screenOffsets: [Int] {
        guard noiseSamples >= 4 else { return Array(0..<noiseSamples) }
        let z = noiseOffsets
        let below = (0..<noiseSamples).min { abs(z[$0] + 1) < abs(z[$1] + 1) }!
        return [below, noiseSamples - 1 - below]
    }

    /// The best angle found and its value, with every angle fully valued, in order (for tests and
    /// tools), and the number of shots simulated.
    public func search(_ game: GameState, sigma: Double = 0) -> (angle: Double, value: Double, tried: [(angle: Double, value: Double)]) {
        let r = searchCounting(game, sigma: sigma)
        return (r.angle, r.value, r.tried)
    }

    /// `search`, with the shots it valued (an aim that recurs within the decision, where noise
    /// offsets clamp at the aim limits, counts each time but is simulated once).
    public func searchCounting(_ game: GameState, sigma: Double = 0)
        -> (angle: Double, value: Double, tried: [(angle: Double, value: Double)], simulations: Int) {
        let limit = game.rules.maxAim
        var tried: [(angle: Double, value: Double)] = []
        var screenedOut: [Double] = []
        var simulations = 0
        var memo = ShotMemo()
        let coarse = coarseAngles(limit: limit)
        tried += valued(game, coarse, sigma: sigma, simulations: &simulations, screenedOut: &screenedOut, memo: &memo)
        var best = Self.best(tried)
        var half = 2 * limit / Double(candidates - 1)
        for _ in 0..<refineRounds where refineCandidates > 0 {
            let center = best.angle
            // Strictly inside the window on each side (its ends and centre were tried already).
            let left = refineCandidates / 2, right = refineCandidates - left
            var angles: [Double] = []
            for j in 0..<left { angles.append(center - Double(j + 1) / Double(left + 1) * half) }
            for j in 0..<right { angles.append(center + Double(j + 1) / Double(right + 1) * half) }
            angles.removeAll { a in abs(a) > limit || tried.contains { $0.angle == a } || screenedOut.contains(a) }
            tried += valued(game, angles, sigma: sigma, simulations: &simulations, screenedOut: &screenedOut, memo: &memo)
            best = Self.best(tried)
            half /= 2
        }
        return (best.angle, best.value, tried, simulations)
    }

    /// One round's candidates with their values. Without screening (or without noise) every
    /// candidate is valued on every offset. With screening under noise, every candidate is first
    /// valued on `screenOffsets`; the best `screenKeep(count)` by that screen (ties as `best`)
    /// are valued on every offset and returned, in their order in `angles`; the others are
    /// appended to `screenedOut`. A returned value is exactly what `evaluate` gives.
    func valued(_ game: GameState, _ angles: [Double], sigma: Double, simulations: inout Int,
                screenedOut: inout [Double], memo: inout ShotMemo) -> [(angle: Double, value: Double)] {
        guard sigma > 0, screen > 1, noiseSamples >= 4, angles.count > screenKeep(angles.count) else {
            simulations += angles.count * (sigma > 0 ? noiseSamples : 1)
            return Array(zip(angles, evaluate(game, angles, sigma: sigma, memo: &memo)))
        }
        let first = screenOffsets, m = noiseSamples
        let rest = (0..<m).filter { !first.contains($0) }
        let screened = shots(game, angles, offsets: first, sigma: sigma, memo: &memo)
        simulations += angles.count * first.count
        let screenValues = (0..<angles.count).map { i in screened[i * first.count..<(i + 1) * first.count].reduce(0, +) }
        let order = Self.ranked(Array(zip(angles, screenValues)))
        // When a screened shot wins or loses the game, the game is at stake in this round: a rare
        // win among the unseen offsets is what decides, and two offsets cannot see it, so every
        // candidate gets the full sample.
        let atStake = screened.contains { abs($0) >= ShotValue.win / 2 }
        let kept = order.prefix(atStake ? angles.count : screenKeep(angles.count)).sorted()
        let keptAngles = kept.map { angles[$0] }
        let more = shots(game, keptAngles, offsets: rest, sigma: sigma, memo: &memo)
        simulations += kept.count * rest.count
        for i in order.dropFirst(kept.count) { screenedOut.append(angles[i]) }
        return kept.enumerated().map { k, i in
            // Every offset's shot in offset order, summed as `evaluate` sums them.
            var values = [Double](repeating: 0, count: m)
            for (q, j) in first.enumerated() { values[j] = screened[i * first.count + q] }
            for (q, j) in rest.enumerated() { values[j] = more[k * rest.count + q] }
            return (angles[i], values.reduce(0, +) / Double(m))
        }
    }

    /// Candidates kept for the full noise sample out of `count` screened: a `screen`th, at least 2.
    func screenKeep(_ count: Int) -> Int { max(2, (count + screen - 1) / screen) }

    /// Indices of `values` from best to worst by `best`'s order.
    static func ranked(_ values: [(angle: Double, value: Double)]) -> [Int] {
        values.indices.sorted { a, b in
            let x = values[a], y = values[b]
            if x.value != y.value { return x.value > y.value }
            if abs(x.angle) != abs(y.angle) { return abs(x.angle) < abs(y.angle) }
            return x.angle < y.angle
        }
    }

    /// The best of `tried`: highest value; ties go to the angle closest to straight down, then the
    /// negative one, so the choice never depends on evaluation order.
    package static func best(_ tried: [(angle: Double, value: Double)]) -> (angle: Double, value: Double) {
        var best = tried[0]
        for t in tried.dropFirst() {
            if t.value > best.value || (t.value == best.value && (abs(t.angle) < abs(best.angle)
                || (abs(t.angle) == abs(best.angle) && t.angle < best.angle))) {
                best = t
            }
        }
        return best
    }

    /// Values of aiming at each angle on copies of `game`, in order (the mean over the noise
    /// offsets when sigma > 0), simulated in parallel over `threads`.
    public func evaluate(_ game: GameState, _ angles: [Double], sigma: Double = 0) -> [Double] {
        var memo = ShotMemo()
        return evaluate(game, angles, sigma: sigma, memo: &memo)
    }

    func evaluate(_ game: GameState, _ angles: [Double], sigma: Double, memo: inout ShotMemo) -> [Double] {
        let m = sigma > 0 ? noiseSamples : 1
        let values = shots(game, angles, offsets: Array(0..<m), sigma: sigma, memo: &memo)
        // Summed in a fixed order, so the thread count never changes a value.
        return (0..<angles.count).map { i in values[i * m..<(i + 1) * m].reduce(0, +) / Double(m) }
    }

    /// Values of shots already simulated from one state, by the angle's bit pattern. A shot's
    /// value depends only on the state and the exact angle (the simulation is deterministic),
    /// and near the ends of the aim range several noise offsets clamp to the same angle.
    typealias ShotMemo = [UInt64: Double]

    /// The value of each angle shot at each of `offsets` (indices into `noiseOffsets`, scaled by
    /// sigma; offset 0 when sigma is 0), angle-major, simulated in parallel over `threads`.
    /// Each distinct aim not in `memo` is simulated once and added to it.
    func shots(_ game: GameState, _ angles: [Double], offsets: [Int], sigma: Double, memo: inout ShotMemo) -> [Double] {
        let scaled = sigma > 0 ? offsets.map { noiseOffsets[$0] * sigma } : [0]
        let m = scaled.count, limit = game.rules.maxAim
        let aims = (0..<angles.count * m).map { k in min(max(angles[k / m] + scaled[k % m], -limit), limit) }
        var fresh: [Double] = []
        for a in aims where memo[a.bitPattern] == nil {
            memo[a.bitPattern] = 0
            fresh.append(a)
        }
        let todo = fresh
        var values = [Double](repeating: 0, count: todo.count)
        values.withUnsafeMutableBufferPointer { buf in
            // Each job writes its own slot.
            nonisolated(unsafe) let dst = buf
            Parallel.forEach(todo.count, threads: threads, chunksPerThread: .max) { k in
                dst[k] = Self.value(of: todo[k], on: game)
            }
        }
        for (a, v) in zip(todo, values) { memo[a.bitPattern] = v }
        return aims.map { memo[$0.bitPattern]! }
    }

    /// The value of shooting exactly `angle` from `game`, simulated on a copy.
    public static func value(of angle: Double, on game: GameState) -> Double {
        guard let r = try? game.outcome(ofShooting: angle) else { return -.infinity }
        return ShotValue.of(r.shot, status: r.status, mode: game.level.mode)
    }
}

/// How much one shot is worth to the greedy agent: the game's outcome first, then the mode's goal.
///
/// - won: +1,000,000; lost: -1,000,000 (so, averaged over aim noise, the chance of winning or
///   losing outweighs everything else);
/// - classic: 1,000 per orange peg cleared + 200 per free ball + points / 10 + 1 per peg
///   cleared (fewer pegs left in the way of later shots);
/// - beat the score: points per game second of the shot (time is what runs out; shots under
///   0.5 s count as 0.5 s);
/// - dodge: 1,000 per ball caught (each forgives a later touch) - 100 per peg touched.
public enum ShotValue {
    public static let win = 1_000_000.0

    public static func of(_ r: ShotResult, after game: GameState) -> Double {
        of(r, status: game.status, mode: game.level.mode)
    }

    /// The value of shot `r` that left the game in `status`, in a game of `mode`.
    public static func of(_ r: ShotResult, status: GameStatus, mode: GameMode) -> Double {
        var v = status == .won ? win : status == .lost ? -win : 0
        switch mode {
        case .classic:
            v += 1000 * Double(r.orangeCleared) + 200 * Double(r.freeBalls) + Double(r.points) / 10 + Double(r.hits.total)
        case .beatTheScore:
            v += Double(r.points) / max(r.duration, 0.5)
        case .dodge:
            v += 1000 * Double(r.caught) - 100 * Double(r.hits.total)
        }
        return v
    }
}

/// The standard normal quantile (inverse CDF), Acklam's rational approximation (relative error
/// under 1.2e-9), with the game's own portable log so every machine gets the same bits.
public enum NormalQuantile {
    public static func of(_ p: Double) -> Double {
        precondition(p > 0 && p < 1)
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                 -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        if p < low || p > 1 - low {
            let q = (-2 * SeededGenerator.log(p < low ? p : 1 - p)).squareRoot()
            let x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
            return p < low ? x : -x
        }
        let q = p - 0.5, r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}
