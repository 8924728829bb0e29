import Foundation
import Testing

@Suite("--help")
struct HelpTextTests {
    static let commands: [[String]] = [
        [], ["level"], ["level", "validate"], ["level", "info"], ["level", "new"], ["level", "edit"],
        ["level", "edit", "add"], ["level", "edit", "move"], ["level", "edit", "remove"], ["level", "edit", "resize"],
        ["level", "edit", "rotate"], ["level", "edit", "kind"], ["level", "generate"], ["level", "tune"], ["level", "gallery"], ["play"], ["render"], ["serve"], ["train"],
        ["rate"], ["estimate"], ["report"],
    ]

    /// Help points only at what a user has: the repository, not folders beside it.
    @Test("no help text points outside the repository", arguments: commands)
    func staysInside(command: [String]) throws {
        Self.expectInside(try CLI.run(command + ["--help"]), command)
    }

    static func expectInside(_ r: RunResult, _ command: [String]) {
        #expect(r.status == 0)
        #expect(r.stdout.contains("USAGE:"))
        #expect(!r.stdout.contains("../"), "\(command): \(r.stdout)")
        #expect(!r.stdout.contains("/work/"), "\(command)")
    }

    static let benchmarks: [[String]] = [
        [], ["physics"], ["vector"], ["serve"], ["greedy"], ["render"], ["rating"], ["generate"], ["calibration"], ["freeflight"],
    ]

    @Test("no peggle-bench help text points outside the repository", arguments: benchmarks)
    func benchStaysInside(command: [String]) throws {
        Self.expectInside(try CLI.bench(command + ["--help"]), command)
    }
}
