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

/// `peggle level generate` into an existing folder, killed with SIGKILL at each phase of bringing
/// its files in (the hidden `--kill-at` hook raises SIGKILL there, as `kill -9` would): the
/// user's files are never touched and a rerun ends with exactly the full set and no stage.
@Suite("peggle level generate: killed at each phase")
struct LevelGenerateKillTests {
    static let args = ["level", "generate", "--count", "4", "--seed", "10", "--out", "corpus"]
    static let expected = ["hard-000010-ramps.json", "hard-000011-rings.json", "hard-000012-rings.json",
                           "hard-000013-rings.json"]

    /// A folder `corpus` holding one level of the user's, and the files of a clean run to compare with.
    static func setUp() throws -> (dir: URL, corpus: URL, clean: [String: Data]) {
        let dir = try CLI.tempDir()
        let corpus = dir.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: CLI.root.appendingPathComponent("Levels/fortress.json"),
                                         to: corpus.appendingPathComponent("mine.json"))
        let r = try CLI.run(["level", "generate", "--count", "4", "--seed", "10", "--out", "clean"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let cleanDir = dir.appendingPathComponent("clean")
        var clean: [String: Data] = [:]
        for f in try LevelGenerateStagingTests.files(cleanDir) { clean[f] = try Data(contentsOf: cleanDir.appendingPathComponent(f)) }
        return (dir, corpus, clean)
    }

    static func generated(_ corpus: URL) throws -> [String] {
        try LevelGenerateStagingTests.files(corpus).filter { $0.hasPrefix("hard-") }
    }

    static func stages(_ corpus: URL) throws -> [String] {
        try LevelGenerateStagingTests.files(corpus).filter { $0.hasPrefix(".peggle-generate-") }
    }

    @Test("a kill at each phase, then a rerun of the same command",
          arguments: [("written:2", 0, false), ("committed", 0, true), ("moved:2", 2, true), ("finished", 4, true)])
    func killAndRerun(point: String, movedBeforeKill: Int, committed: Bool) throws {
        let (dir, corpus, clean) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(clean.keys.sorted() == Self.expected)
        let mine = try Data(contentsOf: corpus.appendingPathComponent("mine.json"))

        let killed = try CLI.run(Self.args + ["--kill-at", point], cwd: dir)
        #expect(killed.status == SIGKILL, "\(killed.stderr)")
        #expect(try Self.generated(corpus) == Array(Self.expected.prefix(movedBeforeKill)))
        #expect(try Self.stages(corpus).count == 1)

        let rerun = try CLI.run(Self.args, cwd: dir)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.hasPrefix(committed ? "finished an interrupted run: the 4 levels (seeds 10...13) are in corpus"
            : "wrote 4 hard levels to corpus"), "\(rerun.stdout)")
        #expect(try LevelGenerateStagingTests.files(corpus) == (Self.expected + ["mine.json"]).sorted())
        for f in Self.expected { #expect(try Data(contentsOf: corpus.appendingPathComponent(f)) == clean[f]) }
        #expect(try Data(contentsOf: corpus.appendingPathComponent("mine.json")) == mine)
    }

    @Test("another run into the folder finishes a killed run's committed files before its own")
    func otherRunFinishesCommittedStage() throws {
        let (dir, corpus, _) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(Self.args + ["--kill-at", "moved:1"], cwd: dir).status == SIGKILL)
        let other = try CLI.run(["level", "generate", "--count", "1", "--seed", "20", "--out", "corpus"], cwd: dir)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try LevelGenerateStagingTests.files(corpus)
            == (Self.expected + ["hard-000020-waves.json", "mine.json"]).sorted())
    }

    @Test("a name that appeared since the kill stops the finishing: nothing is replaced, the stage stays, the error says what to do")
    func finishingNeverReplaces() throws {
        let (dir, corpus, _) = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(Self.args + ["--kill-at", "moved:1"], cwd: dir).status == SIGKILL)
        let intruder = corpus.appendingPathComponent(Self.expected[2])
        try Data("{}".utf8).write(to: intruder)
        let stage = try Self.stages(corpus)[0]
        let rerun = try CLI.run(Self.args, cwd: dir)
        #expect(rerun.status == 2)
        #expect(rerun.stderr == "error: --out: \(corpus.path): cannot finish the interrupted run in \(stage): cannot move "
            + "\(Self.expected[2]) into place (a file of that name is already there); move or remove the file, or remove "
            + "\(stage), and run again\n")
        #expect(try Data(contentsOf: intruder) == Data("{}".utf8))
        #expect(try Self.stages(corpus) == [stage])
    }

    @Test("--kill-at refuses what it cannot read")
    func badKillPoint() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLI.run(["level", "generate", "--count", "1", "--seed", "1", "--out", "x", "--kill-at", "moved"], cwd: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "error: --kill-at: 'moved' is not written:N, committed, moved:N or finished\n")
    }
}
