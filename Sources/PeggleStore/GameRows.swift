import GRDB
import PeggleGame

// How a `PlayedGame` (PeggleGame's one row type for a game) lies in the `episode` and `shot`
// tables. The columns are declared once, here, as enums; the insert statements and the reads are
// built from them, so no column name is written twice.

/// The columns of `episode` a game fills (besides `id`, `run_id`, `level_id`, `agent_id`), in
/// the order the insert statement binds them.
enum EpisodeColumn: String, CaseIterable, ColumnExpression {
    case seed, sigma, status, won, truncated, score, shots
    case orangeCleared = "orange_cleared"
    case orangeTotal = "orange_total"
    case ballsUsed = "balls_used"
    case gameSeconds = "game_seconds"

    var name: String { rawValue }

    /// The value of this column for `game`. SQLite has no unsigned integers: the seed is stored
    /// as its Int64 bit pattern (GRDB's UInt64 conversion traps above Int64.max).
    func value(_ game: PlayedGame) -> any DatabaseValueConvertible {
        switch self {
        case .seed: Int64(bitPattern: game.seed)
        case .sigma: game.sigma
        case .status: game.status.rawValue
        case .won: game.won
        case .truncated: game.truncated
        case .score: game.score
        case .shots: game.shots
        case .orangeCleared: game.orangeCleared
        case .orangeTotal: game.orangeTotal
        case .ballsUsed: game.ballsUsed
        case .gameSeconds: game.gameSeconds
        }
    }
}

/// The columns of `shot` besides `episode_id`, in the order the insert statement binds them.
enum ShotColumn: String, CaseIterable, ColumnExpression {
    case index = "idx"
    case chosenAngle = "chosen_angle"
    case angle
    case hitsBlue = "hits_blue"
    case hitsOrange = "hits_orange"
    case hitsGreen = "hits_green"
    case hitsPurple = "hits_purple"
    case hitsZombie = "hits_zombie"
    case hitsConfusement = "hits_confusement"
    case points
    case freeBalls = "free_balls"
    case caught
    case orangeCleared = "orange_cleared"
    case seconds

    var name: String { rawValue }

    func value(_ shot: PlayedShot) -> any DatabaseValueConvertible {
        switch self {
        case .index: shot.index
        case .chosenAngle: shot.chosen
        case .angle: shot.angle
        case .hitsBlue: shot.hits.blue
        case .hitsOrange: shot.hits.orange
        case .hitsGreen: shot.hits.green
        case .hitsPurple: shot.hits.purple
        case .hitsZombie: shot.hits.zombie
        case .hitsConfusement: shot.hits.confusement
        case .points: shot.points
        case .freeBalls: shot.freeBalls
        case .caught: shot.caught
        case .orangeCleared: shot.orangeCleared
        case .seconds: shot.seconds
        }
    }
}

extension PlayedGame {
    /// A game from a row holding every `EpisodeColumn` plus `level_hash`, `level_name`,
    /// `agent_kind` and `agent_label` (the joined identity), without its shots.
    init(row: Row) throws {
        let statusText: String = row[EpisodeColumn.status]
        guard let status = GameStatus(rawValue: statusText) else {
            throw StoreError.sqlite(path: "", message: "episode with unknown status '\(statusText)'")
        }
        let kindText: String = row["agent_kind"]
        guard let kind = AgentKind(rawValue: kindText) else {
            throw StoreError.sqlite(path: "", message: "agent with malformed kind '\(kindText)' (a kind is \(AgentKind.wellFormed))")
        }
        self.init(levelHash: row["level_hash"], levelName: row["level_name"], agentKind: kind,
                  agentLabel: row["agent_label"], seed: UInt64(bitPattern: row[EpisodeColumn.seed]),
                  sigma: row[EpisodeColumn.sigma], status: status, score: row[EpisodeColumn.score],
                  shots: row[EpisodeColumn.shots], orangeCleared: row[EpisodeColumn.orangeCleared],
                  orangeTotal: row[EpisodeColumn.orangeTotal], ballsUsed: row[EpisodeColumn.ballsUsed],
                  gameSeconds: row[EpisodeColumn.gameSeconds])
    }

    /// The select list that `init(row:)` reads, over `episode e JOIN level l JOIN agent a`.
    static let selection = EpisodeColumn.allCases.map { "e.\($0.rawValue)" }.joined(separator: ", ")
        + ", l.content_hash AS level_hash, l.name AS level_name, a.kind AS agent_kind, a.label AS agent_label"
}

extension PlayedShot {
    init(row: Row) {
        var hits = KindCounts()
        hits.blue = row[ShotColumn.hitsBlue]
        hits.orange = row[ShotColumn.hitsOrange]
        hits.green = row[ShotColumn.hitsGreen]
        hits.purple = row[ShotColumn.hitsPurple]
        hits.zombie = row[ShotColumn.hitsZombie]
        hits.confusement = row[ShotColumn.hitsConfusement]
        self.init(index: row[ShotColumn.index], chosen: row[ShotColumn.chosenAngle], angle: row[ShotColumn.angle],
                  hits: hits, points: row[ShotColumn.points], freeBalls: row[ShotColumn.freeBalls],
                  caught: row[ShotColumn.caught], orangeCleared: row[ShotColumn.orangeCleared],
                  seconds: row[ShotColumn.seconds])
    }
}

/// `INSERT INTO table (fixed..., columns...) VALUES (?, ...)`.
func insertSQL(table: String, fixed: [String], columns: [String]) -> String {
    let all = fixed + columns
    return "INSERT INTO \(table) (\(all.joined(separator: ", "))) VALUES (\(all.map { _ in "?" }.joined(separator: ", ")))"
}
