import Foundation
import PeggleRating
import PeggleStore
import Testing

/// `--physics 2` (issue 51): version 2 plays where it is asked to, says so in what it writes, and
/// version 1's output stays what it was.
@Suite("--physics", .serialized)
struct PhysicsOptionTests {
    let grid = "Levels/bench-grid.json"

    @Test("play --physics 2 is deterministic and says its physics; version 1's JSON has no physics key")
    func play() throws {
        let args = ["play", grid, "--angles", "0.1,-0.5,0.9", "--seed", "7", "--json"]
        let v1 = try CLI.run(args), v2 = try CLI.run(args + ["--physics", "2"]), again = try CLI.run(args + ["--physics", "2"])
        #expect(v1.status == 0 && v2.status == 0)
        #expect(v2.stdout == again.stdout)
        let one = try #require(JSONSerialization.jsonObject(with: Data(v1.stdout.utf8)) as? [String: Any])
        let two = try #require(JSONSerialization.jsonObject(with: Data(v2.stdout.utf8)) as? [String: Any])
        #expect(one["physics"] == nil)
        #expect(two["physics"] as? Int == 2)
        // `--physics 1` is version 1: the same bytes as no option.
        #expect(try CLI.run(args + ["--physics", "1"]).stdout == v1.stdout)
        let text = try CLI.run(["play", grid, "--angles", "0.1", "--physics", "2"])
        #expect(text.stdout.hasSuffix("[physics 2]\n"))
    }

    @Test("a turning board plays under --physics 2; a physics that does not exist is refused with exit 2")
    func turningAndBad() throws {
        let r = try CLI.run(["play", "Levels/upside-down.json", "--angles", "0.1,0.4,-0.3", "--physics", "2"])
        #expect(r.status == 0 && r.stdout.hasSuffix("[physics 2]\n"))
        let bad = try CLI.run(["play", grid, "--angles", "0.1", "--physics", "3"])
        #expect(bad.status == 2 && bad.stdout.isEmpty && bad.stderr.contains("'3' is invalid for '--physics <physics>'"))
    }

    @Test("rate --physics 2 stores its games under an agent that says physics=2, beside version 1's")
    func rate() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("both.sqlite").path
        let small = ["--method", "grid", "--agents", "greedy", "--candidates", "8", "--refine", "1x2", "--samples", "2",
                     "--episodes", "3", "--sigmas", "0,0.05"]
        let v1 = try CLI.run(["rate", "Levels/first-steps.json"] + small + ["--db", db])
        #expect(v1.status == 0, "\(v1.stderr)")
        // Zombie Night puts several balls in play: version 1's steps play those parts.
        let v2 = try CLI.run(["rate", "Levels/first-steps.json", "Levels/zombie-night.json"] + small + ["--db", db, "--physics", "2"])
        #expect(v2.status == 0, "\(v2.stderr)")
        #expect(v2.stdout.contains("rated 2 levels with 1 agent: 12 games added, 0 already stored"))
        let store = try PeggleStore(path: db)
        let games = try store.games()
        #expect(games.count == 18)
        let labels = Set(games.map(\.agentLabel))
        #expect(labels == ["greedy(candidates=8,refine=1x2,samples=2)", "greedy(candidates=8,physics=2,refine=1x2,samples=2)"])
        // The runs' configurations: version 1's has no physics key; version 2's says 2.
        let configs = try store.runs().map { RunConfiguration.decode($0.configuration) }
        #expect(configs.map { $0?.physics } == [nil, 2])
        #expect(try store.runs()[0].configuration.contains("physics") == false)
        // A rerun of version 2 adds nothing.
        let rerun = try CLI.run(["rate", "Levels/first-steps.json"] + small + ["--db", db, "--physics", "2"])
        #expect(rerun.stdout.contains("0 games added, 6 already stored"))
    }
}
