import PeggleGame
import PeggleLevel
import PeggleUtilities

/// One orange peg's rates over the skill games near sigma50 (docs/reports.md, "Why a level is
/// hard").
public struct PegRate: Sendable, Equatable {
    /// The peg's `id` in the level file.
    public var pegID: Int
    /// Index in `level.pegs`.
    public var index: Int
    /// Centre as designed, board units.
    public var x: Double, y: Double
    /// Counted games in which the peg was hit (lit, and so removed at the end of its shot).
    public var hits: Int
    /// Counted games not won that ended with the peg still on the board.
    public var lostWith: Int
    /// hits / games; nil when no game was counted.
    public var hitRate: Double?
    /// lostWith / games not won; nil when no counted game was lost.
    public var lostWithRate: Double?

    public init(pegID: Int, index: Int, x: Double, y: Double, hits: Int, lostWith: Int, hitRate: Double?,
                lostWithRate: Double?) {
        self.pegID = pegID
        self.index = index
        self.x = x
        self.y = y
        self.hits = hits
        self.lostWith = lostWith
        self.hitRate = hitRate
        self.lostWithRate = lostWithRate
    }
}

/// Every orange peg of one level with its rates, and the games they count.
public struct LevelPegRates: Sendable, Equatable {
    public var levelHash: String
    public var levelName: String
    /// The skill agent whose games are counted; nil when the level has no skill games.
    public var agentLabel: String?
    /// The aim noises counted, radians (`PegRates.window`); nil when sigma50 is unknown.
    public var window: ClosedRange<Double>?
    /// Games counted, and how many of them were not won.
    public var games: Int, gamesLost: Int
    /// Games in the window left out because they did not replay to their stored outcome.
    public var unreplayable: Int
    /// The first such game's seed and sigma, and why, for the warning.
    public var firstUnreplayable: String?
    /// One per orange peg, in level order.
    public var pegs: [PegRate]

    public init(levelHash: String, levelName: String, agentLabel: String?, window: ClosedRange<Double>?, games: Int,
                gamesLost: Int, unreplayable: Int, firstUnreplayable: String?, pegs: [PegRate]) {
        self.levelHash = levelHash
        self.levelName = levelName
        self.agentLabel = agentLabel
        self.window = window
        self.games = games
        self.gamesLost = gamesLost
        self.unreplayable = unreplayable
        self.firstUnreplayable = firstUnreplayable
        self.pegs = pegs
    }
}

/// Which orange pegs lose a level's games: each stored skill game near sigma50 is replayed from
/// its seed and fired angles (the engine is deterministic, so nothing more is stored per shot),
/// and each orange peg counted as hit or left at the end.
public enum PegRates {
    /// Games count when their aim noise is within this factor of sigma50, either side.
    public static let nearFactor = 2.0

    /// The aim noises whose games count: sigma50 / 2 to sigma50 x 2, where sigma50 is the value
    /// for a value and the bound for a bound (what the report prints); nil when it is unknown.
    public static func window(_ sigma50: Sigma50) -> ClosedRange<Double>? {
        let centre: Double
        switch sigma50 {
        case let .value(v, _, _): centre = v
        case let .below(b, _), let .above(b, _): centre = b
        case .unknown: return nil
        }
        return (centre / nearFactor)...(centre * nearFactor)
    }

    /// The rates of `rating`'s level from `games` (the level's games with their shots; others,
    /// other agents' and those outside the window are ignored), replayed on `prepared` on up to
    /// `threads` threads. The result depends only on the set of games.
    public static func rates(_ rating: LevelRating, prepared: PreparedLevel, games: [PlayedGame], threads: Int = 1) -> LevelPegRates {
        rates(prepared: prepared, levelName: rating.levelName, agentLabel: rating.skill?.agentLabel,
              window: window(rating.sigma50), games: games, threads: threads)
    }

    /// The rates over the games of `agentLabel` on `prepared` whose sigma lies in `window`.
    public static func rates(prepared: PreparedLevel, levelName: String, agentLabel: String?, window: ClosedRange<Double>?,
                             games: [PlayedGame], threads: Int = 1) -> LevelPegRates {
        let level = prepared.level
        let oranges = level.pegs.indices.filter { level.pegs[$0].kind == .orange }
        var counted: [PlayedGame] = []
        if let agentLabel, let window {
            counted = games.filter {
                $0.levelHash == prepared.hash && $0.agentLabel == agentLabel && window.contains($0.sigma)
            }
            // A fixed order, so the first unreplayable game named is the same whatever the input order.
            counted.sort { $0.sigma != $1.sigma ? $0.sigma < $1.sigma : $0.seed < $1.seed }
        }
        let replayed = counted
        let ends = Parallel.map(counted.count, threads: max(1, threads)) { k -> Result<[Bool], ReplayError> in
            do throws(ReplayError) {
                let end = try prepared.replay(replayed[k])
                return .success(oranges.map { end.pegs[$0].isRemoved })
            } catch {
                return .failure(error)
            }
        }
        var hits = [Int](repeating: 0, count: oranges.count), left = hits
        var games = 0, lost = 0, unreplayable = 0
        var first: String?
        for (game, end) in zip(counted, ends) {
            switch end {
            case let .failure(error):
                unreplayable += 1
                if first == nil {
                    first = "seed \(game.seed) at sigma \(DecimalText.number(game.sigma, decimals: 6)): \(error)"
                }
            case let .success(removed):
                games += 1
                if !game.won { lost += 1 }
                for j in removed.indices {
                    if removed[j] { hits[j] += 1 } else if !game.won { left[j] += 1 }
                }
            }
        }
        let pegs = oranges.enumerated().map { j, i in
            let peg = level.pegs[i]
            return PegRate(pegID: peg.id, index: i, x: peg.center.x, y: peg.center.y, hits: hits[j], lostWith: left[j],
                           hitRate: games > 0 ? Double(hits[j]) / Double(games) : nil,
                           lostWithRate: lost > 0 ? Double(left[j]) / Double(lost) : nil)
        }
        return LevelPegRates(levelHash: prepared.hash, levelName: levelName, agentLabel: agentLabel, window: window,
                             games: games, gamesLost: lost,
                             unreplayable: unreplayable, firstUnreplayable: first, pegs: pegs)
    }
}
