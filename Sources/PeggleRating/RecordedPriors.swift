import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PeggleStore

/// Which prior a report fits each level's skill games with (docs/measurement.md, "The prior a report
/// fits with").
public enum ReportPrior: String, Sendable, CaseIterable {
    /// The prior the rating runs that stored the games measured with, as their configuration
    /// recorded it: the report then gives the sigma50 `peggle rate` printed.
    case recorded
    case flat, population
    case populationEstimate = "population+estimate"
}

/// Reads from a rating database the prior each (level, agent) skill curve is fitted with.
public enum RecordedPriors {
    /// The fit priors of every (level, agent) with games in `store` (of the levels with a content
    /// hash in `levels`, when given), under `choice`; a level the store holds but that does not
    /// decode is fitted flat. Flat entries are left out (flat is what `RatingOptions` assumes).
    public static func fitPriors(_ store: PeggleStore, choice: ReportPrior = .recorded,
                                 levels: Set<String>? = nil) throws(StoreError) -> [FitPriorKey: FitPrior] {
        if choice == .flat { return [:] }
        let gameRuns = try store.gameRuns().filter { levels?.contains($0.levelHash) ?? true }
        var estimates: [String: X50Prior?] = [:]
        // Level files are read only when an estimate is needed (most databases never need one).
        var levelJSON: [String: String]?
        let stored = { () throws(StoreError) -> [String: String] in
            Dictionary(try store.levels().map { ($0.contentHash, $0.json) }, uniquingKeysWith: { a, _ in a })
        }
        // The built-in estimate's x50 prior of a stored level, computed once per level.
        func estimate(_ hash: String) -> X50Prior? {
            if let known = estimates[hash] { return known }
            if levelJSON == nil { levelJSON = (try? stored()) ?? [:] }
            let prior = levelJSON?[hash].flatMap { try? LevelCodec.decode(Data($0.utf8)) }
                .flatMap { try? PreparedLevel($0) }
                .flatMap { RatingRun.x50Prior($0, .populationEstimate) }
            estimates[hash] = prior
            return prior
        }
        var out: [FitPriorKey: FitPrior] = [:]
        switch choice {
        case .flat:
            break
        case .population:
            for g in gameRuns { out[FitPriorKey(levelHash: g.levelHash, agentLabel: g.agentLabel)] = FitPrior(.population) }
        case .populationEstimate:
            for g in gameRuns {
                let key = FitPriorKey(levelHash: g.levelHash, agentLabel: g.agentLabel)
                if let x50 = estimate(g.levelHash) {
                    out[key] = FitPrior(.populationEstimate, x50: x50)
                } else {
                    out[key] = FitPrior(.flat, warning: noEstimate)
                }
            }
        case .recorded:
            var configurations: [Int64: RunConfiguration] = [:]
            for run in try store.runs() {
                if let id = run.id, let c = RunConfiguration.decode(run.configuration) { configurations[id] = c }
            }
            let grouped = Dictionary(grouping: gameRuns) { FitPriorKey(levelHash: $0.levelHash, agentLabel: $0.agentLabel) }
            for (key, runs) in grouped {
                // The priors the runs measured this agent's games on this level with, in run order.
                var measured: [FitPrior] = []
                for g in runs {
                    guard let c = configurations[g.runID], let adaptive = c.adaptive, c.skillKind == g.agentKind else { continue }
                    let p = recorded(adaptive, level: c.levels.first { $0.hash == key.levelHash }, estimate: { estimate(key.levelHash) })
                    // Two runs with the same prior are one, whatever either run's warning says.
                    if !measured.contains(where: { $0.kind == p.kind && $0.x50 == p.x50 }) { measured.append(p) }
                }
                if measured.count > 1 {
                    out[key] = FitPrior(.flat, warning: "the skill games were measured by runs with different priors ("
                        + measured.map(\.kind.rawValue).joined(separator: ", ") + "): fitted with the flat prior")
                } else if let p = measured.first, p != .flat {
                    out[key] = p
                }
            }
        }
        return out
    }

    static let noEstimate = "the level's stored file does not validate, so it has no estimate: fitted with the flat prior"

    /// The prior one run measured a level with, as its configuration says.
    package static func recorded(_ adaptive: RunConfiguration.Adaptive, level: RunConfiguration.Level?,
                         estimate: () -> X50Prior?) -> FitPrior {
        let kind = adaptive.prior ?? .flat
        if kind != .flat, adaptive.priorVersion != SkillPrior.populationVersion {
            return FitPrior(.flat, warning: "the skill games were measured with the population prior "
                + "\(adaptive.priorVersion ?? "(no version)"), which this build does not have "
                + "(it has \(SkillPrior.populationVersion)): fitted with the flat prior")
        }
        switch kind {
        case .flat: return .flat
        case .population: return FitPrior(.population)
        case .populationEstimate:
            if let x = level?.x50Prior, x.mean.isFinite, x.sd.isFinite, x.sd > 0 {
                return FitPrior(.populationEstimate, x50: X50Prior(mean: x.mean, sd: x.sd))
            }
            // Runs from before the configuration kept each level's estimate: today's estimate.
            if let x50 = estimate() { return FitPrior(.populationEstimate, x50: x50) }
            return FitPrior(.flat, warning: noEstimate)
        }
    }
}
