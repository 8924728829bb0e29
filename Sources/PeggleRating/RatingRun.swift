import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleStore
import PeggleUtilities
import Synchronization

/// What a rating run reports while it works.
public enum RatingEvent: Sendable {
    /// Games played so far in this run, and at most how many it will play in all (the adaptive
    /// method stops levels early, so the bound shrinks as it goes).
    case progress(played: Int, atMost: Int, final: Bool)
    /// A level's adaptive measurement ended.
    case measured(level: String, agent: String, fit: SkillFit, stop: SkillMeasurement.Stop)
}

/// One rating run: registers the levels and agents in the store, plays every game not yet stored
/// on worker threads, and hands finished games to the single writer.
///
/// **One queue.** Every fixed-schedule game (grid, or the adaptive method's context games) and
/// each measured level's first batch are queued at the start; when a level's batch is complete,
/// its next batch, chosen from the outcomes so far, joins the queue (`GameScheduler`). A batch
/// depends only on its own level's outcomes, recorded in the batch's order, so the choices never
/// depend on the threads.
///
/// **Resume.** Games already in the store are not played again: a measurement replays its
/// batches from the stored outcomes (the same choices, since the outcomes are the same) and plays
/// from the first batch with a game missing. Each level is validated and built once; every game
/// starts from a copy; the first choice of a deterministic agent at a sigma is computed once per
/// level and shared by every game (every game of a level starts from the same board).
public final class RatingRun: @unchecked Sendable {
    public enum StopReason: Sendable, Equatable, CustomStringConvertible {
        case interrupted
        case testHook(batches: Int)
        case storeFailed

        public var description: String {
            switch self {
            case .interrupted: "interrupted"
            case let .testHook(b): "stopped after \(b) batches (--stop-after-batches)"
            case .storeFailed: "the database refused a batch"
            }
        }
    }

    /// How a run went.
    public struct Summary: Sendable {
        /// Levels this run rated (not those it left to another run), and agents.
        public var levels: Int, agents: Int
        /// Games this run stored, and games found stored already: skipped or replayed, or played
        /// and then found stored by another run when their batch was committed.
        public var added: Int, alreadyStored: Int
        /// Levels another running `rate` had claimed on the same database when this run started:
        /// left to it, not played (the claim names the process).
        public var leftToOtherRuns: [(level: String, claim: ClaimRecord)] = []
        public var seconds: Double
        /// Why the run stopped before the end, if it did.
        public var stopReason: StopReason?
        /// Each measured (level, agent) and its fit when the run ended, in level then agent order.
        public var measurements: [(level: String, agent: String, measurement: SkillMeasurement)]
    }

    let store: PeggleStore
    let config: RatingConfig
    let levels: [(name: String, prepared: PreparedLevel, id: Int64)]
    /// Each level's x50 prior under the run's prior (nil unless it is population+estimate).
    package let x50Priors: [X50Prior?]
    let agentIDs: [Int64]
    package let runID: Int64
    let threads: Int, commitBatch: Int
    let stopAfterBatches: Int?
    /// A test hook called on the writer thread after each committed batch with the batch count
    /// (the CLI's kill -9 test blocks there to be killed at a known point).
    public var afterCommit: (@Sendable (_ batches: Int) -> Void)?
    let events: @Sendable (RatingEvent) -> Void
    private let stopRequest = Atomic<Bool>(false)

    /// Registers `levels` (already validated by the caller: each is checked again here, and a
    /// level that is not valid is a precondition failure) and the config's agents, and records
    /// the run's start.
    /// - Parameters:
    ///   - levels: a display name (the file) and the level.
    ///   - command: the command line, stored with the run.
    ///   - commitBatch: games per transaction.
    ///   - stopAfterBatches: a test hook: stop as a crash would, after this many committed batches.
    public init(store: PeggleStore, levels: [(name: String, level: Level)], config: RatingConfig, command: String,
                threads: Int, commitBatch: Int = 25, stopAfterBatches: Int? = nil, startedAt: Date = Date(),
                events: @escaping @Sendable (RatingEvent) -> Void = { _ in }) throws(StoreError) {
        precondition(threads >= 1 && commitBatch >= 1)
        self.store = store
        self.config = config
        self.threads = threads
        self.commitBatch = commitBatch
        self.stopAfterBatches = stopAfterBatches
        self.events = events
        var registered: [(name: String, prepared: PreparedLevel, id: Int64)] = []
        for (name, level) in levels {
            let prepared: PreparedLevel
            do { prepared = try PreparedLevel(level, rules: config.rules) } catch {
                preconditionFailure("\(name): \(error)")
            }
            registered.append((name, prepared, try store.level(LevelRecord(level: level, hash: prepared.hash))))
        }
        self.levels = registered
        x50Priors = registered.map { Self.x50Prior($0.prepared, config.adaptive.prior) }
        var ids: [Int64] = []
        for agent in config.agents { ids.append(try store.agent(AgentRecord(agent: agent, physics: config.rules.physicsVersion))) }
        agentIDs = ids
        let configuration: String
        do { configuration = try Self.configurationJSON(config, levels: registered, x50Priors: x50Priors) } catch {
            // Every number in it is checked finite (the priors above, the options by the command).
            throw .sqlite(path: store.path, message: "the run's configuration cannot be written as JSON (\(error))")
        }
        runID = try store.beginRun(command: command, configuration: configuration,
                                   engineVersion: PeggleGym.version, startedAt: startedAt)
    }

    /// Asks the run to stop (Ctrl-C): no new game starts; finished games are committed.
    public func requestStop() { stopRequest.store(true, ordering: .relaxed) }

    /// Plays the run to its end (or until asked to stop) and records its end in the store.
    /// First it claims its levels in the store: a level another running process has claimed is
    /// left to that run (`Summary.leftToOtherRuns`), so two runs on one database do not play the
    /// same games. The claims are released when the run ends.
    public func run(finishedAt: () -> Date = { Date() }) throws(StoreError) -> Summary {
        let start = DispatchTime.now().uptimeNanoseconds
        let agents = config.agents
        typealias Key = GameScheduler.Key
        let held = try store.claim(levels: levels.map(\.id), runID: runID)
        defer { try? store.releaseClaims(runID: runID) }
        let heldIDs = Set(held.map(\.levelID))
        let mine = self.levels.indices.filter { !heldIDs.contains(self.levels[$0].id) }
        var stored: [Key: [EpisodeKey: Bool]] = [:]
        for l in mine {
            for a in agents.indices {
                let games = try store.games(levelID: levels[l].id, agentID: agentIDs[a])
                stored[Key(level: l, agent: a)] = Dictionary(games.map { ($0.key, $0.won) },
                                                             uniquingKeysWith: { a, _ in a })
            }
        }
        var alreadyStored = 0
        // Fixed-schedule games.
        var fixed: [GameScheduler.Job] = []
        for l in mine {
            for (a, agent) in agents.enumerated() where !config.isMeasured(agent) {
                let sigmas = config.method == .grid ? config.sigmas : [0]
                for sigma in sigmas {
                    for k in 0..<config.games {
                        let seed = config.firstSeed &+ UInt64(k)
                        if stored[Key(level: l, agent: a)]![EpisodeKey(seed: seed, sigma: sigma)] != nil {
                            alreadyStored += 1
                        } else {
                            fixed.append(GameScheduler.Job(level: l, agent: a, seed: seed, sigma: sigma))
                        }
                    }
                }
            }
        }
        // Adaptive measurements, in level then agent order.
        var measured: [(Key, SkillMeasurement)] = []
        for l in mine {
            for (a, agent) in agents.enumerated() where config.isMeasured(agent) {
                measured.append((Key(level: l, agent: a), SkillMeasurement(settings: config.adaptive, firstSeed: config.firstSeed,
                                                                           x50: x50Priors[l])))
            }
        }
        let scheduler = GameScheduler(fixed: fixed, measured: measured, stored: stored, budget: config.adaptive.budget)
        let levels = self.levels, events = self.events, ids = agentIDs, maxShots = config.maxShots
        let announce = { @Sendable (key: Key, m: SkillMeasurement) in
            events(.measured(level: levels[key.level].name, agent: agents[key.agent].label, fit: m.posterior.summary(),
                             stop: m.stop!))
        }
        for key in scheduler.stoppedBeforeStart { announce(key, scheduler.measurements[key]!) }

        let writer = GameWriter(store: store, runID: runID, batch: commitBatch, stopAfterBatches: stopAfterBatches,
                                progressInterval: 0.25, afterCommit: afterCommit) { played, final in
            events(.progress(played: played, atMost: played + scheduler.atMost, final: final))
        }
        Parallel.forEach(threads, threads: threads, chunksPerThread: 1) { _ in
            scheduler.work(
                shouldStop: {
                    if self.stopRequest.load(ordering: .relaxed) { writer.requestStop(.interrupted) }
                    return writer.stopping
                },
                sharesFirstChoice: { agents[$0].choiceIgnoresRandomStream },
                firstChoice: { k in
                    let agent = agents[k.agent]
                    return Episode.firstChoice(agent, prepared: levels[k.level].prepared, sigma: k.sigma, maxShots: maxShots)
                },
                play: { job, first in
                    let agent = agents[job.agent]
                    return Episode.play(agent, prepared: levels[job.level].prepared, seed: job.seed, sigma: job.sigma,
                                        maxShots: maxShots, firstChoice: first)
                },
                finished: { job, game in writer.add(game, levelID: levels[job.level].id, agentID: ids[job.agent]) },
                measured: announce)
        }
        let state = writer.finish()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if let failure = state.failure { throw failure }
        try store.finishRun(runID, episodesAdded: state.added, finishedAt: finishedAt())
        // Fold the WAL into the database file, so the file alone holds every game (a copy of just
        // the .sqlite is complete). A reader holding the WAL only delays this to a later run.
        try store.checkpoint()
        // A game played here but found stored when its batch was committed was stored by another
        // run meanwhile (one that claimed the level after this run's claim was taken for dead).
        return Summary(levels: mine.count, agents: agents.count, added: state.added,
                       alreadyStored: alreadyStored + scheduler.replayed + (state.played - state.added),
                       leftToOtherRuns: held.map { claim in (levels.first { $0.id == claim.levelID }!.name, claim) },
                       seconds: seconds, stopReason: state.stopReason,
                       measurements: scheduler.keys.map { (levels[$0.level].name, agents[$0.agent].label, scheduler.measurements[$0]!) })
    }

    /// The x50 prior of a level under `prior`: with `.populationEstimate`, normal about the built-in
    /// instant estimate's ln sigma50 (unclamped) with its cross-validated predictive sd.
    static func x50Prior(_ level: PreparedLevel, _ prior: PriorKind) -> X50Prior? {
        guard prior == .populationEstimate else { return nil }
        let model = EstimateModel.builtIn
        let mean = model.predictLog(LevelFeatures(level))
        // A level the model cannot put a number on gets no prior from it (flat), not a NaN one.
        return mean.isFinite ? X50Prior(mean: mean, sd: model.residualSD) : nil
    }

    /// The run's settings as the `run` row keeps them.
    static func configurationJSON(_ c: RatingConfig, levels: [(name: String, prepared: PreparedLevel, id: Int64)],
                                  x50Priors: [X50Prior?]) throws -> String {
        try RunConfiguration(c, levels: zip(levels, x50Priors).map { ($0.name, $0.prepared.hash, $1) }).json
    }
}

extension LevelRecord {
    /// The store's row of `level`, whose content hash is `hash`.
    public init(level l: Level, hash: String) {
        self.init(contentHash: hash, name: l.name, json: LevelCodec.encode(l), mode: l.mode.kind,
                  power: l.power, pegCount: l.pegs.count, blue: l.count(of: .blue), orange: l.count(of: .orange),
                  green: l.count(of: .green), purple: l.count(of: .purple), zombie: l.count(of: .zombie),
                  confusement: l.count(of: .confusement), blockCount: l.blocks.count)
    }
}

extension AgentRecord {
    /// The store's row of `agent` playing under `physics`: kind, parameters as JSON with sorted
    /// keys, weights hash. Under version 2 the parameters and label also say `physics=2`, so its
    /// games are another agent's: they never share a key with version 1's, a report shows them
    /// as their own rows, and a merge keeps them apart. Version 1 adds nothing: the same text
    /// `peggle` has always written, so existing databases keep their agents' identity.
    public init(agent a: any Agent, physics: PhysicsVersion = .standard) {
        var p = a.parameters
        if physics != .standard { p[Self.physicsKey] = physics.description }
        let data = (try? JSONSerialization.data(withJSONObject: p, options: [.sortedKeys, .withoutEscapingSlashes]))
        let parameters = String(decoding: data ?? Data("{}".utf8), as: UTF8.self)
        let label = a.kind.label(parameters: p)
        self.init(kind: a.kind, parameters: parameters, weightsHash: (a as? any WeightedAgent)?.weightsHash, label: label)
    }

    /// The parameter that names a physics other than version 1.
    public static let physicsKey = "physics"
}
