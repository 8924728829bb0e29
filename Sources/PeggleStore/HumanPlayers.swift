import GRDB
import PeggleGame

extension PeggleStore {
    /// How many people played each level, by the level's content hash: a person is a name (the
    /// human agent's label) and the browser session their games were recorded with, so two
    /// playtesters of a shared studio who typed the same name count as two, and one person's
    /// games from one browser as one. Games stored without a session (the designer's own studio,
    /// or a database from before `v3`) count by name alone. Levels nobody played are absent.
    public func humanPlayers() throws(StoreError) -> [String: Int] {
        // char(31) cannot occur in a label (agent labels are single-line text), so name and session
        // joined by it are a pair; COALESCE gives the session-less games one session, "".
        let withSessions = """
            SELECT l.content_hash, COUNT(DISTINCT a.label || char(31) || COALESCE(s.session, ''))
            FROM episode e JOIN level l ON l.id = e.level_id JOIN agent a ON a.id = e.agent_id
            LEFT JOIN game_session s ON s.episode_id = e.id
            WHERE a.kind = ? GROUP BY l.content_hash
            """
        let withoutSessions = """
            SELECT l.content_hash, COUNT(DISTINCT a.label)
            FROM episode e JOIN level l ON l.id = e.level_id JOIN agent a ON a.id = e.agent_id
            WHERE a.kind = ? GROUP BY l.content_hash
            """
        return try attempt(path) {
            try writer.read { db in
                // A database from before `v3`, read as it is (`init(readingOnly:)`), has no sessions.
                let sql = try db.tableExists(GameSessionRecord.databaseTableName) ? withSessions : withoutSessions
                var people: [String: Int] = [:]
                for row in try Row.fetchAll(db, sql: sql, arguments: [AgentKind.human.rawValue]) {
                    people[row[0]] = row[1]
                }
                return people
            }
        }
    }
}
