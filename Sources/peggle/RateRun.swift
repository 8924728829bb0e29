import Dispatch
import Foundation
import PeggleAgents
import PeggleGame
import PeggleStore
import Synchronization

/// Plays a plan: worker threads play games, one writer thread commits them in batches and shows
/// progress. Ctrl-C stops taking new games, commits the finished ones and exits 130.
struct RatingRun {
    var plan: RatingPlan
    var store: PeggleStore
    var threads: Int
    var batch: Int
    var maxShots: Int
    var stopAfterBatches: Int?

    struct Outcome {
        var added: Int, played: Int, seconds: Double
        var interrupted: Bool, exitCode: Int32
        var stopReason: String?

        func summary(plan: RatingPlan, db: String) -> String {
            var s = "rated \(plan.levels.count) level\(plan.levels.count == 1 ? "" : "s") with \(plan.agents.count) agent"
                + "\(plan.agents.count == 1 ? "" : "s"): \(added) games added, \(plan.alreadyStored) already stored, "
                + "in \(String(format: "%.1f", seconds)) s; database \(db)"
            if let stopReason { s += "\n\(stopReason); run the same command again to resume" } else {
                s += "; next: peggle report --db \(db)"
            }
            return s
        }
    }

    func execute() throws -> Outcome {
        let sink = Sink(store: store, batch: batch, total: plan.jobs.count, stopAfterBatches: stopAfterBatches)
        let start = DispatchTime.now().uptimeNanoseconds
        // Ctrl-C: ask everyone to stop; the writer commits what is finished.
        signal(SIGINT, SIG_IGN)
        let sigint = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        sigint.setEventHandler { sink.requestStop("interrupted") }
        sigint.resume()
        defer { sigint.cancel(); signal(SIGINT, SIG_DFL) }

        let writer = Thread { sink.writeLoop() }
        writer.start()
        let jobs = plan.jobs, levels = plan.levels.map(\.level), agents = plan.agents.map(\.agent)
        let ids = (plan.levels.map(\.id), plan.agents.map(\.id)), runID = plan.runID
        let rules = plan.rules, maxShots = self.maxShots
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(threads, jobs.count))) { _ in
            while !sink.stopping {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if i >= jobs.count { break }
                let j = jobs[i]
                // Levels were validated on loading, so a game cannot be refused here.
                let r = try! Episode.play(agents[j.agent], level: levels[j.level], rules: rules, seed: j.seed,
                                          sigma: j.sigma, maxShots: maxShots)
                sink.add(NewEpisode(result: r, runID: runID, levelID: ids.0[j.level], agentID: ids.1[j.agent],
                                    seed: j.seed, sigma: j.sigma))
            }
        }
        sink.finishProducing()
        sink.finished.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let state = sink.snapshot()
        if let failure = state.failure { throw UserError("\(failure) (every batch committed before it is kept)") }
        do { try store.finishRun(plan.runID, episodesAdded: state.added, finishedAt: Date()) } catch { throw UserError("\(error)") }
        return Outcome(added: state.added, played: state.played, seconds: seconds, interrupted: state.stopReason != nil,
                       exitCode: state.stopReason == "interrupted" ? 130 : 3,
                       stopReason: state.stopReason.map { $0 == "interrupted" ? "interrupted by Ctrl-C" : $0 })
    }
}

extension NewEpisode {
    init(result r: EpisodeResult, runID: Int64, levelID: Int64, agentID: Int64, seed: UInt64, sigma: Double) {
        let ep = EpisodeRecord(id: nil, runID: runID, levelID: levelID, agentID: agentID, seed: seed, sigma: sigma,
                               status: r.status.rawValue, won: r.won, truncated: r.truncated, score: r.score, shots: r.shots,
                               orangeCleared: r.orangeCleared, orangeTotal: r.orangeTotal, ballsUsed: r.ballsUsed,
                               gameSeconds: r.gameSeconds)
        let shots = r.shotRecords.map { s in
            ShotRecordRow(episodeID: 0, index: s.index, chosenAngle: s.chosen, angle: s.angle, hitsBlue: s.hits.blue,
                          hitsOrange: s.hits.orange, hitsGreen: s.hits.green, hitsPurple: s.hits.purple,
                          hitsZombie: s.hits.zombie, hitsConfusement: s.hits.confusement, points: s.points,
                          freeBalls: s.freeBalls, caught: s.caught, orangeCleared: s.orangeCleared, seconds: s.seconds)
        }
        self.init(episode: ep, shots: shots)
    }
}

/// Finished games waiting for the writer, and the run's progress. Workers `add`; the writer
/// thread takes batches and commits each in one transaction.
final class Sink: @unchecked Sendable {
    private let cond = NSCondition()
    private var pending: [NewEpisode] = []
    private var producing = true
    private var played = 0, added = 0, batches = 0
    private var failure: Error?
    private var stopReason: String?
    private let stopFlag = Atomic<Bool>(false)
    let store: PeggleStore
    let batch: Int, total: Int, stopAfterBatches: Int?
    let progress: Progress

    init(store: PeggleStore, batch: Int, total: Int, stopAfterBatches: Int?) {
        self.store = store
        self.batch = batch
        self.total = total
        self.stopAfterBatches = stopAfterBatches
        progress = Progress(total: total)
    }

    var stopping: Bool { stopFlag.load(ordering: .relaxed) }
    /// Signalled once by the writer thread when everything is committed.
    let finished = DispatchSemaphore(value: 0)

    func requestStop(_ reason: String) {
        cond.lock()
        if stopReason == nil { stopReason = reason }
        stopFlag.store(true, ordering: .relaxed)
        cond.signal()
        cond.unlock()
    }

    func add(_ e: NewEpisode) {
        cond.lock()
        pending.append(e)
        played += 1
        if pending.count >= batch { cond.signal() }
        cond.unlock()
    }

    func finishProducing() {
        cond.lock()
        producing = false
        cond.signal()
        cond.unlock()
    }

    func snapshot() -> (added: Int, played: Int, failure: Error?, stopReason: String?) {
        cond.lock()
        defer { cond.unlock() }
        return (added, played, failure, stopReason)
    }

    /// The writer thread: commits full batches as they fill, and what is left when the workers end.
    func writeLoop() {
        while true {
            cond.lock()
            while pending.count < batch && producing {
                _ = cond.wait(until: Date(timeIntervalSinceNow: 0.25))
                progress.show(done: played, final: false)
            }
            let take = pending
            pending.removeAll(keepingCapacity: true)
            let last = !producing
            cond.unlock()
            if !take.isEmpty && failure == nil {
                do {
                    let n = try store.insert(take)
                    cond.lock()
                    added += n
                    batches += 1
                    let hook = stopAfterBatches.map { batches >= $0 } ?? false
                    cond.unlock()
                    if hook { requestStop("stopped after \(batches) batches (--stop-after-batches)") }
                } catch {
                    cond.lock()
                    failure = error
                    cond.unlock()
                    requestStop("the database refused a batch")
                }
            }
            if last {
                cond.lock()
                progress.show(done: played, final: true)
                cond.unlock()
                finished.signal()
                return
            }
        }
    }
}

/// Progress on standard error: a bar redrawn in place on a terminal, a plain line every 10 s otherwise.
final class Progress: @unchecked Sendable {
    let total: Int
    let terminal = isatty(2) != 0
    let start = DispatchTime.now().uptimeNanoseconds
    var lastShown: UInt64 = 0

    init(total: Int) { self.total = total }

    func show(done: Int, final: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        let interval: UInt64 = terminal ? 250_000_000 : 10_000_000_000
        guard final || now - lastShown >= interval, total > 0 else { return }
        lastShown = now
        let elapsed = Double(now - start) / 1e9
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let frac = Double(done) / Double(total)
        let text = "\(done)/\(total) games  \(String(format: "%.1f", rate))/s  "
            + (final ? "done in \(Self.clock(elapsed))" : "ETA \(Self.clock(eta))")
        if terminal {
            let width = 30, filled = Int(frac * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(text)\u{1B}[K\(final ? "\n" : "")".utf8))
        } else if !final || done > 0 {
            FileHandle.standardError.write(Data("progress: \(text)\n".utf8))
        }
    }

    static func clock(_ s: Double) -> String {
        let t = Int(s.rounded())
        return t >= 3600 ? String(format: "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60) : String(format: "%d:%02d", t / 60, t % 60)
    }
}
