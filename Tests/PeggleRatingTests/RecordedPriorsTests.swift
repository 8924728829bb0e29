import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleRating
import PeggleStore
import Testing

/// The report fits each level's skill games from the prior the rating runs measured them with
/// (docs/measurement.md, "The prior a report fits with"), read back from the runs' configurations.
/// The random agent is the skill agent here: its games are cheap, and the plumbing is the same.
@Suite struct RecordedPriorsTests {
    static let level = Level(name: "Recorded prior", mode: .classic(balls: 3),
                             pegs: [Peg(id: 1, kind: .orange, center: Vec2(400, 300)),
                                    Peg(id: 2, kind: .orange, center: Vec2(250, 420)),
                                    Peg(id: 3, kind: .blue, center: Vec2(300, 350))])
    static let key = FitPriorKey(levelHash: level.contentHash, agentLabel: RandomAgent().label)

    /// Rates the level with the random agent as skill agent under `prior`; returns the run's
    /// measurement and x50 prior.
    static func rate(_ store: PeggleStore, prior: PriorKind, seed: UInt64 = 0) throws -> (fit: SkillFit, x50: X50Prior?) {
        let config = RatingConfig(agents: [RandomAgent()], skillKind: .random,
                                  adaptive: AdaptiveSettings(budget: 16, prior: prior), firstSeed: seed)
        let run = try RatingRun(store: store, levels: [("recorded.json", level)], config: config, command: "test", threads: 1,
                                startedAt: Date(timeIntervalSince1970: 0))
        let summary = try run.run()
        let m = try #require(summary.measurements.first?.measurement)
        return (m.posterior.summary(), run.x50Priors[0])
    }

    static func reportFit(_ store: PeggleStore, choice: ReportPrior = .recorded) throws -> (LevelRating, [FitPriorKey: FitPrior]) {
        let priors = try RecordedPriors.fitPriors(store, choice: choice)
        return (try #require(DifficultyRater.rate(try store.games(), options: RatingOptions(skillAgentKind: .random, fitPriors: priors)).first),
                priors)
    }

    /// Equal up to the order the games' likelihoods were added in (the run adds them game by
    /// game, the report by sigma).
    static func same(_ a: SkillFit, _ b: SkillFit) -> Bool {
        func near(_ x: Double, _ y: Double) -> Bool { abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-12) }
        return a.games == b.games && near(a.estimate, b.estimate) && near(a.low, b.low) && near(a.high, b.high)
            && near(a.ceiling, b.ceiling) && near(a.floor, b.floor) && near(a.slope, b.slope)
    }

    @Test(arguments: [PriorKind.population, .populationEstimate])
    func theReportFitsTheGamesFromThePriorTheRunMeasuredWith(_ prior: PriorKind) throws {
        let store = try PeggleStore()
        let measured = try Self.rate(store, prior: prior)
        let (rating, priors) = try Self.reportFit(store)
        #expect(priors[Self.key] == FitPrior(prior, x50: measured.x50))
        let skill = try #require(rating.skill)
        #expect(skill.prior == prior)
        #expect(Self.same(skill.fit, measured.fit))
        #expect(rating.warnings.allSatisfy { !$0.contains("prior") })
        // The flat prior reads the same games otherwise: the choice is not a no-op.
        let (flat, none) = try Self.reportFit(store, choice: .flat)
        #expect(none.isEmpty && flat.skill?.prior == .flat)
        let flatSkill = try #require(flat.skill)
        #expect(!Self.same(flatSkill.fit, measured.fit))
    }

    @Test func theRunKeepsEachLevelsEstimateSoALaterModelDoesNotChangeItsReading() throws {
        let store = try PeggleStore()
        let measured = try Self.rate(store, prior: .populationEstimate)
        let x50 = try #require(measured.x50)
        let run = try #require(try store.runs().first)
        let configuration = try #require(RunConfiguration.decode(run.configuration))
        #expect(configuration.adaptive?.prior == .populationEstimate)
        #expect(configuration.adaptive?.priorVersion == SkillPrior.populationVersion)
        #expect(configuration.levels.map(\.hash) == [Self.level.contentHash])
        // Read back bit for bit (JSONDecoder reads the shortest representation exactly).
        #expect(configuration.levels[0].x50Prior == RunConfiguration.RecordedX50(mean: x50.mean, sd: x50.sd))
        // A stored estimate, not today's model, is what the report fits with.
        let shifted = RunConfiguration.Level(file: "recorded.json", hash: Self.level.contentHash,
                                             x50Prior: .init(mean: x50.mean + 1, sd: 0.5))
        let adaptive = try #require(configuration.adaptive)
        #expect(RecordedPriors.recorded(adaptive, level: shifted, estimate: { x50 })
                == FitPrior(.populationEstimate, x50: X50Prior(mean: x50.mean + 1, sd: 0.5)))
        // A run from before runs kept it: today's estimate.
        #expect(RecordedPriors.recorded(adaptive, level: nil, estimate: { x50 }) == FitPrior(.populationEstimate, x50: x50))
    }

    @Test func runsThatMeasuredWithDifferentPriorsAreFittedFlatWithAWarning() throws {
        let store = try PeggleStore()
        _ = try Self.rate(store, prior: .flat)
        _ = try Self.rate(store, prior: .population, seed: 1000)  // other seeds: its own games
        let (rating, priors) = try Self.reportFit(store)
        let expected = "the skill games were measured by runs with different priors (flat, population): fitted with the flat prior"
        #expect(priors[Self.key] == FitPrior(.flat, warning: expected))
        #expect(rating.skill?.prior == .flat)
        #expect(rating.warnings.contains(expected))
    }

    @Test func gridRunsAndRunsFromBeforePriorsWereAChoiceReadFlat() throws {
        let store = try PeggleStore()
        let grid = RatingConfig(method: .grid, agents: [RandomAgent()], skillKind: .random, games: 4, sigmas: [0, 0.05])
        _ = try RatingRun(store: store, levels: [("recorded.json", Self.level)], config: grid, command: "test", threads: 1).run()
        #expect(try RecordedPriors.fitPriors(store).isEmpty)
        #expect(try Self.reportFit(store).0.skill?.prior == .flat)
        // The adaptive object as runs wrote it before `prior` and `stop` existed.
        let old = """
            {"adaptive":{"batch_size":8,"budget":160,"placement":"quantile","precision":1.25},"agents":["random"],\
            "first_seed":0,"games":20,"levels":[{"file":"a.json","hash":"abc"}],"max_shots":100,"method":"adaptive",\
            "skill_kind":"greedy"}
            """
        let decoded = try #require(RunConfiguration.decode(old))
        #expect(decoded.adaptive?.prior == nil && decoded.levels[0].x50Prior == nil)
        let adaptive = try #require(decoded.adaptive)
        #expect(RecordedPriors.recorded(adaptive, level: decoded.levels[0], estimate: { nil }) == .flat)
        // A run's configuration this type does not read counts as no adaptive run.
        #expect(RunConfiguration.decode("{}") == nil)
    }

    @Test func aPopulationPriorVersionThisBuildDoesNotHaveIsFittedFlatWithAWarning() {
        let adaptive = RunConfiguration.Adaptive(batchSize: 8, budget: 160, precision: 1.25, placement: "quantile",
                                                 prior: .population, stop: "precision", priorVersion: "population-0")
        #expect(RecordedPriors.recorded(adaptive, level: nil, estimate: { nil })
                == FitPrior(.flat, warning: "the skill games were measured with the population prior population-0, which "
                    + "this build does not have (it has \(SkillPrior.populationVersion)): fitted with the flat prior"))
    }
}
