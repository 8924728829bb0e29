import Foundation
import PeggleAgents
import PeggleGame
import PeggleStore
import PeggleTestSupport
import Testing
import PeggleCommandLine

/// The defaults that name files of a checkout (`linear:Agents/linear.json`, `Levels`) work from any
/// folder (docs/distribution.md, "From any folder"). The wheel's side, its bundled levels beside
/// the engine, is python/tests/test_wheel.py's.
@Suite("defaults outside a checkout", .serialized)
struct BundledDefaultsTests {
    @Test("the linear policy built into peggle is Agents/linear.json, byte for byte")
    func builtInPolicy() throws {
        #expect(Bundled.linearPolicyData == (try Repository.data("Agents/linear.json")))
        #expect(Bundled.linearPolicy == "Agents/linear.json")
    }

    @Test("rate's default agents, run where there is no Agents/linear.json, play the checkout's games")
    func rateDefaultsAnywhere() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let level = Repository.url("Levels/first-steps.json").path
        let small = ["--budget", "8", "--episodes", "2", "--candidates", "8", "--refine", "1x2", "--samples", "2"]
        let checkout = dir.appendingPathComponent("checkout.sqlite"), elsewhere = dir.appendingPathComponent("elsewhere.sqlite")
        let here = try CLI.run(["rate", level, "--db", checkout.path] + small)
        #expect(here.status == 0, "\(here.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("Agents").path))
        let there = try CLI.run(["rate", level, "--db", elsewhere.path] + small, cwd: dir)
        #expect(there.status == 0, "\(there.stderr)")
        let a = try PeggleStore(path: checkout.path).games(), b = try PeggleStore(path: elsewhere.path).games()
        #expect(Set(a.map(\.agentKind)) == [.random, .greedy, .linear])
        #expect(a.filter { $0.agentKind == .linear }.count == 2)
        #expect(a == b)
    }

    @Test("elsewhere, another missing policy file is still an error naming it")
    func otherPolicyFilesAreFiles() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let level = Repository.url("Levels/first-steps.json").path
        let r = try CLI.run(["play", level, "--agent", "linear:Agents/other.json"], cwd: dir)
        #expect(r.status != 0)
        #expect(r.stderr.contains("Agents/other.json") && r.stderr.contains("no such file"), "\(r.stderr)")
    }

    @Test("a binary outside a wheel has no wheel levels")
    func levelsOutsideAWheel() throws {
        #expect(Bundled.wheelLevels == nil)
    }
}
