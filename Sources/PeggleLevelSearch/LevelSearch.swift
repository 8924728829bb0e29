import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleEstimate
import PeggleGenerator
import PeggleLevel
import PeggleRating
import PeggleStore
import PeggleUtilities

/// Levels at a requested difficulty: candidates from consecutive generator seeds, screened by the
/// instant estimate, confirmed by the rater; the first `count` that pass, in seed order.
///
/// The result depends only on the settings (and the store's games, which the same settings
/// reproduce): candidates are screened and rated in rounds, but a candidate's estimate and its
/// rating depend on nothing but its own level and seed, so the kept levels are the same whatever
/// the round sizes and the thread count. Ratings go to the store, so a rerun replays them from
/// the stored games instead of playing them again.
public struct LevelSearch: Sendable {
    public struct Settings: Sendable {
        public var target: DifficultyTarget
        public var distribution: LevelDistribution
        /// One template for every candidate, or nil for each seed's own.
        public var template: LevelTemplate?
        public var firstSeed: UInt64
        public var count: Int
        /// Candidates generated at most before the search gives up.
        public var maxCandidates: Int
        /// Rate the candidates the estimate passes, and keep those the rating puts in the target;
        /// without it the estimate alone decides.
        public var confirm: Bool
        /// The rating that confirms: `RatingConfig`'s adaptive defaults, the skill agent alone.
        public var adaptive: AdaptiveSettings
        public var tierEdges: TierEdges
        public var rules: Rules

        public init(target: DifficultyTarget, distribution: LevelDistribution? = nil, template: LevelTemplate? = nil,
                    firstSeed: UInt64 = 0, count: Int, maxCandidates: Int? = nil, confirm: Bool = true,
                    adaptive: AdaptiveSettings = AdaptiveSettings(), tierEdges: TierEdges = TierEdges(), rules: Rules = Rules()) {
            self.target = target
            self.distribution = distribution ?? target.defaultDistribution(edges: tierEdges)
            self.template = template
            self.firstSeed = firstSeed
            self.count = count
            self.maxCandidates = maxCandidates ?? count * Self.candidatesPerLevel
            self.confirm = confirm
            self.adaptive = adaptive
            self.tierEdges = tierEdges
            self.rules = rules
        }

        /// The default limit of candidates per level asked for. The rarest target measured (the
        /// medium tier) kept about one candidate in 25 (docs/generator.md); 100 leaves room.
        public static let candidatesPerLevel = 100
    }

    /// One candidate and what the search learned of it.
    public struct Candidate: Sendable {
        public var seed: UInt64
        public var level: Level
        public var estimate: Sigma50Estimate
        /// The confirming rating's sigma50 (posterior median) and 95% interval; nil when not rated.
        public var rated: SkillFit?
        public var kept: Bool
    }

    /// How a search went.
    public struct Result: Sendable {
        /// The levels kept, in seed order (at most `count`).
        public var kept: [Candidate]
        /// Every candidate the estimate passed, in seed order, with its rating when it was rated
        /// (those past the last level kept may not be).
        public var passed: [Candidate] = []
        /// Candidates generated: the rounds' whole seed ranges.
        public var generated = 0
        /// Games the confirming ratings added to the store, and found there already.
        public var gamesAdded = 0, gamesStored = 0
        public var stopReason: RatingRun.StopReason?
        /// Claims of another live rating run on candidates this search needed (it stopped there).
        public var leftToOtherRuns: [ClaimRecord] = []

        /// Whether the search found every level asked for.
        public func isComplete(count: Int) -> Bool { kept.count == count }

        /// What it took, counted up to the last level kept when the search is complete (a round
        /// may generate and rate past it): candidates generated, passed by the estimate, rated.
        public func cost(firstSeed: UInt64, complete: Bool) -> (candidates: Int, screened: Int, rated: Int) {
            guard complete, let last = kept.last?.seed else {
                return (generated, passed.count, passed.filter { $0.rated != nil }.count)
            }
            let upTo = passed.filter { $0.seed <= last }
            return (Int(last - firstSeed) + 1, upTo.count, upTo.filter { $0.rated != nil }.count)
        }
    }

    public let settings: Settings
    let screen: EstimateScreen
    let skillAgent: any Agent
    let threads: Int
    /// Called with a line for people after each round.
    let progress: @Sendable (String) -> Void

    /// - Parameters:
    ///   - skillAgent: the agent whose sigma50 confirms (the greedy agent, as `peggle rate`'s).
    public init(settings: Settings, model: EstimateModel = .builtIn, skillAgent: any Agent, threads: Int,
                progress: @escaping @Sendable (String) -> Void = { _ in }) {
        precondition(settings.count >= 1 && settings.maxCandidates >= 1 && threads >= 1)
        self.settings = settings
        self.screen = EstimateScreen(target: settings.target, model: model, edges: settings.tierEdges)
        self.skillAgent = skillAgent
        self.threads = threads
        self.progress = progress
    }

    /// The candidate of generator seed `seed`, with its estimate.
    func candidate(seed: UInt64) -> Candidate {
        let level = LevelGenerator.generate(seed: seed, distribution: settings.distribution, template: settings.template,
                                            rules: settings.rules)
        // Generated levels are valid by construction (the generator's tests check every template).
        guard let e = screen.estimate(level, rules: settings.rules) else {
            preconditionFailure("LevelGenerator made an invalid level from seed \(seed)")
        }
        return Candidate(seed: seed, level: level, estimate: e, rated: nil, kept: false)
    }

    /// Runs the search; `store` receives the confirming ratings' games (`command` is recorded with
    /// each rating run). A kill loses nothing committed: a rerun replays the stored games.
    public func run(store: PeggleStore?, command: String) throws(StoreError) -> Result {
        precondition(!settings.confirm || store != nil, "confirming needs a store")
        var result = Result(kept: [])
        var next = settings.firstSeed
        // Candidates the estimate passed, not yet rated (or kept, without confirming), in seed order.
        var queue: [Candidate] = []
        var rated = 0
        while result.kept.count < settings.count {
            // A round takes the next `want` passed candidates: what is missing, times the
            // ratings each kept level has taken so far (2 before the first), at least one per
            // thread. Rounds change the time, never the result: every candidate is judged on its
            // own, and the first kept in seed order are the same however the rounds fall.
            let missing = settings.count - result.kept.count
            let perKept = result.kept.isEmpty ? 2 : Double(rated) / Double(result.kept.count)
            let want = settings.confirm ? max(Int((Double(missing) * perKept).rounded(.up)), threads) : missing
            while queue.count < want && result.generated < settings.maxCandidates {
                // Enough candidates for what the queue lacks at the pass rate seen so far (1 in 4
                // before any, at least 1 in 16), at least two per thread.
                let rate = result.generated == 0 ? 0.25 : max(Double(result.passed.count + queue.count) / Double(result.generated), 1.0 / 16)
                let size = min(max(Int((Double(want - queue.count) / rate).rounded(.up)), 2 * threads),
                               settings.maxCandidates - result.generated)
                let seeds = (0..<size).map { next &+ UInt64($0) }
                next &+= UInt64(size)
                let made = Parallel.map(size, threads: threads, chunksPerThread: Int.max) { candidate(seed: seeds[$0]) }
                result.generated += size
                queue += made.filter { screen.passes($0.estimate) }
            }
            if queue.isEmpty { break }
            var round = Array(queue.prefix(want))
            queue.removeFirst(round.count)
            if settings.confirm {
                let (fits, run) = try rate(round, store: store!, command: command)
                result.gamesAdded += run.added
                result.gamesStored += run.alreadyStored
                if let reason = run.stopReason {
                    result.stopReason = reason
                    return result
                }
                // Another live run holds some of these levels: their ratings are not known yet, and
                // guessing would make the result depend on timing.
                if !run.leftToOtherRuns.isEmpty {
                    result.leftToOtherRuns = run.leftToOtherRuns.map(\.claim)
                    return result
                }
                for k in round.indices {
                    round[k].rated = fits[k]
                    round[k].kept = fits[k].map { settings.target.contains($0.estimate, edges: settings.tierEdges) } ?? false
                }
                rated += round.count
            } else {
                for k in round.indices { round[k].kept = true }
            }
            result.passed += round
            result.kept += round.filter(\.kept).prefix(missing)
            progress("\(result.generated) candidate\(result.generated == 1 ? "" : "s"): \(result.passed.count + queue.count) passed "
                + "the estimate" + (settings.confirm ? ", \(rated) rated" : "") + ", \(result.kept.count) of \(settings.count) kept")
        }
        result.passed += queue
        return result
    }

    /// Rates `candidates` with the skill agent alone (the adaptive method, the store's games
    /// replayed rather than played again) and returns each one's sigma50 fit.
    func rate(_ candidates: [Candidate], store: PeggleStore, command: String) throws(StoreError)
        -> ([SkillFit?], RatingRun.Summary) {
        let config = RatingConfig(method: .adaptive, agents: [skillAgent], skillKind: skillAgent.kind,
                                  adaptive: settings.adaptive, rules: settings.rules)
        let names = candidates.map { "seed \($0.seed)" }
        let run = try RatingRun(store: store, levels: zip(names, candidates).map { ($0, $1.level) }, config: config,
                                command: command, threads: threads)
        let summary = try run.run()
        var fits: [String: SkillFit] = [:]
        for m in summary.measurements { fits[m.level] = m.measurement.posterior.summary() }
        return (names.map { fits[$0] }, summary)
    }
}
