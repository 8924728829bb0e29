import Foundation
import GRDB
import PeggleStore
import Testing

@Suite struct FileTests {
    // MARK: - Interruption

    /// Inserts `batches` into `store` the way a rerun does: skipping keys already stored.
    func rate(_ store: PeggleStore, _ batches: [[Fixture.Item]]) throws -> Int {
        var added = 0
        for batch in batches {
            added += try store.insert(batch)
        }
        return added
    }

    @Test(arguments: [0, 1, 3, 5])
    func aRunKilledBetweenBatchesResumesToTheSameStore(killedAfter k: Int) throws {
        let dir = try TempDir()
        let reference = try PeggleStore(path: dir.path("reference.sqlite"))
        let referenceRun = try reference.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        let whole = try Fixture.plan(reference, run: referenceRun)
        #expect(whole.count > 5)
        let total = try rate(reference, whole)
        try reference.finishRun(referenceRun, episodesAdded: total)

        let path = dir.path("resumed.sqlite")
        do {
            let store = try PeggleStore(path: path)
            let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
            let plan = try Fixture.plan(store, run: run)
            #expect(try rate(store, Array(plan.prefix(k))) == plan.prefix(k).map(\.count).reduce(0, +))
            // Killed here: no finishRun, and the store object goes away.
        }
        let store = try PeggleStore(path: path)
        let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        let plan = try Fixture.plan(store, run: run)
        let added = try rate(store, plan)
        try store.finishRun(run, episodesAdded: added)
        #expect(added == total - plan.prefix(k).map(\.count).reduce(0, +))

        var expected = try reference.counts()
        expected.runs = 2
        #expect(try store.counts() == expected)
        #expect(try store.games() == reference.games())
        #expect(try Fixture.allShots(store) == Fixture.allShots(reference))
        #expect(try store.runs().map(\.finishedAt).map { $0 == nil } == [true, false])
        #expect(try store.integrityOK())
    }

    @Test func filesCopiedFromAnOpenStoreReopenWithEveryCommittedBatch() throws {
        // What kill -9 leaves: the main file, its WAL and shared memory, never checkpointed.
        let dir = try TempDir()
        let store = try PeggleStore(path: dir.path("live.sqlite"))
        let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        let plan = try Fixture.plan(store, run: run)
        let stored = try rate(store, Array(plan.prefix(3)))
        #expect(FileManager.default.fileExists(atPath: dir.path("live.sqlite-wal")))
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: dir.path("live.sqlite" + suffix), toPath: dir.path("copy.sqlite" + suffix))
        }
        let copy = try PeggleStore(path: dir.path("copy.sqlite"))
        #expect(try copy.counts() == store.counts())
        #expect(try copy.counts().episodes == stored)
        #expect(try copy.games() == store.games())
        #expect(try copy.integrityOK())
    }

    // MARK: - File errors

    @Test func aTextFileIsNotADatabaseAndIsLeftUntouched() throws {
        let dir = try TempDir()
        let path = dir.path("notes.txt")
        let bytes = Data("level,score\nfirst,100\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.notADatabase(path: path)) { try PeggleStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["notes.txt"])
    }

    @Test func aFileWithTheHeaderButNoDatabaseIsNotADatabase() throws {
        let dir = try TempDir()
        let path = dir.path("broken.sqlite")
        let bytes = Data("SQLite format 3\0".utf8) + Data(repeating: 0xff, count: 200)
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.notADatabase(path: path)) { try PeggleStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
    }

    @Test func aNewerSchemaIsRefusedAndNothingChanges() throws {
        let dir = try TempDir()
        let path = dir.path("newer.sqlite")
        do {
            let store = try PeggleStore(path: path)
            _ = try store.level(Fixture.level(0))
        }
        do {
            let db = try DatabaseQueue(path: path)
            try db.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.newerSchema(path: path, unknown: ["v99"])) { try PeggleStore(path: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        var readOnly = Configuration()
        readOnly.readonly = true
        let db = try DatabaseQueue(path: path, configuration: readOnly)
        let (identifiers, levels) = try db.read { db in
            (try String.fetchSet(db, sql: "SELECT identifier FROM grdb_migrations"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM level"))
        }
        #expect(identifiers == Set(PeggleStore.knownMigrations + ["v99"]))
        #expect(levels == 1)
    }

    @Test func aFolderThatDoesNotExistIsNamed() throws {
        let dir = try TempDir()
        let path = dir.path("missing/ratings.sqlite")
        #expect { try PeggleStore(path: path) } throws: { error in
            guard let error = error as? StoreError, case let .sqlite(errorPath, message) = error else { return false }
            return errorPath == path && message.contains(dir.path("missing")) && message.contains("does not exist")
                && error.description.hasPrefix(path)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.path("missing")))
    }

    @Test func aFolderIsNotADatabaseFile() throws {
        let dir = try TempDir()
        #expect { try PeggleStore(path: dir.url.path) } throws: { error in
            guard case let .sqlite(_, message) = error as? StoreError else { return false }
            return message.contains("folder")
        }
    }

    // MARK: - WAL

    @Test func aFileStoreIsInWALModeAndIntact() throws {
        let dir = try TempDir()
        let path = dir.path("wal.sqlite")
        let store = try PeggleStore(path: path)
        #expect(store.path == path)
        let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        _ = try rate(store, try Fixture.plan(store, run: run))
        let (journal, foreignKeys) = try store.writer.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"))
        }
        #expect(journal == "wal")
        #expect(foreignKeys == true)
        #expect(try store.integrityOK())
        // Reopening an existing, current database migrates nothing and keeps everything.
        let counts = try store.counts()
        let again = try PeggleStore(path: path)
        #expect(try again.counts() == counts)
    }

    @Test func readersNeverSeeHalfABatch() async throws {
        let dir = try TempDir()
        let store = try PeggleStore(path: dir.path("concurrent.sqlite"))
        let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        let level = try store.level(Fixture.level(0))
        let agent = try store.agent(Fixture.agent(0))
        let batchSize = 20, shotsPerEpisode = 4, batches = 30
        let writer = Task.detached {
            for b in 0..<batches {
                let batch = (0..<batchSize).map {
                    Fixture.episode(run: run, level: level, agent: agent, seed: UInt64(b * batchSize + $0), sigma: 0,
                                    shotCount: shotsPerEpisode)
                }
                _ = try store.insert(batch)
            }
        }
        let deadline = Date().addingTimeInterval(60)
        var reads = 0, last = 0
        while Date() < deadline {
            let counts = try store.counts()
            reads += 1
            #expect(counts.episodes % batchSize == 0)
            #expect(counts.shots == counts.episodes * shotsPerEpisode)
            #expect(counts.episodes >= last)
            last = counts.episodes
            if counts.episodes == batchSize * batches { break }
        }
        try await writer.value
        #expect(try store.counts().episodes == batchSize * batches)
        #expect(reads > 0)
    }
}
