import Foundation
import PeggleAgents
import PeggleDifficulty
import PeggleGame
import PeggleStore

/// The games of a rating run as one queue that worker threads drain, and the adaptive
/// measurements that feed it: when the last game of a level's batch finishes, the worker that
/// played it records the batch (in the batch's order, whoever played which game) and queues the
/// level's next batch at once, so no thread waits for other levels (a round barrier left one of
/// two cores idle a third of the time: games differ tenfold in length).
///
/// Everything a choice depends on is a level's own outcomes in its own batch order, so the games
/// stored and every choice are the same for any thread count; only the order in which games
/// reach the writer changes.
package final class GameScheduler: @unchecked Sendable {
    package struct Job {
        var level: Int, agent: Int
        package var seed: UInt64, sigma: Double
        /// The game's place in its level's current batch (measured games only).
        var slot: Int?

        package init(level: Int, agent: Int, seed: UInt64, sigma: Double, slot: Int? = nil) {
            self.level = level
            self.agent = agent
            self.seed = seed
            self.sigma = sigma
            self.slot = slot
        }
    }

    package struct Key: Hashable {
        var level: Int, agent: Int

        package init(level: Int, agent: Int) {
            self.level = level
            self.agent = agent
        }
    }

    package struct OpeningKey: Hashable {
        var level: Int, agent: Int
        var sigma: Double
    }

    enum Opening {
        case computing
        case done(Double)
    }

    private let cond = NSCondition()
    private var queue: [Job] = []
    private var head = 0
    private var running = 0
    private var openings: [OpeningKey: Opening] = [:]
    private var stored: [Key: [EpisodeKey: Bool]]
    private(set) var measurements: [Key: SkillMeasurement]
    private var batches: [Key: (trials: [SkillMeasurement.Trial], outcomes: [Bool?], missing: Int)] = [:]
    /// Skill games found stored (replayed) rather than played.
    private(set) var replayed = 0
    let keys: [Key]
    let budget: Int

    /// - Parameters:
    ///   - fixed: fixed-schedule games not yet stored, in order.
    ///   - measured: the measurements, in level then agent order.
    ///   - stored: every stored outcome, per level and agent.
    package init(fixed: [Job], measured: [(Key, SkillMeasurement)], stored: [Key: [EpisodeKey: Bool]], budget: Int) {
        self.stored = stored
        self.budget = budget
        keys = measured.map(\.0)
        measurements = Dictionary(uniqueKeysWithValues: measured)
        queue = fixed
        for key in keys { advance(key) }
    }

    /// Queues `key`'s next batch: batches whose games are all stored are recorded from the store
    /// (a resumed run replays the same choices), the first with a game missing is queued.
    /// Called with the lock held (or before any worker runs).
    private func advance(_ key: Key) {
        while true {
            let batch = measurements[key]!.nextBatch()
            if batch.isEmpty { return }
            let have = stored[key]!
            let outcomes = batch.map { have[$0] }
            let missing = outcomes.filter { $0 == nil }.count
            replayed += batch.count - missing
            if missing == 0 {
                measurements[key]!.record(batch, won: outcomes.map { $0! })
                continue
            }
            batches[key] = (batch, outcomes, missing)
            for (slot, t) in batch.enumerated() where outcomes[slot] == nil {
                queue.append(Job(level: key.level, agent: key.agent, seed: t.seed, sigma: t.sigma, slot: slot))
            }
            return
        }
    }

    /// Games still to play at most: queued, running, and the rest of every measurement's budget.
    var atMost: Int {
        cond.lock()
        defer { cond.unlock() }
        var total = queue.count - head + running
        for key in keys {
            let m = measurements[key]!
            guard m.stop == nil else { continue }
            let inBatch = batches[key].map { $0.trials.count } ?? 0
            total += max(0, budget - m.played.count - inBatch)
        }
        return total
    }

    /// The worker loop: takes jobs until none is left (or `shouldStop`), plays each with `play`
    /// (given the job and its shared first choice, computed here once per level, agent and sigma
    /// with `firstChoice` when `sharesFirstChoice(agent)`), and reports each game to `finished`.
    /// `measured` is called, outside the lock, for every measurement that stops.
    package func work(shouldStop: () -> Bool, sharesFirstChoice: (Int) -> Bool, firstChoice: (OpeningKey) -> Double,
              play: (Job, Double?) -> PlayedGame, finished: (Job, PlayedGame) -> Void,
              measured: (Key, SkillMeasurement) -> Void) {
        cond.lock()
        while true {
            if shouldStop() { break }
            guard head < queue.count else {
                if running == 0 { break }
                cond.wait()
                continue
            }
            var job = queue[head]
            head += 1
            var first: Double?
            if sharesFirstChoice(job.agent) {
                let k = OpeningKey(level: job.level, agent: job.agent, sigma: job.sigma)
                switch openings[k] {
                case let .done(v):
                    first = v
                case .computing:
                    // Another worker is computing it: take a job that does not wait for an opening
                    // being computed, or wait. (Putting the job back at the end instead spun when
                    // every job left waited for the same opening: the queue grew by millions of
                    // copies while a slow first choice was computed.)
                    head -= 1
                    if let i = (head..<queue.count).first(where: { !waitsForOpening(queue[$0], sharesFirstChoice) }) {
                        queue.swapAt(head, i)
                    } else {
                        cond.wait()
                    }
                    continue
                case nil:
                    openings[k] = .computing
                    running += 1
                    cond.unlock()
                    let v = firstChoice(k)
                    cond.lock()
                    running -= 1
                    openings[k] = .done(v)
                    first = v
                    cond.broadcast()
                }
            }
            running += 1
            cond.unlock()
            let game = play(job, first)
            finished(job, game)
            cond.lock()
            running -= 1
            let key = Key(level: job.level, agent: job.agent)
            stored[key]![EpisodeKey(seed: job.seed, sigma: job.sigma)] = game.won
            var stopped: SkillMeasurement?
            if let slot = job.slot, var batch = batches[key] {
                batch.outcomes[slot] = game.won
                batch.missing -= 1
                batches[key] = batch
                if batch.missing == 0 {
                    batches[key] = nil
                    measurements[key]!.record(batch.trials, won: batch.outcomes.map { $0! })
                    advance(key)
                    if measurements[key]!.stop != nil { stopped = measurements[key]! }
                }
            }
            job.slot = nil
            cond.broadcast()
            if let stopped {
                cond.unlock()
                measured(key, stopped)
                cond.lock()
            }
        }
        cond.broadcast()
        cond.unlock()
    }

    /// Whether `job` needs a first choice that another worker is computing. Called with the lock held.
    private func waitsForOpening(_ job: Job, _ sharesFirstChoice: (Int) -> Bool) -> Bool {
        guard sharesFirstChoice(job.agent), case .computing = openings[OpeningKey(level: job.level, agent: job.agent, sigma: job.sigma)]
        else { return false }
        return true
    }

    /// Measurements that stopped without playing a game in this run (all replayed from the store).
    var stoppedBeforeStart: [Key] { keys.filter { measurements[$0]!.stop != nil } }
}
