import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleGenerator
import PeggleLab
import PeggleLevel
import PeggleUtilities

/// `peggle-bench freeflight`: the free-flight checker's long run. Random shots on generated
/// levels of every distribution, template and power, with confusement and zombie pegs added,
/// every sweep the bound skipped also run in full: the run counts the contacts it would have hidden.
struct BenchFreeFlight: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "freeflight",
        abstract: "The free-flight bound's checker: random shots on generated levels, every skipped sweep run in full.",
        discussion: "Level variant i: seed i, distribution i % 2, template (i / 2) % 9, power (i / 18) % 4; two variants "
            + "in three turn a blue peg into a confusement peg, one in three another into a zombie. Each variant plays "
            + "--shots-per-level shots of whole games (random aims and bucket phases) in the checked mode. A miss is a "
            + "skipped sweep whose full query found a contact; --compare also replays every shot with the bound off.")

    @Option(help: "Shots in all.")
    var shots = 10000

    @Option(help: "Shots on each level variant.")
    var shotsPerLevel = 20

    @Flag(help: "Also replay every shot with the bound off and count shots that differ.")
    var compare = false

    @OptionGroup var threads: BenchThreads

    @OptionGroup var output: BenchOutputOptions

    struct Row: BenchRow {
        struct Columns: Encodable {
            var threads: Int, levels: Int, shots: Int, steps: Int, skipped: Int, misses: Int, mismatches: Int
            var seconds: Double
        }
        struct Extra: Encodable { var compared: Bool }
        var columns: Columns
        var extra: Extra
    }

    final class Totals: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var value = Benchmarks.FreeFlightFuzz()
        private(set) var error: Error?
        func add(_ r: Result<Benchmarks.FreeFlightFuzz, Error>) {
            lock.lock()
            switch r {
            case let .success(v): value = value + v
            case let .failure(e): error = e
            }
            lock.unlock()
        }
    }

    func run() throws {
        guard shots >= 1, shotsPerLevel >= 1 else { throw UserError("--shots and --shots-per-level must be at least 1") }
        var out = try BenchOutput<Row>(output)
        let levels = (shots + shotsPerLevel - 1) / shotsPerLevel
        for t in try threads.counts() {
            let totals = Totals()
            let start = BenchClock.now()
            let (perLevel, all, compare) = (shotsPerLevel, shots, compare)
            Parallel.forEachChunk(levels, threads: t, chunksPerThread: 8) { _, range in
                for i in range {
                    totals.add(Result {
                        try Benchmarks.freeFlightFuzz(level: LevelGenerator.coverageVariant(i), rules: Rules(), seed: UInt64(i),
                                                      shots: min(perLevel, all - i * perLevel), compare: compare)
                    })
                }
            }
            if let e = totals.error { throw e }
            let v = totals.value
            let row = Row(columns: .init(threads: t, levels: levels, shots: v.shots, steps: v.steps, skipped: v.skipped,
                                         misses: v.misses, mismatches: v.mismatches,
                                         seconds: BenchClock.round(BenchClock.seconds(since: start), 2)),
                          extra: .init(compared: compare))
            try out.emit(row, text: "threads \(t): \(v.shots) shots on \(levels) level variants, \(v.steps) steps; "
                + "\(v.skipped) sweeps skipped, \(v.misses) misses" + (compare ? ", \(v.mismatches) shots differ" : "")
                + " (\(row.columns.seconds) s)")
        }
        try out.finish()
    }
}
