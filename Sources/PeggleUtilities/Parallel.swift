import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The one way this package runs N independent jobs on T threads: workers take small contiguous
/// chunks of the indices from a shared counter, so a thread that drew short jobs takes more
/// chunks instead of waiting (games and shots vary tenfold in length). A job must touch only its
/// own index's memory; then no result can depend on which thread ran what, and every caller's
/// output is the same for any thread count.
public enum Parallel {
    /// How many chunks `0..<count` is cut into for `threads` workers taking `chunksPerThread`
    /// chunks each on average (one chunk when one worker would do all the work).
    public static func chunkCount(_ count: Int, threads: Int, chunksPerThread: Int = 8) -> Int {
        let workers = max(1, min(threads, count))
        if workers == 1 { return min(count, 1) }
        let (product, overflow) = workers.multipliedReportingOverflow(by: max(1, chunksPerThread))
        return overflow ? count : min(count, product)
    }

    /// Calls `body(c, range)` for every chunk c of `0..<count` (`chunkCount` chunks, contiguous,
    /// in order of c), on up to `threads` threads. Returns when every chunk is done.
    /// - Parameter priority: `.background` runs the chunks on threads of their own, below every
    ///   other thread of the process (see `Priority`); the caller only waits.
    public static func forEachChunk(_ count: Int, threads: Int, chunksPerThread: Int = 8, priority: Priority = .normal,
                                    _ body: @Sendable (_ chunk: Int, _ range: Range<Int>) -> Void) {
        let chunks = chunkCount(count, threads: threads, chunksPerThread: chunksPerThread)
        guard chunks > 0 else { return }
        let range = { @Sendable (c: Int) in (count * c / chunks)..<(count * (c + 1) / chunks) }
        let workers = max(1, min(threads, chunks))
        let next = Atomic<Int>(0)
        @Sendable func work() {
            while true {
                let c = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if c >= chunks { break }
                body(c, range(c))
            }
        }
        switch priority {
        case .normal where workers == 1:
            work()
        case .normal:
            DispatchQueue.concurrentPerform(iterations: workers) { _ in work() }
        case .background:
            withoutActuallyEscaping(work) { work in
                // The threads reach `work` through this slot, never capturing it: a thread keeps
                // its closure until it exits, after `done.leave()`, and `work` must not outlive
                // this block. The slot lets go of it once every thread has left.
                let slot = UnsafeMutablePointer<@Sendable () -> Void>.allocate(capacity: 1)
                slot.initialize(to: work)
                nonisolated(unsafe) let shared = slot
                let done = DispatchGroup()
                for _ in 0..<workers {
                    done.enter()
                    Thread.detachNewThread {
                        Priority.lowerThisThread()
                        shared.pointee()
                        done.leave()
                    }
                }
                done.wait()
                slot.deinitialize(count: 1)
                slot.deallocate()
            }
        }
    }

    /// Where a parallel loop's threads stand against the process's other threads.
    public enum Priority: Sendable {
        /// The shared pool's threads, at the process's priority.
        case normal
        /// New threads at the lowest priority (nice 19 on Linux, where a thread's nice value is its
        /// own; background QoS elsewhere): work that fills in behind, such as the studio's
        /// estimates of a library, takes only the CPU that answering requests leaves.
        case background

        static func lowerThisThread() {
            #if os(Linux)
            // Per thread on Linux (setpriority(2), NOTES); a failure leaves the priority as it was.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #else
            Thread.current.qualityOfService = .background
            #endif
        }
    }

    /// Calls `body(i)` for every i in `0..<count` on up to `threads` threads.
    /// - Parameter chunksPerThread: more chunks balance uneven jobs better; `Int.max` gives
    ///   every index its own chunk (for jobs long enough that the shared counter costs nothing).
    public static func forEach(_ count: Int, threads: Int, chunksPerThread: Int = 8, priority: Priority = .normal,
                               _ body: @Sendable (Int) -> Void) {
        forEachChunk(count, threads: threads, chunksPerThread: chunksPerThread, priority: priority) { _, range in
            for i in range { body(i) }
        }
    }

    /// `body(i)` for every i in `0..<count`, in index order, computed on up to `threads` threads.
    public static func map<T: Sendable>(_ count: Int, threads: Int, chunksPerThread: Int = 8, priority: Priority = .normal,
                                        _ body: @Sendable (Int) -> T) -> [T] {
        if count == 0 { return [] }
        let slots = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
        slots.initialize(repeating: nil)
        defer {
            _ = slots.deinitialize()
            slots.deallocate()
        }
        // Each index is written by exactly one job.
        nonisolated(unsafe) let out = slots
        forEach(count, threads: threads, chunksPerThread: chunksPerThread, priority: priority) { i in out[i] = body(i) }
        return slots.map { $0! }
    }
}
