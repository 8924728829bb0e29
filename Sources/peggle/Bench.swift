import ArgumentParser
import Dispatch
import Foundation
import PeggleGame
import PeggleLevel
import PeggleUtilities

/// `peggle bench <workload>`: one subcommand per benchmark, each in its own file, each writing
/// typed rows through `BenchOutput`. Adding a benchmark is a file and a line in `benchmarks`.
struct Bench: ParsableCommand {
    /// Every benchmark, in the order the help lists them (Box2D's `benchmarks[]` plays this role).
    static var benchmarks: [any LegacyBench.Type] {
        [BenchPhysics.self, BenchVector.self, BenchServe.self, BenchGreedy.self, BenchRender.self, BenchRating.self,
         BenchGenerate.self, BenchCalibration.self, BenchFreeFlight.self]
    }

    static let configuration = CommandConfiguration(
        abstract: "Measure how fast the simulator, the environments, the agents, the renderers, the rater and the generator run.",
        discussion: "Build with `swift build -c release` before measuring; docs/performance.md has today's figure of each "
            + "workload and the command that measured it. `peggle bench` alone runs `bench physics`.",
        subcommands: benchmarks.map { $0 as any ParsableCommand.Type },
        defaultSubcommand: BenchPhysics.self)
}

// MARK: The options the benchmarks share

/// The level a workload plays and how many times it is measured.
struct BenchLevel: ParsableArguments {
    @Option(help: "Level file of the workload.")
    var level = "Levels/bench-grid.json"

    @Option(help: "Runs of each measurement; the median is reported.")
    var `repeat` = 3

    func load() throws -> Level {
        guard `repeat` >= 1 else { throw UserError("--repeat: \(`repeat`) must be at least 1") }
        return try Files.loadLevel(Bundled.levelPath(level))
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

// MARK: The old form, kept for one release

/// A benchmark that the single `bench` command of earlier releases ran with a mode flag
/// (`peggle bench --vector ...`); `Bench.legacy` rewrites that form into the subcommand's.
protocol LegacyBench: ParsableCommand {
    /// Its mode flag in the old form, or nil for the workload the old form ran without one.
    static var legacyFlag: String? { get }
    /// The old options it used and how each is spelled now. The old command took every option
    /// with every mode and ignored the ones the mode did not use; those are dropped, with a warning.
    static var legacyOptions: [String: LegacySpelling] { get }
}

enum LegacySpelling: Equatable {
    case same
    case renamed(String)
    /// A comma-separated list of level files, now the subcommand's arguments.
    case arguments
}

extension Bench {
    /// Every flag of the old command (they take no value).
    static let legacyFlags: Set<String> = [
        "--json", "--vector", "--serve", "--greedy", "--render", "--rating", "--generate", "--compare-unscreened",
    ]
    /// Every option of the old command that takes a value.
    static let legacyValueOptions: Set<String> = [
        "--scene", "--level", "--shots", "--threads", "--repeat", "--csv", "--obs-encoding", "--screen", "--decisions",
        "--sigma", "--renders", "--width", "--rating-levels", "--rating-agents", "--budget", "--precision", "--generate-levels",
        "--envs", "--batches",
    ]

    static func name(_ bench: any LegacyBench.Type) -> String { bench.configuration.commandName ?? "" }

    /// `arguments` (the command line after `peggle`) in the subcommand form when they are the old
    /// form, `bench` with a mode flag, and the warnings to print; nil otherwise. Anything that is
    /// not an option of the old command is passed on as it is, for the parser to judge.
    static func legacy(_ arguments: [String]) throws -> (arguments: [String], warnings: [String])? {
        guard arguments.first == "bench" else { return nil }
        let rest = Array(arguments.dropFirst())
        // The new form names its benchmark first.
        if let first = rest.first, benchmarks.contains(where: { name($0) == first }) { return nil }
        let given = benchmarks.filter { b in b.legacyFlag.map { rest.contains($0) } ?? false }
        guard let bench = given.first, let flag = bench.legacyFlag else { return nil }
        guard given.count == 1 else {
            throw UserError("\(given.compactMap { $0.legacyFlag }.joined(separator: ", ")): give one benchmark, "
                + "e.g. peggle bench \(name(bench)) (the flags are deprecated)")
        }
        var options: [String] = [], files: [String] = [], ignored: [String] = []
        var i = 0
        while i < rest.count {
            let token = rest[i]
            i += 1
            if token == flag { continue }
            // `--name value` or `--name=value`.
            let parts = token.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let option = parts[0]
            guard legacyFlags.contains(option) || legacyValueOptions.contains(option) else {
                options.append(token)
                continue
            }
            var value = parts.count == 2 ? parts[1] : nil
            if legacyValueOptions.contains(option) && value == nil {
                // A missing value: the subcommand's parser says so, if it takes the option.
                if i < rest.count { value = rest[i]; i += 1 }
            }
            switch bench.legacyOptions[option] {
            case nil: ignored.append(option)
            case .same: options += [option] + (value.map { [$0] } ?? [])
            case let .renamed(new): options += [new] + (value.map { [$0] } ?? [])
            case .arguments: files += (value ?? "").split(separator: ",").map(String.init)
            }
        }
        var warnings = ["`peggle bench \(flag)` is deprecated; use `peggle bench \(name(bench))`"]
        if !ignored.isEmpty {
            warnings.append("\(ignored.joined(separator: ", ")): not used by `peggle bench \(name(bench))`; ignored, as before")
        }
        return (["bench", name(bench)] + files + options, warnings)
    }
}
