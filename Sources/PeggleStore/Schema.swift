import GRDB

extension PeggleStore {
    /// The schema's history. A shipped migration never changes (databases in the field already ran
    /// it); a new schema is a new migration appended here. `eraseDatabaseOnSchemaChange` stays off:
    /// it would throw ratings away.
    public static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "level") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("content_hash", .text).notNull().unique()
                t.column("name", .text).notNull()
                t.column("json", .text).notNull()
                t.column("mode", .text).notNull()
                t.column("power", .text).notNull()
                for name in ["peg_count", "blue", "orange", "green", "purple", "zombie", "confusement", "block_count"] {
                    t.column(name, .integer).notNull()
                }
            }
            try db.create(table: "agent") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("kind", .text).notNull()
                t.column("parameters", .text).notNull()
                t.column("weights_hash", .text)
                t.column("label", .text).notNull()
            }
            // UNIQUE(kind, parameters, weights_hash) would let agents without weights repeat,
            // because SQLite counts NULLs as distinct: the key reads a missing hash as "".
            try db.execute(sql: "CREATE UNIQUE INDEX agent_identity ON agent(kind, parameters, ifnull(weights_hash, ''))")
            try db.create(table: "run") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("command", .text).notNull()
                t.column("configuration", .text).notNull()
                t.column("engine_version", .text).notNull()
                t.column("started_at", .text).notNull()
                t.column("finished_at", .text)
                t.column("episodes_added", .integer).notNull().defaults(to: 0)
            }
            try db.create(table: "episode") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("run_id", .integer).notNull().references("run")
                t.column("level_id", .integer).notNull().references("level")
                t.column("agent_id", .integer).notNull().references("agent")
                t.column("seed", .integer).notNull()
                t.column("sigma", .double).notNull()
                t.column("status", .text).notNull().check(sql: "status IN ('won', 'lost', 'playing')")
                t.column("won", .boolean).notNull()
                t.column("truncated", .boolean).notNull()
                for name in ["score", "shots", "orange_cleared", "orange_total", "balls_used"] {
                    t.column(name, .integer).notNull()
                }
                t.column("game_seconds", .double).notNull()
                // Its index also serves every lookup by (level_id, agent_id), a prefix of it.
                t.uniqueKey(["level_id", "agent_id", "seed", "sigma"])
            }
            try db.create(index: "episode_agent", on: "episode", columns: ["agent_id"])
            try db.create(index: "episode_run", on: "episode", columns: ["run_id"])
            try db.create(table: "shot") { t in
                t.column("episode_id", .integer).notNull().references("episode", onDelete: .cascade)
                t.column("idx", .integer).notNull()
                t.column("chosen_angle", .double).notNull()
                t.column("angle", .double).notNull()
                for name in ["hits_blue", "hits_orange", "hits_green", "hits_purple", "hits_zombie", "hits_confusement",
                             "points", "free_balls", "caught", "orange_cleared"] {
                    t.column(name, .integer).notNull()
                }
                t.column("seconds", .double).notNull()
                t.primaryKey(["episode_id", "idx"])
            }
        }
        // Levels a run is rating now, so that a second run on the same database leaves them to it
        // instead of playing the same games (Claims.swift). Rows live only as long as their run.
        migrator.registerMigration("v2") { db in
            try db.create(table: "claim") { t in
                t.primaryKey("level_id", .integer).references("level")
                t.column("run_id", .integer).notNull().references("run")
                t.column("host", .text).notNull()
                t.column("pid", .integer).notNull()
                t.column("process_start", .text).notNull()
            }
        }
        // The browser session a person's studio game was played in (`peggle studio --share`): a
        // person is a name and a session, so two playtesters who type the same name stay two.
        // Only games recorded with a session have a row; the name stays in the game's agent.
        migrator.registerMigration("v3") { db in
            try db.create(table: "game_session") { t in
                t.primaryKey("episode_id", .integer).references("episode", onDelete: .cascade)
                t.column("session", .text).notNull()
            }
        }
        return migrator
    }()

    /// The migrations whose tables a reader needs (`init(readingOnly:)`): `v2` adds only the
    /// claims of running rates, so a database from before it is read as it is.
    static let readerMigrations = ["v1"]

    /// Identifiers of the migrations this build knows, oldest first.
    public static var knownMigrations: [String] { migrator.migrations }
}
