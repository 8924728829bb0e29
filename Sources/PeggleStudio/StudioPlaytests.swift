import Foundation
import PeggleGame
import PeggleLevel
import PeggleRating
import PeggleStore

/// `POST /api/games`: a game a person finished in the Play tab, to store as a `human` game.
/// The same fields as a play request (the server replays the shots, so what is stored is what the
/// engine played, not what the page says), plus the player's name.
public struct FinishedGameRequest: Decodable, Sendable {
    public var level: String
    /// The episode seed the game was played with (`/api/play`'s `seed`).
    public var seed: UInt64
    public var angles: [Double]
    /// The name the player typed: with a shared studio's browser session, all that is stored about a person.
    public var player: String

    public init(level: String, seed: UInt64, angles: [Double], player: String) {
        self.level = level
        self.seed = seed
        self.angles = angles
        self.player = player
    }
}

extension StudioAPI {
    /// The longest player name, in characters as every name counts them (`Level.characters(in:)`:
    /// Unicode scalars, so also at most `Level.maxBytes(40)` = 160 bytes).
    public static let maxPlayerName = 40

    /// What `/api/games` did: the game as stored, or found stored already.
    public struct Recorded: Sendable, Encodable, Equatable {
        /// False when this very game (same level, player, seed and shots) was stored before.
        public var stored: Bool
        public var levelHash: String
        /// The player's agent label, `human(name=...)`.
        public var agent: String
        public var seed: UInt64
        public var shots: Int
        public var status: String
        public var score: Int
    }

    /// The play's game with the episode seed `seed`: the game's own random stream is derived from
    /// it as for every agent's game (`EpisodeSeeds`), so a stored game replays with
    /// `PreparedLevel.replay` like any other.
    static func newGame(_ level: Level, rules: Rules, seed: UInt64) throws(StudioError) -> GameState {
        do { return try GameState(level: level, rules: rules, seed: EpisodeSeeds(episode: seed).game) } catch {
            throw .refused("level: \(error)")
        }
    }

    /// The player's name, trimmed: 1 to `maxPlayerName` characters, no control characters.
    static func playerName(_ text: String) throws(StudioError) -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .badRequest("bad request: player: the name is empty; type a name to record games") }
        let length = Level.characters(in: name)
        guard length <= maxPlayerName else {
            throw .badRequest("bad request: player: \(length) characters (Unicode code points); at most \(maxPlayerName)")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .badRequest("bad request: player: the name holds a control character")
        }
        return name
    }

    /// The store's agent row of a player: kind `human`, parameters `{"name":NAME}`, label `human(name=NAME)`.
    public static func playerAgent(_ name: String) -> AgentRecord {
        let data = (try? JSONSerialization.data(withJSONObject: ["name": name], options: [.sortedKeys, .withoutEscapingSlashes]))
        return AgentRecord(kind: .human, parameters: String(decoding: data ?? Data("{}".utf8), as: UTF8.self),
                           label: "\(AgentKind.human.rawValue)(name=\(name))")
    }

    /// The finished game as a played game of kind `human`: replayed from the seed and angles, with
    /// every shot (the chosen angle is the fired one: a person's aim has no added noise).
    public static func playedGame(_ prepared: PreparedLevel, seed: UInt64, angles: [Double], player: String) throws(StudioError) -> PlayedGame {
        var game = prepared.newGame(seed: EpisodeSeeds(episode: seed).game)
        var log: [PlayedShot] = []
        for (k, angle) in angles.enumerated() {
            do {
                let r = try game.shoot(angle: angle)
                log.append(PlayedShot(index: k, chosen: angle, angle: angle, hits: r.hits, points: r.points, freeBalls: r.freeBalls,
                                      caught: r.caught, orangeCleared: r.orangeCleared, seconds: r.duration))
            } catch {
                throw .refused("angles[\(k)]: \(error)")
            }
        }
        guard game.isOver else {
            throw .refused("the game is not finished after \(angles.count) shots: only finished games are recorded")
        }
        // Balls used as `Episode.play` counts them: classic, net of free balls; other modes, shots.
        var used = game.shotsTaken
        if case let .classic(c) = prepared.level.mode { used = c.balls - game.ballsLeft }
        let agent = playerAgent(player)
        return PlayedGame(levelHash: prepared.hash, levelName: prepared.level.name, agentKind: .human, agentLabel: agent.label,
                          seed: seed, sigma: 0, status: game.status, score: game.score, shots: game.shotsTaken,
                          orangeCleared: game.orangeCleared, orangeTotal: game.orangeTotal, ballsUsed: used,
                          gameSeconds: game.elapsed, shotLog: log)
    }

    /// Stores a finished game in the studio's database (`peggle studio --db`). `session` is the
    /// browser session of a shared studio (`--share`), stored beside the game: a person is a
    /// name and a session.
    public func record(_ request: FinishedGameRequest, session: String? = nil, at date: Date = Date()) throws(StudioError) -> Recorded {
        guard let store else {
            throw .conflict("games are not recorded: the studio was started without --db")
        }
        let player = try Self.playerName(request.player)
        guard request.angles.count <= Self.maxShots else {
            throw .badRequest("bad request: angles: \(request.angles.count) shots; at most \(Self.maxShots)")
        }
        let level = try Self.level(request.level)
        let prepared: PreparedLevel
        do { prepared = try PreparedLevel(level, rules: rules) } catch { throw .refused("the level cannot be played yet: \(error)") }
        let game = try Self.playedGame(prepared, seed: request.seed, angles: request.angles, player: player)
        let configuration: [String: Any] = ["level": prepared.hash, "player": player, "seed": request.seed]
        let data = (try? JSONSerialization.data(withJSONObject: configuration, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        let outcome: RecordOutcome
        do {
            outcome = try store.record(game, level: LevelRecord(level: level, hash: prepared.hash), agent: Self.playerAgent(player),
                                       command: Self.playCommand, configuration: String(decoding: data, as: UTF8.self),
                                       engineVersion: PeggleGym.version, session: session, at: date)
        } catch {
            throw StudioError(500, "the game could not be stored: \(error)")
        }
        // Into the database file now, not only its -wal: a copy of the .sqlite file, or a studio
        // killed before it closes the database, still holds the game. A reader busy at this moment
        // leaves part for the next checkpoint (or the close); nothing is lost either way.
        if outcome == .added { _ = try? store.checkpoint() }
        if outcome == .otherGameStored {
            throw .conflict("\(player) has another game with seed \(request.seed) stored for this level: "
                + "a new game needs a new seed (New game draws one)")
        }
        return Recorded(stored: outcome == .added, levelHash: prepared.hash, agent: game.agentLabel, seed: game.seed,
                        shots: game.shots, status: game.status.rawValue, score: game.score)
    }

    /// The `run.command` of a stored human game.
    public static let playCommand = "peggle studio (play)"
}
