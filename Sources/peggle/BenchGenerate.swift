import Dispatch
import Foundation
import PeggleEnv
import PeggleGame

extension Bench {
    /// `bench --generate`: microseconds per generated level, per new game built from one, and
    /// what a reset costs with procedural levels against file levels, next to the episode it starts.
    func runGenerate() throws -> [[String: Any]] {
        let n = generateLevels
        var rows: [[String: Any]] = []
        func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
        func micros(_ start: UInt64, _ count: Int) -> Double { Self.round(Double(now() - start) / 1e3 / Double(count), 1) }
        for d in LevelDistribution.allCases {
            var pegs = 0
            var t = now()
            var levels: [Level] = []
            levels.reserveCapacity(n)
            for s in 0..<n { levels.append(LevelGenerator.generate(seed: UInt64(s), distribution: d)) }
            let generate = micros(t, n)
            for l in levels { pegs += l.pegs.count }
            t = now()
            var issues = 0
            for l in levels { issues += l.validate().count }
            let validate = micros(t, n)
            guard issues == 0 else { throw UserError("--generate: \(issues) problems in generated \(d.rawValue) levels (a bug)") }
            t = now()
            for l in levels { _ = try GameState(level: l, seed: 0) }
            let build = micros(t, n)

            // Resets: every one a new level (unlimited seeds), against the same number over 100
            // file levels (a reset then copies a prepared game).
            var obs = [Float](repeating: 0, count: EnvConfig(levels: []).observationEncoder.size)
            var procedural = try PeggleEnv(config: EnvConfig(procedural: ProceduralLevels(distribution: d)), seed: 1)
            t = now()
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<n { try procedural.reset(into: p) } }
            let resetGenerated = micros(t, n)
            // Procgen's usual training set, 200 levels: each is generated once, then kept.
            var kept = try PeggleEnv(config: EnvConfig(procedural: ProceduralLevels(numLevels: 200, distribution: d)), seed: 1)
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<2000 { try kept.reset(into: p) } }
            t = now()
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<n { try kept.reset(into: p) } }
            let resetKept = micros(t, n)
            var config = EnvConfig(levels: Array(levels.prefix(100)))
            config.order = .random
            var files = try PeggleEnv(config: config, seed: 1)
            t = now()
            try obs.withUnsafeMutableBufferPointer { p in for _ in 0..<n { try files.reset(into: p) } }
            let resetFile = micros(t, n)

            // Whole episodes on generated levels with a fixed cycle of aims: time per episode.
            let episodes = max(1, n / 20)
            var steps = 0
            t = now()
            try obs.withUnsafeMutableBufferPointer { p in
                for e in 0..<episodes {
                    try procedural.reset(into: p)
                    var k = e
                    while true {
                        let out = try procedural.step(Double((k * 7) % 19) / 9 - 1, into: p)
                        steps += 1
                        k += 1
                        if out.terminated || out.truncated { break }
                    }
                }
            }
            let episode = micros(t, episodes)
            let row: [String: Any] = [
                "mode": "generate", "distribution": d.rawValue, "levels": n, "mean_pegs": Self.round(Double(pegs) / Double(n), 1),
                "us_per_level": generate, "us_per_validate": validate, "us_per_new_game": build,
                "us_per_reset_generated": resetGenerated, "us_per_reset_kept": resetKept, "us_per_reset_file": resetFile,
                "episodes": episodes, "mean_steps_per_episode": Self.round(Double(steps) / Double(episodes), 1),
                "us_per_episode": episode,
                "reset_share_of_episode": Self.round((resetGenerated - resetFile) / episode, 4),
            ]
            rows.append(row)
            if json { printLine(JSON.text(row)) } else {
                printLine("\(d.rawValue): \(generate) us per level (\(row["mean_pegs"]!) pegs), validate \(validate) us, "
                    + "new game \(build) us; reset \(resetGenerated) us with a new generated level, \(resetKept) us with 200 "
                    + "levels (kept), \(resetFile) us on file levels; an episode (\(row["mean_steps_per_episode"]!) shots) takes \(episode) us")
            }
        }
        return rows
    }
}
