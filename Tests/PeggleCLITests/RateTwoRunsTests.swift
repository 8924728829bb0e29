import Foundation
import PeggleStore
import Testing

/// Two `peggle rate` processes on one database: the second leaves the levels the first is rating
/// to it and says so, instead of playing every game again and storing none of them.
@Suite("peggle rate: two runs on one database", .serialized)
struct RateTwoRunsTests {
    static let args = ["rate", "Levels/first-steps.json", "--method", "grid", "--agents", "random", "--episodes", "6",
                       "--sigmas", "0", "--batch", "2", "--threads", "1"]

    @Test("a second run leaves a level to the live run rating it; after that run is killed, the next run takes it over")
    func secondRunLeavesTheLevel() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("shared.sqlite")
        // The first run commits one batch and then holds still (a long run, as far as the second can tell).
        let (p, said) = try CLI.startPausedRate(Self.args + ["--db", db.path], batches: 1)
        #expect(said.contains("paused after 1 batches"), "\(said)")
        let stored = try PeggleStore(path: db.path).counts().episodes

        let second = try CLI.run(Self.args + ["--db", db.path])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("rated 0 levels with 1 agent: 0 games added, 0 already stored"), "\(second.stdout)")
        #expect(second.stderr.contains("left Levels/first-steps.json to the peggle rate already rating it in \(db.path) "
            + "(process \(p.processIdentifier) on "), "\(second.stderr)")
        #expect(try PeggleStore(path: db.path).counts().episodes == stored)

        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        // The killed run's claim names a process that has ended: the next run takes the level.
        let third = try CLI.run(Self.args + ["--db", db.path])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.contains("rated 1 level with 1 agent: \(6 - stored) games added, \(stored) already stored"),
                "\(third.stdout)")
        #expect(!third.stderr.contains("left "))
        let store = try PeggleStore(path: db.path)
        #expect(try store.counts().episodes == 6)
        #expect(try store.claims().isEmpty)
    }
}
