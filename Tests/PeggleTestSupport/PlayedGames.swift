import Foundation
import PeggleDifficulty
import PeggleGame

// Played games of known outcomes, for the statistics, the reports and the rater.

/// Kinds as stored data, for the suites of modules that take kinds as data and do not know the
/// agents (the ratings, the reports): PeggleAgents declares the real ones.
public enum TestKinds {
    public static let random = AgentKind(declaring: "random")
    public static let linear = AgentKind(declaring: "linear")
    /// The order `peggle report` passes (`AgentFactory.programKinds`).
    public static let reportOrder = KindOrder([random, .greedy, linear])
}

/// `a` and `b` agree to `tolerance`.
public func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-4) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// `episodes` games of one agent at one sigma on one level, the first `wins` of them won.
public func outcomes(level: String, hash: String? = nil, kind: AgentKind = .greedy, label: String? = nil, sigma: Double = 0,
              wins: Int, of episodes: Int, orangeTotal: Int = 10, truncated: Int = 0, firstSeed: UInt64 = 0) -> [PlayedGame] {
    (0..<episodes).map { k in
        let won = k < wins
        let playing = !won && k >= episodes - truncated
        return PlayedGame(levelHash: hash ?? "hash-" + level, levelName: level, agentKind: kind, agentLabel: label ?? kind.rawValue,
                          seed: firstSeed + UInt64(k), sigma: sigma, status: won ? .won : playing ? .playing : .lost,
                          score: 1000 * (k + 1), shots: won ? 5 : 10, orangeCleared: won ? orangeTotal : orangeTotal / 2,
                          orangeTotal: orangeTotal, ballsUsed: won ? 4 : 10, gameSeconds: 12.5)
    }
}

/// Skill games of a level whose win rate at sigma is the logistic 1 / (1 + (sigma / sigma50)^slope):
/// `perSigma` games at every `every`-th trial sigma, the rounded expected number of them won.
public func curve(_ level: String, sigma50: Double, slope: Double = 4, perSigma: Int = 10, every: Int = 2,
           label: String = "greedy") -> [PlayedGame] {
    stride(from: 0, to: SkillModel.trialSigmas.count, by: every).flatMap { i in
        let sigma = SkillModel.trialSigmas[i]
        let p = 1 / (1 + pow(sigma / sigma50, slope))
        return outcomes(level: level, label: label, sigma: sigma, wins: Int((p * Double(perSigma)).rounded()), of: perSigma)
    }
}

public func random(_ level: String, wins: Int, of episodes: Int = 20) -> [PlayedGame] {
    outcomes(level: level, kind: TestKinds.random, wins: wins, of: episodes)
}

/// Levels of known difficulty, hardest first as the rater must order them.
public let rankingFixture: [PlayedGame] =
    curve("Hopeless", sigma50: 0.0001) + random("Hopeless", wins: 0)
    + curve("Tight 0.005", sigma50: 0.005)
    + curve("Peg 0.02", sigma50: 0.02) + random("Peg 0.02", wins: 1)
    + curve("Casual 0.2", sigma50: 0.2)
    + random("Only random", wins: 15)
