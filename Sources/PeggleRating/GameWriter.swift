import Foundation
import PeggleGame
import PeggleStore
import Synchronization

/// The single writer: workers hand it finished games; its own thread commits them in batches of
/// exactly `batch` (the last may be smaller), each in one transaction, so a killed run loses only the games not yet committed. It
/// also reports progress every `progressInterval` seconds.
package final class GameWriter: @unchecked Sendable {
    private let cond = NSCondition()
    private var pending: [(game: PlayedGame, levelID: Int64, agentID: Int64)] = []
    private var producing = true
    private var played = 0, added = 0, batches = 0
    private var failure: StoreError?
    private var stopReason: RatingRun.StopReason?
    private let stopFlag = Atomic<Bool>(false)
    private let store: PeggleStore
    private let runID: Int64
    private let batch: Int, stopAfterBatches: Int?
    private let afterCommit: (@Sendable (_ batches: Int) -> Void)?
    private let progress: @Sendable (_ played: Int, _ final: Bool) -> Void
    private let progressInterval: Double
    /// Signalled once by the writer thread when everything is committed.
    private let finished = DispatchSemaphore(value: 0)

    package init(store: PeggleStore, runID: Int64, batch: Int, stopAfterBatches: Int?, progressInterval: Double,
         afterCommit: (@Sendable (_ batches: Int) -> Void)? = nil,
         progress: @escaping @Sendable (_ played: Int, _ final: Bool) -> Void) {
        self.afterCommit = afterCommit
        self.store = store
        self.runID = runID
        self.batch = batch
        self.stopAfterBatches = stopAfterBatches
        self.progressInterval = progressInterval
        self.progress = progress
        Thread { self.writeLoop() }.start()
    }

    package var stopping: Bool { stopFlag.load(ordering: .relaxed) }

    func requestStop(_ reason: RatingRun.StopReason) {
        cond.lock()
        if stopReason == nil { stopReason = reason }
        stopFlag.store(true, ordering: .relaxed)
        cond.signal()
        cond.unlock()
    }

    package func add(_ game: PlayedGame, levelID: Int64, agentID: Int64) {
        cond.lock()
        pending.append((game, levelID, agentID))
        played += 1
        if pending.count >= batch { cond.signal() }
        cond.unlock()
    }

    /// Waits until every game handed over is committed (or the store failed) and the thread is done.
    package func finish() -> (added: Int, played: Int, failure: StoreError?, stopReason: RatingRun.StopReason?) {
        cond.lock()
        producing = false
        cond.signal()
        cond.unlock()
        finished.wait()
        cond.lock()
        defer { cond.unlock() }
        return (added, played, failure, stopReason)
    }

    /// The writer thread: commits full batches as they fill, and what is left when producing ends.
    private func writeLoop() {
        var lastShown = DispatchTime.now().uptimeNanoseconds
        while true {
            cond.lock()
            while pending.count < batch && producing {
                _ = cond.wait(until: Date(timeIntervalSinceNow: 0.25))
                let now = DispatchTime.now().uptimeNanoseconds
                if Double(now - lastShown) / 1e9 >= progressInterval {
                    lastShown = now
                    // Never call out while holding the lock: the callback asks the scheduler, whose
                    // workers call `requestStop` and `add` (which take this lock) while holding theirs.
                    let count = played
                    cond.unlock()
                    progress(count, false)
                    cond.lock()
                }
            }
            // Exactly `batch` games per transaction while games come (what is left at the end may be
            // fewer), so a run's commits do not depend on how fast the writer thread wakes.
            let take = Array(pending.prefix(batch))
            pending.removeFirst(take.count)
            let last = !producing && pending.isEmpty
            let failed = failure != nil
            cond.unlock()
            if !take.isEmpty && !failed {
                do {
                    let n = try store.insert(take, runID: runID)
                    cond.lock()
                    added += n
                    batches += 1
                    let hook = stopAfterBatches.map { batches >= $0 } ?? false
                    let count = batches
                    cond.unlock()
                    if hook { requestStop(.testHook(batches: count)) }
                    afterCommit?(count)
                } catch {
                    cond.lock()
                    failure = error
                    cond.unlock()
                    requestStop(.storeFailed)
                }
            }
            if last {
                cond.lock()
                let failedNow = failure != nil
                let count = played
                cond.unlock()
                if !failedNow { progress(count, true) }
                finished.signal()
                return
            }
        }
    }
}
