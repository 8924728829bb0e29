/// The kinds of game mode, without their numbers. Raw values are the level file's `mode.type`
/// (docs/levels.md); every reader of a mode (the level format, `peggle level new`, the studio,
/// the serve protocol) parses the kind here and takes its defaults and ranges from `GameMode`.
public enum GameModeKind: String, CaseIterable, Sendable, Codable {
    case classic, beatTheScore = "beat_the_score", dodge

    /// This kind's mode with every field at its default (classic 10 balls; beat the score 50,000
    /// points in 120 s; dodge 5 shots).
    public var defaultMode: GameMode {
        switch self {
        case .classic: .classic(balls: GameMode.defaultBalls)
        case .beatTheScore: .beatTheScore(targetScore: GameMode.defaultTargetScore, timeLimit: GameMode.defaultTimeLimit)
        case .dodge: .dodge(shots: GameMode.defaultShots)
        }
    }

    /// The field names of this kind's mode object besides "type", in the level format's order
    /// ("balls"; "target_score", "time_limit"; "shots").
    public var fields: [String] {
        switch self {
        case .classic: ["balls"]
        case .beatTheScore: ["target_score", "time_limit"]
        case .dodge: ["shots"]
        }
    }
}

extension GameMode {
    /// The mode's kind (its fields dropped).
    public var kind: GameModeKind {
        switch self {
        case .classic: .classic
        case .beatTheScore: .beatTheScore
        case .dodge: .dodge
        }
    }

    // Each field's one default and one range (the level format's, docs/levels.md).

    /// Classic: balls to start with.
    public static let defaultBalls = 10
    /// Beat the score: points to reach.
    public static let defaultTargetScore = 50_000
    /// Beat the score: game seconds allowed.
    public static let defaultTimeLimit: Double = 120
    /// Dodge: clean shots needed.
    public static let defaultShots = 5

    public static let ballsRange: ClosedRange<Int> = 1...99
    public static let shotsRange: ClosedRange<Int> = 1...99
    public static let targetScoreRange: ClosedRange<Int> = 1...100_000_000
    /// Seconds.
    public static let timeLimitRange: ClosedRange<Double> = 1...3600
}
