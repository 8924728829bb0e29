import ArgumentParser
import Dispatch
import Foundation
import PeggleCommandLine
import PeggleLevel
import PeggleUtilities

// MARK: The options the benchmarks share

/// The level a workload plays and how many times it is measured.
struct BenchLevel: ParsableArguments {
    @Option(help: "Level file of the workload.")
    var level = "Levels/bench-grid.json"

    @Option(help: "Runs of each measurement; the median is reported.")
    var `repeat` = 3

    func load() throws -> Level {
        guard `repeat` >= 1 else { throw UserError("--repeat: \(`repeat`) must be at least 1") }
        return try Files.loadLevel(level)
    }
}

/// The thread counts a workload is measured at, one row each.
struct BenchThreads: ParsableArguments {
    @Option(help: "Thread counts, comma-separated (e.g. 1,2).")
    var threads = CommaList<Int>([1])

    func counts() throws -> [Int] {
        try threads.map("--threads", message: { _, text, _ in "'\(text)' is not a thread count from 1 to 256" }) { _, text, t in
            guard (1...256).contains(t) else { throw UserError("--threads: '\(text)' is not a thread count from 1 to 256") }
            return t
        }
    }
}

// MARK: Timing (the clock is the executable's: the libraries' workloads never read it)

enum BenchClock {
    /// Work done by one run: shots, fixed steps, wall seconds.
    struct Run {
        var shots: Int, steps: Int, seconds: Double
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

    /// Runs `work` on `threads` contiguous chunks of `0..<count` at once; sums and wall time.
    static func timed(threads: Int, count: Int, _ work: @Sendable (Range<Int>) throws -> Run) throws -> Run {
        let chunks = Parallel.chunkCount(count, threads: threads, chunksPerThread: 1)
        let results = Results(count: chunks)
        let start = now()
        Parallel.forEachChunk(count, threads: threads, chunksPerThread: 1) { c, range in
            results.set(c, Result { try work(range) })
        }
        var total = Run(shots: 0, steps: 0, seconds: seconds(since: start))
        for r in results.values {
            let run = try r!.get()
            total.shots += run.shots
            total.steps += run.steps
        }
        return total
    }

    /// The run with the median wall time.
    static func median(_ runs: [Run]) -> Run {
        runs.sorted { $0.seconds < $1.seconds }[runs.count / 2]
    }

    static func round(_ v: Double, _ places: Int) -> Double {
        let f = pow(10, Double(places))
        return (v * f).rounded() / f
    }

    /// CPU time of this process so far (user + system), seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let t = usage.ru_utime, s = usage.ru_stime
        return Double(t.tv_sec) + Double(t.tv_usec) / 1e6 + Double(s.tv_sec) + Double(s.tv_usec) / 1e6
    }

    static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// Per-chunk results, each slot written by exactly one thread.
    final class Results: @unchecked Sendable {
        private(set) var values: [Result<Run, Error>?]
        private let lock = NSLock()
        init(count: Int) { values = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ r: Result<Run, Error>) {
            lock.lock()
            values[i] = r
            lock.unlock()
        }
    }
}
