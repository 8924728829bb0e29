import Foundation
import PeggleDifficulty
import PeggleGame
import PeggleUtilities

/// A level's games played by people (agent kind `human`: games finished in the studio's Play
/// tab), every player together: how many, and the win rate with its 95% Wilson interval.
public struct HumanGames: Sendable, Equatable {
    public var games: Int
    public var wins: Int
    /// Distinct players: `people`'s count for the level where given (`PeggleStore.humanPlayers`:
    /// a name and a browser session), else the distinct names (agent labels).
    public var players: Int
    public var winRate: Double
    public var winInterval: ClosedRange<Double>

    /// The human games of `rating`; nil when people played none. `people`: players by level hash.
    public init?(_ rating: LevelRating, people: [String: Int] = [:]) {
        let rows = rating.agents.filter { $0.agentKind == .human }
        guard !rows.isEmpty else { return nil }
        games = rows.reduce(0) { $0 + $1.episodes }
        wins = rows.reduce(0) { $0 + $1.wins }
        players = people[rating.levelHash] ?? Set(rows.map(\.agentLabel)).count
        winRate = Double(wins) / Double(games)
        winInterval = Stats.wilson(successes: wins, trials: games)
    }
}

/// Whether people find hard the levels the rater calls hard: over the levels with at least
/// `minGames` human games and a skill curve, Spearman's rank correlation between the human win
/// rate and sigma50 (the posterior median, so a level known only by a bound counts too). Positive
/// when they agree: a larger sigma50 is an easier level. docs/reports.md, "Human playtests".
public struct HumanComparison: Sendable, Equatable {
    public var minGames: Int
    /// Levels compared.
    public var levels: Int
    /// nil with fewer than 3 levels, or when either side is constant (no ranking to compare).
    public var rho: Double?
    /// 95% interval: Fisher's z with Bonett and Wright's (2000) variance (1 + rho²/2) / (n − 3);
    /// nil with fewer than 4 levels.
    public var interval: ClosedRange<Double>?

    public init(_ ratings: [LevelRating], minGames: Int) {
        var pairs: [(win: Double, sigma50: Double)] = []
        for r in ratings {
            guard let humans = HumanGames(r), humans.games >= minGames, let d = r.difficulty else { continue }
            pairs.append((humans.winRate, pow(10, -d)))
        }
        self.init(winRates: pairs.map(\.win), sigma50s: pairs.map(\.sigma50), minGames: minGames)
    }

    /// The comparison of paired values (one pair per level).
    public init(winRates: [Double], sigma50s: [Double], minGames: Int) {
        precondition(winRates.count == sigma50s.count, "one win rate per sigma50")
        self.minGames = minGames
        levels = winRates.count
        rho = levels >= 3 ? Stats.spearman(winRates, sigma50s) : nil
        if let rho, levels >= 4 {
            let z = atanh(rho), se = ((1 + rho * rho / 2) / Double(levels - 3)).squareRoot()
            interval = tanh(z - Stats.z95 * se)...tanh(z + Stats.z95 * se)
        }
    }

    /// One line: "rho 0.6 (95% interval -0.1 to 0.9) over 6 levels with at least 5 human games".
    public var summary: String {
        let over = "over \(levels) level\(levels == 1 ? "" : "s") with at least \(minGames) human game\(minGames == 1 ? "" : "s")"
        guard let rho else { return "no rank correlation " + over + " (it needs 3 levels, each side varying)" }
        func f(_ v: Double) -> String { DecimalText.fixed(v, decimals: 2) }
        return "Spearman rho \(f(rho))" + (interval.map { " (95% interval \(f($0.lowerBound)) to \(f($0.upperBound)))" } ?? "") + " " + over
    }
}
