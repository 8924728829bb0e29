import Dispatch
import Synchronization

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
    public static func forEachChunk(_ count: Int, threads: Int, chunksPerThread: Int = 8,
                                    _ body: @Sendable (_ chunk: Int, _ range: Range<Int>) -> Void) {
        let chunks = chunkCount(count, threads: threads, chunksPerThread: chunksPerThread)
        guard chunks > 0 else { return }
        let range = { @Sendable (c: Int) in (count * c / chunks)..<(count * (c + 1) / chunks) }
        let workers = max(1, min(threads, chunks))
        if workers == 1 {
            for c in 0..<chunks { body(c, range(c)) }
            return
        }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let c = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if c >= chunks { break }
                body(c, range(c))
            }
        }
    }

    /// Calls `body(i)` for every i in `0..<count` on up to `threads` threads.
    /// - Parameter chunksPerThread: more chunks balance uneven jobs better; `Int.max` gives
    ///   every index its own chunk (for jobs long enough that the shared counter costs nothing).
    public static func forEach(_ count: Int, threads: Int, chunksPerThread: Int = 8, _ body: @Sendable (Int) -> Void) {
        forEachChunk(count, threads: threads, chunksPerThread: chunksPerThread) { _, range in
            for i in range { body(i) }
        }
    }

    /// `body(i)` for every i in `0..<count`, in index order, computed on up to `threads` threads.
    public static func map<T: Sendable>(_ count: Int, threads: Int, chunksPerThread: Int = 8,
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
        forEach(count, threads: threads, chunksPerThread: chunksPerThread) { i in out[i] = body(i) }
        return slots.map { $0! }
    }
}
