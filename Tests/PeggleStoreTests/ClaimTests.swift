import Foundation
import GRDB
import PeggleStore
import Testing

/// Claims: a level a running process has claimed is left to it; a claim of a process that has
/// ended is taken over; a run's claims go when it releases them (Claims.swift).
@Suite struct ClaimTests {
    @Test func aLiveClaimIsHeldAndADeadOneIsTakenOver() throws {
        let store = try PeggleStore()
        let a = try store.level(Fixture.level(0)), b = try store.level(Fixture.level(1))
        let first = try store.beginRun(command: "first", configuration: "{}", engineVersion: "0")
        let second = try store.beginRun(command: "second", configuration: "{}", engineVersion: "0")
        let me = ProcessIdentity.current
        #expect(me.isAlive && me.pid == getpid())
        #expect(try store.claim(levels: [a], runID: first).isEmpty)
        // Claiming again for the same run changes nothing.
        #expect(try store.claim(levels: [a], runID: first).isEmpty)
        let held = try store.claim(levels: [a, b], runID: second)
        #expect(held == [ClaimRecord(levelID: a, runID: first, process: me)])
        #expect(try store.claims().map { [$0.levelID, $0.runID] } == [[a, first], [b, second]])

        // The first run's process is taken for ended: its level goes to whoever asks next.
        #expect(try store.claim(levels: [a], runID: second, isAlive: { $0 != me }).isEmpty)
        #expect(try store.claims().map(\.runID) == [second, second])
        try store.releaseClaims(runID: second)
        #expect(try store.claims().isEmpty)
    }

    @Test func aProcessIsAliveOnlyWhileItRunsWithTheSameStart() {
        let me = ProcessIdentity.current
        // No process has an id above Linux's largest (2^22).
        #expect(!ProcessIdentity(host: me.host, pid: 1 << 30, start: me.start).isAlive)
        #expect(!ProcessIdentity(host: me.host, pid: 0, start: "").isAlive)
        #if os(Linux)
        // This process id with another start time is an earlier process that had the same id.
        #expect(!me.start.isEmpty)
        #expect(!ProcessIdentity(host: me.host, pid: me.pid, start: me.start + "0").isAlive)
        #endif
        // Another host's process cannot be looked at: it counts as alive.
        #expect(ProcessIdentity(host: me.host + "-elsewhere", pid: 1 << 30, start: "").isAlive)
    }

    @Test func aDatabaseFromBeforeClaimsIsReadAsItIsAndMigratedByTheNextRun() throws {
        let dir = try TempDir()
        let path = dir.path("old.sqlite")
        do {
            let db = try DatabaseQueue(path: path)
            try PeggleStore.migrator.migrate(db, upTo: "v1")
            try db.write { db in
                var level = Fixture.level(0)
                try level.insert(db)
            }
        }
        do {
            // `report` reads it without the claim table.
            let reader = try PeggleStore(readingOnly: path)
            #expect(try reader.levels().count == 1)
        }
        // A writing open (a rate) adds it.
        let store = try PeggleStore(path: path)
        #expect(try store.claims().isEmpty)
        let applied = try store.writer.read { db in try PeggleStore.migrator.appliedIdentifiers(db) }
        #expect(applied == ["v1", "v2", "v3"])
    }
}
