import PeggleGame

/// Reward functions (docs/environment.md). Every one is computed from the shot and the states
/// before and after it; none looks at anything an agent could not see.
public enum RewardKind: String, Sendable, CaseIterable {
    /// Progress toward the mode's goal: classic, orange cleared this shot / orange in the level;
    /// beat the score, points this shot / target; dodge, 1 / shots needed for a clean shot. Plus
    /// +1 on winning and -1 on losing. A won episode sums to 2 in classic and dodge, and to
    /// 1 + score / target in beat the score (2 or more: the winning shot may pass the target); a
    /// lost one to less than 0, an unfinished one to less than 1 (sums up to float rounding).
    case progress
    /// Points scored this shot / 10,000.
    case score
    /// +1 on winning, -1 on losing, 0 otherwise.
    case win

    /// The reward of `shot`, which left the game in `after`; `cleanShotsBefore` is the dodge
    /// count before it (the only thing needed from before the shot, so the game is not copied).
    func reward(cleanShotsBefore: Int, after: GameState, shot: ShotResult) -> Float {
        let terminal: Double = after.status == .won ? 1 : after.status == .lost ? -1 : 0
        switch self {
        case .progress:
            var r = terminal
            switch after.level.mode {
            case .classic:
                if after.orangeTotal > 0 { r += Double(shot.orangeCleared) / Double(after.orangeTotal) }
            case let .beatTheScore(b):
                r += Double(shot.points) / Double(b.targetScore)
            case let .dodge(d):
                if after.cleanShots > cleanShotsBefore { r += 1 / Double(d.shots) }
            }
            return Float(r)
        case .score:
            return Float(Double(shot.points) / 10_000)
        case .win:
            return Float(terminal)
        }
    }
}
