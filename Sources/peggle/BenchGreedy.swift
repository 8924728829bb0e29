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
            var agent = GreedyAgent(threads: t)
            agent.screen = screen
            var runs: [(seconds: Double, sims: Int)] = []
            var choices: [Double] = [], values: [Double] = []
            for _ in 0..<`repeat` {
                let start = DispatchTime.now().uptimeNanoseconds
                var sims = 0
                choices = []
                values = []
                for g in states {
                    let r = agent.searchCounting(g, sigma: sigma)
                    sims += r.simulations
                    choices.append(r.angle)
                    values.append(r.value)
                }
                runs.append((Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, sims))
            }
            let m = runs.sorted { $0.seconds < $1.seconds }[runs.count / 2]
            var row: [String: Any] = [
                "mode": AgentKind.greedy.rawValue, "level": lvl.name, "threads": t, "sigma": sigma, "decisions": states.count,
                "agent": agent.label, "simulations": m.sims, "seconds": Self.round(m.seconds, 4),
                "decisions_per_s": Self.round(Double(states.count) / m.seconds, 1),
                "ms_per_decision": Self.round(1000 * m.seconds / Double(states.count), 2),
                "simulations_per_s": Self.round(Double(m.sims) / m.seconds, 0),
                "cores": ProcessInfo.processInfo.activeProcessorCount,
            ]
            if compareUnscreened && sigma > 0 {
                // The same decisions without screening: how often the screen changes the choice.
                var full = agent
                full.screen = 0
                let fullSearch = states.map { full.search($0, sigma: sigma) }
                row["same_choice_as_unscreened"] = zip(choices, fullSearch).filter { $0 == $1.angle }.count
                // What the screen costs: the full search's best value minus the screened choice's
                // (both exact means over every offset), over the decisions where they differ.
                let regrets = zip(values, fullSearch).map { max(0, $1.value - $0) }
                row["mean_value_regret"] = Self.round(regrets.reduce(0, +) / Double(max(1, regrets.count)), 1)
                row["median_value_full"] = Self.round(fullSearch.map(\.value).sorted()[fullSearch.count / 2], 1)
            }
            rows.append(row)
            if json { printLine(JSON.text(row)) } else {
                printLine("threads \(t): greedy \(row["ms_per_decision"]!) ms per decision, "
                    + "\(row["simulations_per_s"]!) candidate shots/s (\(states.count) decisions, sigma \(sigma), median of \(`repeat`))"
                    + (row["same_choice_as_unscreened"].map { "; same choice as unscreened in \($0) of \(states.count), mean value regret "
                        + "\(row["mean_value_regret"]!) (median best value \(row["median_value_full"]!))" } ?? ""))
            }
        }
        return rows
    }
}
