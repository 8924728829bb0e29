import Dispatch
import Foundation
import PeggleAgents
import PeggleGame

extension Bench {
    /// `bench --greedy`: the greedy agent's search time per decision, and candidate shots
    /// simulated per second, with the search spread over T threads.
    func runGreedy(_ lvl: Level, _ counts: [Int]) throws -> [[String: Any]] {
        let rules = Rules()
        // Decision states: fresh games, and games a few random shots in (the board thins out).
        var states: [GameState] = []
        for s in 0..<decisions {
            var g = try GameState(level: lvl, rules: rules, seed: UInt64(s))
            var rng = SeededGenerator(seed: UInt64(s))
            for _ in 0..<(s % 4) where !g.isOver {
                _ = try g.shoot(angle: (rng.nextUnit() * 2 - 1) * rules.maxAim * 0.9)
            }
            if !g.isOver { states.append(g) }
        }
        guard !states.isEmpty else { throw UserError("--level: every decision state ended the game; pick a longer level") }
        var rows: [[String: Any]] = []
        for t in counts {
            let agent = GreedyAgent(threads: t)
            var runs: [(seconds: Double, sims: Int)] = []
            for _ in 0..<`repeat` {
                let start = DispatchTime.now().uptimeNanoseconds
                var sims = 0
                for g in states { sims += agent.search(g, sigma: sigma).tried.count }
                if sigma > 0 { sims *= agent.noiseSamples }
                runs.append((Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, sims))
            }
            let m = runs.sorted { $0.seconds < $1.seconds }[runs.count / 2]
            let row: [String: Any] = [
                "mode": "greedy", "level": lvl.name, "threads": t, "sigma": sigma, "decisions": states.count,
                "agent": agent.label, "simulations": m.sims, "seconds": Self.round(m.seconds, 4),
                "decisions_per_s": Self.round(Double(states.count) / m.seconds, 1),
                "ms_per_decision": Self.round(1000 * m.seconds / Double(states.count), 2),
                "simulations_per_s": Self.round(Double(m.sims) / m.seconds, 0),
                "cores": ProcessInfo.processInfo.activeProcessorCount,
            ]
            rows.append(row)
            if json { printLine(JSON.text(row)) } else {
                printLine("threads \(t): greedy \(row["ms_per_decision"]!) ms per decision, "
                    + "\(row["simulations_per_s"]!) candidate shots/s (\(states.count) decisions, sigma \(sigma), median of \(`repeat`))")
            }
        }
        return rows
    }
}
