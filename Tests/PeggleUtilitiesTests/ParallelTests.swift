import Foundation
import PeggleUtilities
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct ParallelTests {
    /// Every index computed once, in index order, whatever the priority and thread count.
    @Test(arguments: [Parallel.Priority.normal, .background], [1, 2, 5])
    func mapGivesEveryIndexInOrder(priority: Parallel.Priority, threads: Int) {
        let out = Parallel.map(1_000, threads: threads, chunksPerThread: 3, priority: priority) { i in i * i }
        #expect(out == (0..<1_000).map { $0 * $0 })
    }

    #if os(Linux)
    /// `.background` runs its jobs at nice 19, on threads of its own: the calling thread keeps its
    /// priority (an unprivileged thread could not take it back), and `.normal` jobs run at the caller's.
    /// (Run under `nice -n 19` itself, the test could not tell the two apart.)
    @Test(.enabled(if: niceness() < 19)) func backgroundJobsRunAtNice19AndLeaveTheCallerAlone() {
        let before = niceness()
        let background = Parallel.map(8, threads: 2, chunksPerThread: Int.max, priority: .background) { _ in
            niceness()
        }
        #expect(background == Array(repeating: 19, count: 8))
        #expect(niceness() == before)
        let normal = Parallel.map(1, threads: 1, priority: .normal) { _ in niceness() }
        #expect(normal == [before])
    }
    #endif
}

#if os(Linux)
/// The calling thread's nice value (per thread on Linux).
private func niceness() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
#endif
