import PeggleGame
import PeggleLevelSearch
import PeggleLevel

// The JSON bodies the page sends, decoded straight into these types. A level travels as its
// canonical file text (`LevelCodec`), so the level format has one reader and one writer.

/// `POST /api/edit`: one designer operation on the level the page holds.
public struct EditRequest: Decodable, Sendable {
    public var level: String
    public var op: EditOperation
}

/// One operation of the designer, as `peggle level edit` offers them, plus the level's settings.
public struct EditOperation: Decodable, Sendable {
    public enum Kind: String, Decodable, Sendable {
        case addPeg = "add_peg", addBlock = "add_block", move, remove, resize, rotate
        case setKind = "set_kind", setSpringiness = "set_springiness", settings
    }

    public var type: Kind
    /// The object concerned (all but add and settings).
    public var id: Int?
    public var x: Double?, y: Double?
    /// A peg's kind (add_peg, set_kind).
    public var peg: PegKind?
    /// A block's outline (add_block).
    public var shape: BlockShape?
    public var radius: Double?, width: Double?, height: Double?, rotation: Double?
    public var springiness: Double?
    // settings
    public var name: String?, author: String?, description: String?
    /// A `GameModeKind` raw value. Text, not the enum, so an unknown name gets the studio's own
    /// message (`StudioAPI.mode`).
    public var mode: String?
    /// Mode fields by their level-format names (`ModeField.all`: `{"shots": 7}`), of `mode` or,
    /// without it, of the level's mode. Numbers, checked against the field by `StudioAPI.mode`.
    public var fields: [String: Double]?
    public var power: Power?
    public var purpleRoams: Bool?
}

/// `POST /api/play`: the game on `level` with `seed`, after the shots `angles` (the last one is
/// recorded and returned). Stateless: the server replays the earlier shots, which the engine's
/// determinism makes exact. `seed` is an episode seed, as a rating's games have: the game's own
/// random stream is derived from it (`EpisodeSeeds`), so a finished game stores and replays as
/// an agent's does.
public struct PlayRequest: Decodable, Sendable {
    public var level: String
    public var seed: UInt64?
    public var angles: [Double]
}

/// `POST /api/levels`: save. See `LevelLibrary.save`.
public struct SaveRequest: Decodable, Sendable {
    public var level: String
    public var file: String?
    public var copy: Bool?
}

/// `POST /api/rate`: rate the level (the adaptive rater) with at most `budget` greedy games.
public struct RateRequest: Decodable, Sendable, StudioNumbers.Ranges {
    public var level: String
    public var budget: Int?
    public var seed: UInt64?

    static var wholeRanges: [String: ClosedRange<Int>] { ["budget": StudioRating.budgets] }
}

/// `POST /api/levels/FILE/tune`: `peggle level tune FILE --tier TIER` on the file's level
/// (`StudioTune`), each rating on at most `budget` greedy games.
public struct TuneRequest: Decodable, Sendable, StudioNumbers.Ranges {
    /// As `--tier` names it: very-hard, hard, medium or easy. Text, not the enum, so an unknown
    /// name gets the studio's own message.
    public var tier: String
    public var maxEdits: Int?
    public var maxRatings: Int?
    public var budget: Int?
    public var seed: UInt64?

    static var wholeRanges: [String: ClosedRange<Int>] {
        ["max_edits": LevelTune.limits, "max_ratings": LevelTune.limits, "budget": StudioRating.budgets]
    }
}
