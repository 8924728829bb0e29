import Foundation
import PeggleStore
import Testing

/// `peggle level generate` stages its files in a hidden folder named after its process; a run
/// removes the staging folders that killed runs left where it stages, and no other.
@Suite("peggle level generate: staging folders")
struct LevelGenerateStagingTests {
    static func files(_ dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    /// A staging folder as a run of `pid` started at `start` names it, with a half-written level in it.
    static func stage(in dir: URL, pid: Int32, start: String) throws -> String {
        let name = ".peggle-generate-\(pid)-\(start)-\(UUID().uuidString)"
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try Data("{\"name\": ".utf8).write(to: url.appendingPathComponent("hard-000001-arcs.json"))
        return name
    }

    @Test("a staging folder of a process that has ended is removed by the next run; a live run's and an older build's stay")
    func staleStagingFoldersAreRemoved() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let me = ProcessIdentity.current
        // No process has an id above Linux's largest (2^22): a run killed with -9 left this one.
        let dead = try Self.stage(in: dir, pid: 1 << 30, start: "12345")
        // This test process with another start time: an earlier process that had the same id.
        let recycled = try Self.stage(in: dir, pid: me.pid, start: me.start + "7")
        // A live process's folder (this test process stands for a run still writing).
        let live = try Self.stage(in: dir, pid: me.pid, start: me.start)
        // An older build's folder names no process, so nothing can say it is stale.
        let older = ".peggle-generate-\(UUID().uuidString)"
        try FileManager.default.createDirectory(at: dir.appendingPathComponent(older), withIntermediateDirectories: false)

        let r = try CLI.run(["level", "generate", "--count", "2", "--seed", "1", "--out", "corpus"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        // The dead run's folder and the recycled id's are gone.
        let left = try Self.files(dir)
        #expect(left == [live, older, "corpus"].sorted())
        #expect(!left.contains(dead) && !left.contains(recycled))

        // Into an existing folder the run stages inside it, and cleans there.
        let corpus = dir.appendingPathComponent("corpus")
        let inside = try Self.stage(in: corpus, pid: 1 << 30, start: "1")
        #expect(try Self.files(corpus).contains(inside))
        let again = try CLI.run(["level", "generate", "--count", "1", "--seed", "9", "--out", "corpus"], cwd: dir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try Self.files(corpus).count == 3)
        #expect(try Self.files(corpus).allSatisfy { $0.hasSuffix(".json") && !$0.hasPrefix(".") })
    }
}
