import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleDrawing
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleUtilities

extension EncoderKind: ExpressibleByArgument {}

/// `peggle-bench vector`: a VectorEnv stepped in process.
struct BenchVector: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vector",
        abstract: "Environment throughput in process: shots per second of a VectorEnv over --envs environments.",
        discussion: "The workload: --envs environments on the level (next-step autoreset, the --encoder observation), "
            + "reset with seed 0, then --batches steps of seeded random actions. `serve` runs the same workload "
            + "through a `peggle serve` pipe.")

    @OptionGroup var environments: EnvironmentWorkload

    @OptionGroup var threads: BenchThreads

    @OptionGroup var output: BenchOutputOptions

    func run() throws {
        let (level, counts) = try environments.load(threads)
        var out = try BenchOutput<EnvironmentRow>(output)
        for t in counts {
            let runs = try (0..<environments.workload.repeat).map { _ in try environments.runVector(level, threads: t) }
            let row = environments.row("vector", BenchClock.median(runs), threads: t, serve: nil)
            try out.emit(row, text: "vector, \(environments.envs) envs, threads \(t): \(row.columns.shotsPerS) shots/s "
                + "(median of \(environments.workload.repeat))")
        }
        try out.finish()
    }
}

/// The environment workload `vector` and `serve` share.
struct EnvironmentWorkload: ParsableArguments {
    @OptionGroup var workload: BenchLevel

    @Option(help: "Environments.")
    var envs = 64

    @Option(help: "Batched steps per run.")
    var batches = 40

    @Option(help: "The observation encoder: objects, grid, pixels or aim (docs/environment.md).")
    var encoder = EnvConfig(levels: []).encoder

    @OptionGroup var physicsOption: PhysicsOption

    /// The checked options: the level and the thread counts.
    func load(_ threads: BenchThreads) throws -> (Level, [Int]) {
        guard envs >= 1 && envs <= 4096 else { throw UserError("--envs: \(envs) is outside 1...4096") }
        guard batches >= 1 else { throw UserError("--batches: \(batches) must be at least 1") }
        let counts = try threads.counts()
        return (try workload.load(), counts)
    }

    /// The environments' configuration: every object of the level fits the observation.
    func config(_ level: Level) -> EnvConfig {
        var c = EnvConfig(levels: [level])
        c.maxObjects = max(c.maxObjects, level.pegs.count + level.blocks.count)
        c.encoder = encoder
        c.rules = physicsOption.rules(c.rules)
        if encoder == .pixels { c.rasterizer = PixelRenderer() }
        return c
    }

    /// `batches` rows of `envs` seeded random actions in [-1, 1].
    func actions() -> [[Double]] {
        var g = SeededGenerator(seed: 1)
        return (0..<batches).map { _ in (0..<envs).map { _ in g.nextUnit() * 2 - 1 } }
    }

    /// In process: a VectorEnv stepped `batches` times. Counts shots actually taken (a next-step
    /// reset takes none).
    func runVector(_ level: Level, threads: Int) throws -> BenchClock.Run {
        var v = try VectorEnv(config: config(level), count: envs, threads: threads)
        try v.reset(seed: 0)
        let all = actions()
        var shots = 0
        let start = BenchClock.now()
        for a in all {
            try v.step(a)
            for s in v.slots where s.info.shot != nil { shots += 1 }
        }
        return BenchClock.Run(shots: shots, steps: 0, seconds: BenchClock.seconds(since: start))
    }

    func row(_ mode: String, _ r: BenchClock.Run, threads: Int, serve: EnvironmentRow.Serve?) -> EnvironmentRow {
        EnvironmentRow(
            columns: .init(mode: mode, envs: envs, threads: threads, batches: batches, shots: r.shots,
                           seconds: BenchClock.round(r.seconds, 4), shotsPerS: BenchClock.round(Double(r.shots) / r.seconds, 1)),
            extra: .init(engine: "peggle-gym \(PeggleGym.version)", cores: BenchClock.cores, encoder: encoder.rawValue,
                         obsEncoding: serve?.obsEncoding,
                         inProcessShotsPerS: serve?.inProcessShotsPerS, serveOverInProcess: serve?.serveOverInProcess))
    }
}

/// One row of `vector` or `serve` per thread count.
struct EnvironmentRow: BenchRow {
    struct Columns: Encodable {
        var mode: String, envs: Int, threads: Int, batches: Int, shots: Int, seconds: Double, shotsPerS: Double
    }
    /// `serve` only: the observations' encoding, and the same run in process for comparison.
    struct Serve {
        var obsEncoding: String, inProcessShotsPerS: Double, serveOverInProcess: Double
    }
    struct Extra: Encodable {
        var engine: String, cores: Int, encoder: String
        var obsEncoding: String?, inProcessShotsPerS: Double?, serveOverInProcess: Double?
    }
    var columns: Columns
    var extra: Extra
}
