import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleRating
import PeggleStore
import PeggleUtilities

/// The difficulty dial: the fewest small edits (`TuneEdit`) that move a level into a requested
/// difficulty, searched with the instant estimate and confirmed by the rater.
///
/// 1. The level is rated (the skill agent's adaptive rating at `peggle rate`'s defaults). If its
///    rated sigma50 already lies in the target, nothing is edited.
/// 2. The estimate's error on this level is taken from that rating: the offset ln(rated) -
///    ln(estimate). Nearby levels share most of an estimate's error (the same board, a few pegs
///    recoloured), so a prediction for an edited level is its estimate plus the offset.
/// 3. Greedy steps: every single edit of the current level that moves difficulty the needed way
///    (`TuneEdit.direction`; moves only when no such edit helps) is estimated, and the one whose
///    prediction is nearest the target's middle (in ln sigma50) is made, until the prediction
///    lies inside the target by `margin`, no edit brings it nearer, `editsPerRating` edits are
///    made since the last rating, or `maxEdits` in all. A level state is visited once, so a step
///    never undoes an earlier one.
/// 4. The edited level is rated. Inside the target: done. Otherwise the offset is taken from this
///    rating and step 3 goes on from here, while edits and ratings remain.
///
/// The result depends only on the level and the settings: estimates are pure functions of a
/// level, a rating of a level and its seeds, and ties go to the first edit in `TuneEdit.candidates`'
/// order, so any thread count gives the same edits and ratings.
public struct LevelTune: Sendable {
    public struct Settings: Sendable {
        public var target: DifficultyTarget
        /// Edits made at most.
        public var maxEdits: Int
        /// Ratings of edited levels at most (the rating of the original is not counted).
        public var maxConfirmations: Int
        /// Edits made between ratings at most. One: the estimate chooses each edit and the rater
        /// judges it, because the estimate's change under an edit is much less reliable than its
        /// level (five balls fewer, chosen on the estimate alone to predict 0.029, took Upside
        /// Down's rating from 0.107 to 0.00041).
        public var editsPerRating: Int
        /// How far inside the target (ln sigma50) a prediction must lie before it is rated: the
        /// rater's own spread on one level is about 0.2 in ln sigma50 at its default precision.
        public var margin: Double
        /// How far a move shifts a peg, board units (0: no moves).
        public var moveStep: Double
        /// The confirming rating: `RatingConfig`'s adaptive defaults, the skill agent alone.
        public var adaptive: AdaptiveSettings
        /// Game k of each rating has seed `firstSeed + k` (`peggle rate --seed`).
        public var firstSeed: UInt64
        public var tierEdges: TierEdges
        public var rules: Rules

        /// Edits, and ratings of edited levels, at most unless asked otherwise.
        public static let defaultMaxEdits = 6, defaultMaxConfirmations = 6

        public init(target: DifficultyTarget, maxEdits: Int = defaultMaxEdits, maxConfirmations: Int = defaultMaxConfirmations, editsPerRating: Int = 1, margin: Double = 0.3,
                    moveStep: Double = 20, adaptive: AdaptiveSettings = AdaptiveSettings(), firstSeed: UInt64 = 0,
                    tierEdges: TierEdges = TierEdges(), rules: Rules = Rules()) {
            self.target = target
            self.maxEdits = maxEdits
            self.maxConfirmations = maxConfirmations
            self.editsPerRating = editsPerRating
            self.margin = margin
            self.moveStep = moveStep
            self.adaptive = adaptive
            self.firstSeed = firstSeed
            self.tierEdges = tierEdges
            self.rules = rules
        }
    }

    /// One edit made, with the estimate of the level it left.
    public struct Step: Sendable, Equatable {
        public var edit: TuneEdit
        /// The instant estimate of the level after the edit (clamped to the rater's range, as
        /// `peggle estimate` prints it).
        public var estimate: Sigma50Estimate
        /// The estimate corrected by the offset of the rating before it, radians (unclamped).
        public var predicted: Double
    }

    /// A rating made during the search: of the level after `edits` edits.
    public struct Confirmation: Sendable, Equatable {
        public var edits: Int
        public var estimate: Sigma50Estimate
        public var rated: SkillFit
    }

    /// Encoded as its raw value (snake_case, as the studio's and the level format's values).
    public enum Status: String, Sendable, Encodable {
        /// The rated sigma50 of the edited level lies in the target.
        case reached
        /// The original's rated sigma50 lies in the target already: nothing to do.
        case alreadyThere = "already_there"
        /// No rated level of the search lies in the target within the edits and ratings allowed.
        case notReached = "not_reached"
    }

    /// Where the search is, told after each edit made, each rating, and each batch of a rating's
    /// games (the command prints `line`; the studio streams every field).
    public struct Progress: Sendable, Encodable, Equatable {
        /// Edits made so far on the level being searched from the original.
        public var edits: Int
        /// Ratings finished, the original's included.
        public var ratings: Int
        /// Games of the rating under way: played, and at most how many it will play; nil between ratings.
        public var played: Int?, atMost: Int?
        /// What happened, as the command prints it: an edit made or a rating finished; nil for games.
        public var line: String?
    }

    public struct Result: Sendable {
        public var status: Status
        public var original: Level
        /// The tuned level when reached; otherwise the rated level nearest the target (the
        /// original when no edited level was rated).
        public var level: Level
        /// The edits from the original to `level`, in order.
        public var steps: [Step]
        /// Every rating, in order: the original's first (`edits` 0).
        public var confirmations: [Confirmation]
        /// Games the ratings added to the store, and found there already.
        public var gamesAdded = 0, gamesStored = 0
        public var stopReason: RatingRun.StopReason?
        /// Claims of another live rating run on a level this search needed (it stopped there).
        public var leftToOtherRuns: [ClaimRecord] = []

        public var before: Confirmation { confirmations[0] }
        /// The rating of `level`.
        public var after: Confirmation { confirmations.last { $0.edits == steps.count } ?? confirmations[0] }
        /// Whether the search stopped early (a stop request, another run's claim): no verdict.
        public var interrupted: Bool { stopReason != nil || !leftToOtherRuns.isEmpty }
    }

    /// The edits, and the ratings of edited levels, a caller may ask for at most (the command's
    /// `--max-edits` and `--max-ratings`, the studio's `max_edits` and `max_ratings`).
    public static let limits = 1...20

    public let settings: Settings
    let model: EstimateModel
    let skillAgent: any Agent
    let threads: Int
    let progress: @Sendable (Progress) -> Void
    /// Told each rating run before it starts, so a caller can stop it (`RatingRun.requestStop`):
    /// the studio does when the page that asked goes away.
    public var onRun: @Sendable (RatingRun) -> Void = { _ in }

    /// - Parameters:
    ///   - skillAgent: the agent whose sigma50 confirms (the greedy agent, as `peggle rate`'s).
    public init(settings: Settings, model: EstimateModel = .builtIn, skillAgent: any Agent, threads: Int,
                progress: @escaping @Sendable (Progress) -> Void = { _ in }) {
        precondition(settings.maxEdits >= 0 && settings.maxConfirmations >= 0 && settings.editsPerRating >= 1 && threads >= 1
            && settings.margin >= 0)
        self.settings = settings
        self.model = model
        self.skillAgent = skillAgent
        self.threads = threads
        self.progress = progress
    }

    /// The estimate of a valid level, and its unclamped ln sigma50 (the search's scale: a clamped
    /// estimate would not move while a level stays past the rater's range).
    func estimate(_ level: Level) -> (Sigma50Estimate, Double)? {
        guard let prepared = try? PreparedLevel(level, rules: settings.rules) else { return nil }
        let f = LevelFeatures(prepared)
        return (Sigma50Estimate(features: f, model: model, tierEdges: settings.tierEdges), model.predictLog(f))
    }

    /// The target's range in ln sigma50; the open ends (the rater's range's) count as infinite.
    var logRange: (low: Double, high: Double) {
        let (low, high) = settings.target.range(edges: settings.tierEdges)
        return (low <= SkillModel.lowest ? -.infinity : log(low), high >= SkillModel.highest ? .infinity : log(high))
    }

    /// Where predictions are steered: the middle of the target in ln sigma50, or for an open-ended
    /// target 1 (a factor e) inside its edge.
    var aim: Double {
        let (low, high) = logRange
        switch (low.isFinite, high.isFinite) {
        case (true, true): return (low + high) / 2
        case (true, false): return low + 1
        case (false, true): return high - 1
        case (false, false): return 0
        }
    }

    func comfortablyInside(_ x: Double) -> Bool {
        let (low, high) = logRange
        return x >= low + settings.margin && x < high - settings.margin
    }

    /// Tunes `level` (valid: the caller checks); `store` receives the ratings' games.
    public func run(_ level: Level, store: PeggleStore, command: String) throws(StoreError) -> Result {
        guard let first = estimate(level) else { preconditionFailure("LevelTune needs a valid level") }
        let (e0, y0) = first
        var result = Result(status: .notReached, original: level, level: level, steps: [], confirmations: [])
        guard let r0 = try rate(level, edits: 0, estimate: e0, into: &result, store: store, command: command) else { return result }
        if settings.target.contains(r0.estimate, edges: settings.tierEdges) {
            result.status = .alreadyThere
            return result
        }
        var offset = log(r0.estimate) - y0
        var current = (level: level, log: y0, steps: [Step]())
        var visited: Set<Level> = [level]
        var best = (distance: settings.target.logDistance(r0.estimate, edges: settings.tierEdges), level: level, steps: [Step]())
        var confirmations = 0, ratedAt = 0
        while true {
            // Greedy steps by the estimate.
            while current.steps.count < settings.maxEdits && current.steps.count - ratedAt < settings.editsPerRating
                    && !comfortablyInside(current.log + offset) {
                let here = current.level
                // Only edits of the sign needed (and moves, whose sign depends on the board).
                let wanted = current.log + offset > aim ? 1 : -1
                let all = TuneEdit.candidates(of: here, moveStep: settings.moveStep, rules: settings.rules)
                    .filter { ($0.direction(in: here.mode.kind) ?? wanted) == wanted }
                // Recolours and mode fields first; moves only when none of them helps. A move's
                // effect on the estimate is mostly the estimate's own noise (a 20-unit move of one
                // peg moved Purple Haze's estimate by a factor 3, from 0.204 to 0.072, while the
                // move and a recolour moved its rating from 0.224 to 0.172), so the
                // greedy step, which picks the largest predicted change, would favour the noisiest.
                var picked: (edit: TuneEdit, level: Level, estimate: Sigma50Estimate, log: Double)?
                for moves in [false, true] {
                    let edits = all.filter { ($0.kind == .move) == moves }
                    let levels = edits.map { try? $0.applied(to: here, rules: settings.rules) }
                    let seen = visited
                    let estimates = Parallel.map(edits.count, threads: threads) { k -> (Sigma50Estimate, Double)? in
                        guard let l = levels[k], !seen.contains(l) else { return nil }
                        return estimate(l)
                    }
                    // The nearest the aim; the first of equals (the candidates' fixed order).
                    var pick: Int?
                    for k in estimates.indices {
                        guard let y = estimates[k]?.1 else { continue }
                        if pick == nil || abs(y + offset - aim) < abs(estimates[pick!]!.1 + offset - aim) { pick = k }
                    }
                    if let k = pick, let found = estimates[k], abs(found.1 + offset - aim) < abs(current.log + offset - aim) {
                        picked = (edits[k], levels[k]!, found.0, found.1)
                        break
                    }
                }
                guard let picked else { break }
                let (e, y, next) = (picked.estimate, picked.log, picked.level)
                visited.insert(next)
                current.steps.append(Step(edit: picked.edit, estimate: e, predicted: exp(y + offset)))
                current = (next, y, current.steps)
                progress(Progress(edits: current.steps.count, ratings: result.confirmations.count,
                                  line: "edit \(current.steps.count): \(picked.edit); estimate \(Self.text(e.sigma50)), "
                                      + "predicted \(Self.text(exp(y + offset)))"))
            }
            // Nothing new to rate (no edit since the last rating), or no rating left.
            if current.steps.count == ratedAt || confirmations >= settings.maxConfirmations { break }
            ratedAt = current.steps.count
            let e = estimate(current.level)!.0
            confirmations += 1
            guard let r = try rate(current.level, edits: current.steps.count, estimate: e, into: &result, store: store,
                                   command: command) else { return result }
            let d = settings.target.logDistance(r.estimate, edges: settings.tierEdges)
            if d < best.distance { best = (d, current.level, current.steps) }
            if d == 0 {
                result.status = .reached
                break
            }
            offset = log(r.estimate) - current.log
            if current.steps.count >= settings.maxEdits || confirmations >= settings.maxConfirmations { break }
        }
        result.level = best.level
        result.steps = best.steps
        return result
    }

    /// Rates `level` (the skill agent alone, adaptive, stored games replayed) and records it; nil
    /// when the rating stopped early or another run holds the level (the result says which).
    func rate(_ level: Level, edits: Int, estimate: Sigma50Estimate, into result: inout Result, store: PeggleStore,
              command: String) throws(StoreError) -> SkillFit? {
        let config = RatingConfig(method: .adaptive, agents: [skillAgent], skillKind: skillAgent.kind,
                                  adaptive: settings.adaptive, firstSeed: settings.firstSeed, rules: settings.rules)
        let name = edits == 0 ? level.name : "\(level.name) (\(edits) edit\(edits == 1 ? "" : "s"))"
        let ratings = result.confirmations.count
        let run = try RatingRun(store: store, levels: [(name, level)], config: config, command: command, threads: threads) { event in
            if case let .progress(played, atMost, _) = event {
                progress(Progress(edits: edits, ratings: ratings, played: played, atMost: atMost))
            }
        }
        onRun(run)
        let summary = try run.run()
        result.gamesAdded += summary.added
        result.gamesStored += summary.alreadyStored
        if let reason = summary.stopReason {
            result.stopReason = reason
            return nil
        }
        if !summary.leftToOtherRuns.isEmpty {
            result.leftToOtherRuns = summary.leftToOtherRuns.map(\.claim)
            return nil
        }
        guard let fit = summary.measurements.first?.measurement.posterior.summary() else { return nil }
        result.confirmations.append(Confirmation(edits: edits, estimate: estimate, rated: fit))
        progress(Progress(edits: edits, ratings: result.confirmations.count,
                          line: "rated after \(edits) edit\(edits == 1 ? "" : "s"): sigma50 \(Self.text(fit.estimate)) "
                              + "(\(Self.text(fit.low))-\(Self.text(fit.high))), tier \(settings.tierEdges.tier(sigma50: fit.estimate).rawValue)"))
        return fit
    }

    static func text(_ v: Double) -> String { DecimalText.significant(v, digits: 3) }
}
