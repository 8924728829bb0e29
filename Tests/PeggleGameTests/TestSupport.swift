import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import Testing

// Shared builders and helpers for the game tests. Scenarios are built by hand here, and aims are
// found by scanning angles for a shot with a wanted property, never guessed.

/// A fresh game; fails the test if the level is refused.
func game(_ level: Level, seed: UInt64 = 1, rules: Rules = Rules(),
          sourceLocation: SourceLocation = #_sourceLocation) throws -> GameState {
    let issues = level.validate(rules: rules)
    try #require(issues.isEmpty, "scenario level is invalid: \(issues)", sourceLocation: sourceLocation)
    return try GameState(level: level, rules: rules, seed: seed)
}

/// One candidate of an angle scan: the aim, the shot's result and the state after it.
struct Trial {
    var angle: Double
    var result: ShotResult
    var after: GameState
}

/// Evenly spaced aims over `range` (both ends included).
func aims(_ range: ClosedRange<Double>, count: Int) -> [Double] {
    (0..<count).map { range.lowerBound + (range.upperBound - range.lowerBound) * Double($0) / Double(count - 1) }
}

/// Shoots every candidate aim on a copy of `state` (trajectory recorded) and returns the first
/// trial for which `accept` holds, or nil.
func scan(_ state: GameState, _ angles: [Double], where accept: (Trial) -> Bool) -> Trial? {
    for a in angles {
        var s = state
        guard let r = try? s.shoot(angle: a, recordTrajectory: true) else { continue }
        let t = Trial(angle: a, result: r, after: s)
        if accept(t) { return t }
    }
    return nil
}

/// Every trial of a scan (trajectory recorded).
func scanAll(_ state: GameState, _ angles: [Double]) -> [Trial] {
    angles.compactMap { a in
        var s = state
        guard let r = try? s.shoot(angle: a, recordTrajectory: true) else { return nil }
        return Trial(angle: a, result: r, after: s)
    }
}

extension ShotResult {
    /// Lit peg indices (requires a recorded trajectory).
    var lit: [Int] { trajectory?.litPegs ?? [] }
    /// Paths of the recorded trajectory.
    var paths: [Trajectory.Path] { trajectory?.paths ?? [] }
}

/// Smallest distance between any recorded ball centre of `result` and `point`.
func closestApproach(_ result: ShotResult, to point: Vec2) -> Double {
    var best = Double.infinity
    for p in result.paths { for q in p.points { best = min(best, (q - point).length) } }
    return best
}
