import PeggleGame

/// How a reset picks the next procedural level (docs/environment.md, "Level sampler").
public enum LevelSamplerKind: String, Sendable, CaseIterable {
    /// Every level seed of the range equally likely (Procgen's draw).
    case uniform
    /// Levels weighted by their learnability p(1 - p), p the level's recent win rate in this
    /// environment (Kinetix's SFL, prioritised level replay), mixed with a uniform draw.
    case learnability
}

/// The learnability sampler's memory: per level index, the environment's recent wins and plays,
/// each decayed by `decay` whenever the level ends an episode, so about the last 1 / (1 - decay)
/// episodes on a level count. A value kept in each environment (so a vector's environments never
/// share state and the draws do not depend on the thread count; a snapshot copies it).
public struct LevelScores: Sendable, Equatable {
    /// Decayed wins and episodes per level index.
    public private(set) var wins: [Double]
    public private(set) var plays: [Double]

    /// The weight of each episode's outcome is multiplied by this at the level's next outcome.
    public static let decay = 0.9
    /// Share of draws made uniformly over the levels, so every level keeps being seen (a level
    /// once always won or always lost is looked at again).
    public static let uniformShare = 0.25
    /// Most levels the sampler keeps scores for (two doubles each).
    public static let maxLevels = 100_000

    public init(levels: Int) {
        wins = Array(repeating: 0, count: levels)
        plays = Array(repeating: 0, count: levels)
    }

    public var count: Int { wins.count }

    /// An episode on level `index` ended, won or not.
    public mutating func record(_ index: Int, won: Bool) {
        wins[index] = wins[index] * Self.decay + (won ? 1 : 0)
        plays[index] = plays[index] * Self.decay + 1
    }

    /// The level's estimated win rate: decayed wins plus one half over decayed plays plus one
    /// (one half for a level never played), always strictly between 0 and 1.
    public func winRate(_ index: Int) -> Double { (wins[index] + 0.5) / (plays[index] + 1) }

    /// The level's learnability p(1 - p): 0.25 at most, for a level won half the time.
    public func learnability(_ index: Int) -> Double {
        let p = winRate(index)
        return p * (1 - p)
    }

    /// A level index: with probability `uniformShare` uniform, otherwise in proportion to
    /// learnability.
    public func draw(_ rng: inout SeededGenerator) -> Int {
        let n = count
        if rng.nextUnit() < Self.uniformShare { return rng.nextInt(below: n) }
        var total = 0.0
        for k in 0..<n { total += learnability(k) }
        var left = rng.nextUnit() * total
        for k in 0..<n {
            left -= learnability(k)
            if left < 0 { return k }
        }
        return n - 1  // rounding left a sliver past the last weight
    }
}
