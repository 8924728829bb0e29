import Foundation
import Testing

@Suite("peggle play --agent")
struct PlayAgentCommandTests {
    @Test("output does not depend on the thread count")
    func threadIndependent() throws {
        let base = ["play", "Levels/springboard.json", "--agent", "greedy", "--candidates", "12", "--refine", "1x4",
                    "--samples", "2", "--episodes", "3", "--sigma", "0.02", "--seed", "5"]
        let one = try CLI.run(base + ["--threads", "1"]), two = try CLI.run(base + ["--threads", "2"])
        #expect(one.status == 0)
        #expect(one.stdout == two.stdout)
        let lines = one.stdout.split(separator: "\n")
        #expect(lines.count == 4)  // three games and a summary
        #expect(lines[0].hasPrefix("episode 1 (seed 5): "))
        #expect(lines[3].hasPrefix("greedy(candidates=12,refine=1x4,samples=2) on Springboard, sigma 0.02: 3 episodes"))
    }

    @Test("--json episodes add up to the summary")
    func jsonSummary() throws {
        let r = try CLI.run(["play", "Levels/first-steps.json", "--agent", "random", "--episodes", "8", "--json"])
        #expect(r.status == 0)
        let obj = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let eps = try #require(obj["episodes"] as? [[String: Any]])
        let summary = try #require(obj["summary"] as? [String: Any])
        #expect(eps.count == 8)
        let wins = eps.filter { $0["won"] as? Bool == true }.count
        #expect(summary["wins"] as? Int == wins)
        let meanScore = Double(eps.compactMap { $0["score"] as? Int }.reduce(0, +)) / 8
        #expect(abs((summary["mean_score"] as? Double ?? -1) - meanScore) < 1e-9)
        #expect(eps.map { $0["seed"] as? Int } == (0..<8).map { $0 })
        let lo = try #require(summary["win_rate_low"] as? Double), hi = try #require(summary["win_rate_high"] as? Double)
        #expect(lo <= Double(wins) / 8 && Double(wins) / 8 <= hi)
    }

    @Test("bad agent options are refused with exit code 2 and nothing on stdout",
          arguments: [
            (["--agent", "random", "--sigma=-0.1"], "--sigma: -0.1"),
            (["--agent", "random", "--episodes", "0"], "--episodes: 0 must be at least 1"),
            (["--agent", "bogus"], "unknown agent 'bogus'"),
            (["--agent", "linear"], "linear needs its weights file"),
            (["--agent", "linear:no-such-weights.json"], "no-such-weights.json"),
            (["--agent", "random", "--angles", "0.1"], "--angles and --agent"),
            (["--agent", "greedy", "--refine", "2by8"], "--refine: '2by8'"),
          ])
    func badInput(args: [String], message: String) throws {
        let r = try CLI.run(["play", "Levels/first-steps.json"] + args)
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "stderr: \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }
}
