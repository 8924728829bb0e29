import ArgumentParser
import Dispatch
import Foundation
import PeggleAgents
import PeggleGame
import PeggleRating

/// `peggle bench --scene grid`: physics and full-game throughput on the shared benchmark scene.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure simulation speed on the benchmark scene (Levels/bench-grid.json).",
        discussion: "Physics only: N shots at angles spread over [-1.3, 1.3], pegs never removed, no bucket, "
            + "each until the ball falls below y = 620 or 30 s (the scene of the pymunk and Box2D comparison in docs/performance.md). "
            + "Full game: shots/10 complete classic games with every rule on (episode e: seed e, the same "
            + "angles taken in turn from offset 7e). "
            + "Build with `swift build -c release` before measuring.")

    @Option(help: "Scene to run (grid is the only one).")
    var scene = "grid"

    @Option(help: "Level file of the scene.")
    var level = "Levels/bench-grid.json"

    @Option(help: "Shots per run.")
    var shots = 400

    @Option(help: "Thread counts, comma-separated (e.g. 1,2).")
    var threads = "1"

    @Option(help: "Runs per thread count; the median is reported.")
    var `repeat` = 3

    @Option(help: "Also write one CSV row per thread count to this file.")
    var csv: String?

    @Flag(help: "Print one JSON object per thread count.")
    var json = false

    @Flag(help: "Measure a VectorEnv in process instead: shots per second over --envs environments.")
    var vector = false

    @Flag(help: "Measure the same VectorEnv workload through a real `peggle serve` pipe (observations as --obs-encoding).")
    var serve = false

    @Option(help: "Observation encoding for --serve: f32 (a binary frame after each reply line) or b64f32 (base64 in the line).")
    var obsEncoding = "f32"

    @Flag(help: "Measure the greedy agent's search instead: time per decision, candidate shots simulated per second.")
    var greedy = false

    @Option(help: "Greedy under noise (--greedy): value only the best 1/N candidates on every sample after a two-sample screen (0: off).")
    var screen = GreedyAgent.defaultScreen

    @Flag(help: "With --greedy and --sigma above 0: also make every decision without screening and count the same choices.")
    var compareUnscreened = false

    @Option(help: "Decisions for --greedy.")
    var decisions = 40

    @Option(help: "Aim noise the greedy agent plans for with --greedy, radians (above 0: 8 shots per candidate).")
    var sigma = 0.0

    @Flag(help: "Measure drawing one mid-game frame instead: the rasteriser (rgb) and the SVG renderer, ms per frame.")
    var render = false

    @Option(help: "Frames per run for --render.")
    var renders = 200

    @Option(help: "Picture width for --render, pixels (default: the rasteriser's, one pixel per board unit).")
    var width: Int?

    @Flag(help: "Measure a whole rating run instead (adaptive method, default precision) of --rating-levels: levels per hour.")
    var rating = false

    @Option(help: "Levels for --rating: a folder (its *.json but bench-grid.json) or comma-separated files.")
    var ratingLevels = "Levels"

    @Option(help: "Agents for --rating, comma-separated.")
    var ratingAgents = "random,greedy,linear:Agents/linear.json"

    @Option(help: "Greedy games per level at most, for --rating.")
    var budget = AdaptiveSettings.defaultBudget

    @Option(help: "Precision factor for --rating.")
    var precision = AdaptiveSettings.defaultPrecision

    @Flag(help: "Measure the level generator instead: microseconds per level, per new game, per reset with procedural levels.")
    var generate = false

    @Option(help: "Levels per distribution for --generate.")
    var generateLevels = 2000

    @Option(help: "Environments for --vector and --serve.")
    var envs = 64

    @Option(help: "Batched steps per run for --vector and --serve.")
    var batches = 40

    func run() throws {
        guard scene == "grid" else { throw UserError("--scene: unknown scene '\(scene)' (expected grid)") }
        guard shots >= 2 else { throw UserError("--shots: \(shots) is too few; give at least 2") }
        guard `repeat` >= 1 else { throw UserError("--repeat: \(`repeat`) must be at least 1") }
        guard envs >= 1 && envs <= 4096 else { throw UserError("--envs: \(envs) is outside 1...4096") }
        guard batches >= 1 else { throw UserError("--batches: \(batches) must be at least 1") }
        guard obsEncoding == "f32" || obsEncoding == "b64f32" else {
            throw UserError("--obs-encoding: '\(obsEncoding)' is not f32 or b64f32")
        }
        let counts = try threads.split(separator: ",").map { part -> Int in
            guard let t = Int(part), t >= 1, t <= 256 else {
                throw UserError("--threads: '\(part)' is not a thread count from 1 to 256")
            }
            return t
        }
        let lvl = try Files.loadLevel(level)
        guard decisions >= 1 else { throw UserError("--decisions: \(decisions) must be at least 1") }
        guard sigma.isFinite && sigma >= 0 else { throw UserError("--sigma: \(sigma) must be a number >= 0 (radians)") }
        guard renders >= 1 else { throw UserError("--renders: \(renders) must be at least 1") }
        guard budget >= 1, precision > 1 else { throw UserError("--budget must be at least 1 and --precision above 1") }
        guard generateLevels >= 1 else { throw UserError("--generate-levels: \(generateLevels) must be at least 1") }
        let rows = generate ? try runGenerate() : rating ? try runRating(counts) : render ? try runRender(lvl) : greedy ? try runGreedy(lvl, counts) : vector || serve ? try runEnvironments(lvl, counts) : try runScene(lvl, counts)
        if let csv {
            let cols = generate
                ? ["mode", "distribution", "levels", "mean_pegs", "us_per_level", "us_per_validate", "us_per_new_game",
                   "us_per_reset_generated", "us_per_reset_kept", "us_per_reset_file", "us_per_episode"]
                : rating
                ? ["mode", "levels", "threads", "budget", "precision", "seconds", "cpu_seconds", "games", "levels_per_hour"]
                : render
                ? ["mode", "width", "height", "renders", "ms_per_rgb_render", "ms_per_svg_render"]
                : greedy
                ? ["mode", "threads", "sigma", "decisions", "simulations", "seconds", "ms_per_decision", "simulations_per_s"]
                : vector || serve
                ? ["mode", "envs", "threads", "batches", "shots", "seconds", "shots_per_s"]
                : ["threads", "shots", "steps", "seconds", "steps_per_s", "shots_per_s", "mean_steps_per_shot",
                   "game_shots_per_s", "game_mean_steps_per_shot"]
            let text = ([cols.joined(separator: ",")] + rows.map { r in cols.map { "\(r[$0]!)" }.joined(separator: ",") })
                .joined(separator: "\n") + "\n"
            try Files.write(text, to: csv)
        }
    }

    /// Physics and full-game throughput on the scene, per thread count.
    func runScene(_ lvl: Level, _ counts: [Int]) throws -> [[String: Any]] {
        let rules = Rules()
        let angles = Benchmarks.gridAngles(shots)
        var rows: [[String: Any]] = []
        for t in counts {
            var physics: [Run] = []
            var game: [Run] = []
            let episodes = max(1, shots / 10)
            for _ in 0..<`repeat` {
                physics.append(try Self.timed(threads: t, count: angles.count) { range in
                    let steps = Benchmarks.physicsSteps(level: lvl, rules: rules, angles: angles[range])
                    return Run(shots: range.count, steps: steps, seconds: 0)
                })
                game.append(try Self.timed(threads: t, count: episodes) { range in
                    let r = try Benchmarks.gameEpisodes(level: lvl, rules: rules, episodes: range, angles: angles)
                    return Run(shots: r.shots, steps: r.steps, seconds: 0)
                })
            }
            let p = Self.median(physics), g = Self.median(game)
            let row: [String: Any] = [
                "engine": "peggle-gym \(PeggleGym.version)", "scene": scene, "pegs": lvl.pegs.count,
                "shots": shots, "threads": t, "repeat": `repeat`, "cores": ProcessInfo.processInfo.activeProcessorCount,
                "steps": p.steps, "seconds": Self.round(p.seconds, 4),
                "steps_per_s": Self.round(Double(p.steps) / p.seconds, 1),
                "shots_per_s": Self.round(Double(shots) / p.seconds, 1),
                "mean_steps_per_shot": Self.round(Double(p.steps) / Double(shots), 1),
                "steps_per_s_runs": physics.map { Self.round(Double($0.steps) / $0.seconds, 1) },
                "game_shots_per_s_runs": game.map { Self.round(Double($0.shots) / $0.seconds, 1) },
                "game_episodes": episodes, "game_shots": g.shots, "game_steps": g.steps,
                "game_seconds": Self.round(g.seconds, 4),
                "game_shots_per_s": Self.round(Double(g.shots) / g.seconds, 1),
                "game_mean_steps_per_shot": Self.round(Double(g.steps) / Double(g.shots), 1),
            ]
            rows.append(row)
            if json {
                printLine(JSON.text(row))
            } else {
                printLine("threads \(t): physics \(row["steps_per_s"]!) steps/s, \(row["shots_per_s"]!) shots/s, "
                    + "\(row["mean_steps_per_shot"]!) steps/shot; full game \(row["game_shots_per_s"]!) shots/s "
                    + "(median of \(`repeat`))")
            }
        }
        return rows
    }

    /// Work done by one run: shots, fixed steps, wall seconds.
    struct Run {
        var shots: Int, steps: Int, seconds: Double
    }

    /// Runs `work` on `threads` contiguous chunks of `0..<count` at once; sums and wall time.
    static func timed(threads: Int, count: Int, _ work: @Sendable (Range<Int>) throws -> Run) throws -> Run {
        let chunks = Parallel.chunkCount(count, threads: threads, chunksPerThread: 1)
        let results = Results(count: chunks)
        let start = DispatchTime.now().uptimeNanoseconds
        Parallel.forEachChunk(count, threads: threads, chunksPerThread: 1) { c, range in
            results.set(c, Result { try work(range) })
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var total = Run(shots: 0, steps: 0, seconds: seconds)
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
}

/// Per-thread results, each slot written by exactly one thread.
final class Results: @unchecked Sendable {
    private(set) var values: [Result<Bench.Run, Error>?]
    private let lock = NSLock()
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<Bench.Run, Error>) {
        lock.lock()
        values[i] = r
        lock.unlock()
    }
}
