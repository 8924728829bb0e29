import GRDB
import PeggleStore
import Testing

@Suite struct SchemaTests {
    static let expectedColumns: [String: Set<String>] = [
        "level": ["id", "content_hash", "name", "json", "mode", "power", "peg_count", "blue", "orange", "green",
                  "purple", "zombie", "confusement", "block_count"],
        "agent": ["id", "kind", "parameters", "weights_hash", "label"],
        "run": ["id", "command", "configuration", "engine_version", "started_at", "finished_at", "episodes_added"],
        "episode": ["id", "run_id", "level_id", "agent_id", "seed", "sigma", "status", "won", "truncated", "score",
                    "shots", "orange_cleared", "orange_total", "balls_used", "game_seconds"],
        "shot": ["episode_id", "idx", "chosen_angle", "angle", "hits_blue", "hits_orange", "hits_green",
                 "hits_purple", "hits_zombie", "hits_confusement", "points", "free_balls", "caught",
                 "orange_cleared", "seconds"],
        "claim": ["level_id", "run_id", "host", "pid", "process_start"],
        "game_session": ["episode_id", "session"],
    ]

    @Test func migrationsFromEmptyCreateEveryTableAndColumn() throws {
        let db = try DatabaseQueue()
        try PeggleStore.migrator.migrate(db)
        let (columns, applied) = try db.read { db in
            var columns: [String: Set<String>] = [:]
            for table in Self.expectedColumns.keys where try db.tableExists(table) {
                columns[table] = Set(try db.columns(in: table).map(\.name))
            }
            return (columns, try PeggleStore.migrator.appliedIdentifiers(db))
        }
        #expect(columns == Self.expectedColumns)
        #expect(applied == ["v1", "v2", "v3"])
        #expect(PeggleStore.knownMigrations == ["v1", "v2", "v3"])
    }

    @Test func storeHasForeignKeysOnAndKeysWhereThePlanSaysSo() throws {
        let store = try PeggleStore()
        struct Facts {
            var foreignKeys: Bool?
            var shotKey: [String]
            var episodeKey, levelKey: Bool
            var shotParents: [String]
            var episodeParents: Set<String>
            var shotOnDelete: String?
        }
        let facts = try store.writer.read { db in
            Facts(foreignKeys: try Bool.fetchOne(db, sql: "PRAGMA foreign_keys"),
                  shotKey: try db.primaryKey("shot").columns,
                  episodeKey: try db.table("episode", hasUniqueKey: ["level_id", "agent_id", "seed", "sigma"]),
                  levelKey: try db.table("level", hasUniqueKey: ["content_hash"]),
                  shotParents: try db.foreignKeys(on: "shot").map(\.destinationTable),
                  episodeParents: Set(try db.foreignKeys(on: "episode").map(\.destinationTable)),
                  shotOnDelete: try String.fetchOne(db, sql: "SELECT on_delete FROM pragma_foreign_key_list('shot')"))
        }
        #expect(facts.foreignKeys == true)
        #expect(facts.shotKey == ["episode_id", "idx"])
        #expect(facts.episodeKey)
        #expect(facts.levelKey)
        #expect(facts.shotParents == ["episode"])
        #expect(facts.episodeParents == ["run", "level", "agent"])
        // Deleting an episode deletes its shots.
        #expect(facts.shotOnDelete == "CASCADE")
    }

    @Test func episodeStatusIsChecked() throws {
        // A `PlayedGame` cannot hold another status; the schema refuses one written by hand.
        let store = try PeggleStore()
        let run = try store.beginRun(command: "c", configuration: "{}", engineVersion: "1")
        let level = try store.level(Fixture.level(0)), agent = try store.agent(Fixture.agent(0))
        #expect(throws: DatabaseError.self) {
            try store.writer.write { db in
                try db.execute(sql: """
                    INSERT INTO episode (run_id, level_id, agent_id, seed, sigma, status, won, truncated, score, shots,
                                         orange_cleared, orange_total, balls_used, game_seconds)
                    VALUES (?, ?, ?, 1, 0, 'draw', 0, 0, 0, 1, 0, 3, 1, 1.5)
                    """, arguments: [run, level, agent])
            }
        }
        #expect(try store.counts().episodes == 0)
        // The same row with a known status is accepted, so the refusal was the status's.
        _ = try store.insert([Fixture.episode(run: run, level: level, agent: agent, seed: 1, sigma: 0)])
        #expect(try store.counts().episodes == 1)
    }
}
