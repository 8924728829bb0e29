import Foundation
import GRDB
import PeggleStore
import Testing

/// The WAL checkpoint, the integrity check before writing and the read-only open (StoreSafety.swift).
@Suite struct StoreSafetyTests {
    /// A store at `path` holding a whole fixture plan; returns how many episodes it holds.
    @discardableResult
    static func fill(_ path: String, seeds: [UInt64] = Array(1...6)) throws -> Int {
        let store = try PeggleStore(path: path)
        let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        var added = 0
        for batch in try Fixture.plan(store, run: run, seeds: seeds) { added += try store.insert(batch) }
        try store.finishRun(run, episodesAdded: added)
        return added
    }

    static func episodes(_ store: PeggleStore) throws -> Int {
        try store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM episode") ?? -1 }
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func files(_ dir: TempDir) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
    }

    // MARK: - Checkpoint

    /// A process that exits without closing its store leaves the games in the WAL: the database
    /// file alone then holds no tables. After `checkpoint()` the file alone holds every game.
    @Test func afterACheckpointTheDatabaseFileAloneHoldsEveryGame() throws {
        let dir = try TempDir()
        let path = dir.path("live.sqlite")
        let store = try PeggleStore(path: path)
        let run = try store.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        var added = 0
        for batch in try Fixture.plan(store, run: run) { added += try store.insert(batch) }
        #expect(added == 48)

        // The store is still open, as at the end of `peggle rate` before the process exits.
        try FileManager.default.copyItem(atPath: path, toPath: dir.path("before.sqlite"))
        #expect(throws: StoreError.sqlite(path: dir.path("before.sqlite"), message:
            "holds no rating tables (an SQLite database, but not one `peggle rate` wrote)")) {
            try PeggleStore(readingOnly: dir.path("before.sqlite"))
        }

        #expect(try store.checkpoint())
        #expect(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int == 0)
        try FileManager.default.copyItem(atPath: path, toPath: dir.path("after.sqlite"))
        let copy = try PeggleStore(readingOnly: dir.path("after.sqlite"))
        #expect(try Self.episodes(copy) == 48)
        #expect(try copy.games() == store.games())
        #expect(try copy.integrityOK())
    }

    @Test func checkpointingAMemoryStoreIsANoOp() throws {
        #expect(try PeggleStore().checkpoint())
    }

    // MARK: - Corrupt files

    /// A database cut short (its last 1,000 bytes gone, as a full disk or a half copy leaves it)
    /// is refused before anything is written, by the writing and the reading open alike, and the
    /// file stays byte for byte as it was, with no WAL or shared-memory file beside it.
    @Test func aTruncatedDatabaseIsRefusedAndLeftAsItWas() throws {
        let dir = try TempDir()
        let path = dir.path("cut.sqlite")
        try Self.fill(path, seeds: Array(1...40))
        let whole = try Self.bytes(path)
        #expect(whole.count > 100_000)
        #expect(try Self.files(dir) == ["cut.sqlite"], "closing the store should have folded the WAL in")
        let cut = whole.prefix(whole.count - 1000)
        try cut.write(to: URL(fileURLWithPath: path))

        for open in [{ _ = try PeggleStore(path: path) }, { _ = try PeggleStore(readingOnly: path) }] {
            #expect { try open() } throws: { error in
                guard case let .corrupt(errorPath, problem)? = error as? StoreError else { return false }
                return errorPath == path && !problem.isEmpty
                    && (error as! StoreError).description.hasPrefix("\(path): the database is damaged (")
            }
            #expect(try Self.bytes(path) == cut)
            #expect(try Self.files(dir) == ["cut.sqlite"])
        }
    }

    // MARK: - Reading only

    /// Reading leaves no trace: the file's bytes are the same and SQLite's `-wal` and `-shm`
    /// files are not created beside it; writing through a reading store is refused.
    @Test func aReadingStoreChangesNothing() throws {
        let dir = try TempDir()
        let path = dir.path("ratings.sqlite")
        let stored = try Self.fill(path)
        let before = try Self.bytes(path)
        #expect(try Self.files(dir) == ["ratings.sqlite"])
        do {
            let store = try PeggleStore(readingOnly: path)
            #expect(try Self.episodes(store) == stored)
            #expect(try store.games().count == stored)
            #expect(throws: StoreError.self) { try store.level(Fixture.level(7)) }
        }
        #expect(try Self.bytes(path) == before)
        #expect(try Self.files(dir) == ["ratings.sqlite"])
    }

    /// Games a killed run left in the WAL (never checkpointed) are read through it.
    @Test func aReadingStoreReadsThroughALeftoverWAL() throws {
        let dir = try TempDir()
        let live = try PeggleStore(path: dir.path("live.sqlite"))
        let run = try live.beginRun(command: "rate", configuration: "{}", engineVersion: "0")
        let plan = try Fixture.plan(live, run: run)
        for batch in plan.prefix(3) { _ = try live.insert(batch) }
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: dir.path("live.sqlite" + suffix), toPath: dir.path("copy.sqlite" + suffix))
        }
        let walBefore = try Self.bytes(dir.path("copy.sqlite-wal"))
        #expect(!walBefore.isEmpty)
        let copy = try PeggleStore(readingOnly: dir.path("copy.sqlite"))
        #expect(try Self.episodes(copy) == 15)
        #expect(try Self.bytes(dir.path("copy.sqlite-wal")) == walBefore)
    }

    @Test func anEmptyFileIsNotARatingDatabaseAndStaysEmpty() throws {
        let dir = try TempDir()
        let path = dir.path("empty.sqlite")
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        #expect(throws: StoreError.sqlite(path: path, message:
            "is empty (0 bytes), not a rating database; fill it with `peggle rate`")) {
            try PeggleStore(readingOnly: path)
        }
        #expect(try Self.bytes(path).isEmpty)
        #expect(try Self.files(dir) == ["empty.sqlite"])
    }

    @Test func aMissingFileIsNamedAndNotCreated() throws {
        let dir = try TempDir()
        let path = dir.path("none.sqlite")
        #expect(throws: StoreError.sqlite(path: path, message: "no such database file")) {
            try PeggleStore(readingOnly: path)
        }
        #expect(try Self.files(dir).isEmpty)
    }

    @Test func anotherApplicationsDatabaseHasNoRatingTables() throws {
        let dir = try TempDir()
        let path = dir.path("other.sqlite")
        do {
            let db = try DatabaseQueue(path: path)
            try db.write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT)") }
        }
        let before = try Self.bytes(path)
        #expect(throws: StoreError.sqlite(path: path, message:
            "holds no rating tables (an SQLite database, but not one `peggle rate` wrote)")) {
            try PeggleStore(readingOnly: path)
        }
        #expect(try Self.bytes(path) == before)
    }

    @Test func aNewerSchemaIsRefusedForReadingToo() throws {
        let dir = try TempDir()
        let path = dir.path("newer.sqlite")
        try Self.fill(path)
        do {
            let db = try DatabaseQueue(path: path)
            try db.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        }
        #expect(throws: StoreError.newerSchema(path: path, unknown: ["v99"])) { try PeggleStore(readingOnly: path) }
    }
}
