import Foundation
import PeggleTestSupport
import PegglePhysics
import Testing
import PeggleGame

// Shared builders and helpers for the game tests. Scenarios are built by hand here, and aims are
// found by scanning angles for a shot with a wanted property, never guessed.

/// A round peg of radius `r` (default 12) at (x, y).
func peg(_ id: Int, _ kind: PegKind, _ x: Double, _ y: Double, r: Double = 12) -> Peg {
    Peg(id: id, kind: kind, center: Vec2(x, y), shape: .circle(radius: r))
}

/// A brick peg.
func brick(_ id: Int, _ kind: PegKind, _ x: Double, _ y: Double, w: Double, h: Double, rot: Double = 0) -> Peg {
    Peg(id: id, kind: kind, center: Vec2(x, y), shape: .brick(width: w, height: h, rotation: rot))
}

/// A level from parts; purple roaming as asked.
func makeLevel(
    _ name: String = "Test", mode: GameMode = .classic(balls: 10), power: Power = .none,
    pegs: [Peg], blocks: [Block] = [], purpleRoams: Bool = true
) -> Level {
    var l = Level(name: name, mode: mode, power: power, pegs: pegs, blocks: blocks)
    l.purpleRoams = purpleRoams
    return l
}

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


/// Decodes JSON text, failing the test with the codec's error if it does not decode.
func decodeText(_ text: String) throws -> Level {
    try LevelCodec.decode(Data(text.utf8))
}

/// The codec's error for `text`, or nil if it decoded.
func formatError(_ text: String) -> LevelFormatError? {
    do {
        _ = try LevelCodec.decode(Data(text.utf8))
        return nil
    } catch {
        return error
    }
}

/// The editor's error for `edit` applied to `level`, checking that a refused edit leaves the
/// level exactly as it was.
func refused(_ level: inout Level, sourceLocation: SourceLocation = #_sourceLocation,
             _ edit: (inout Level) throws -> Void) -> EditError? {
    let before = level
    do {
        try edit(&level)
        return nil
    } catch {
        #expect(level == before, "a refused edit changed the level", sourceLocation: sourceLocation)
        #expect(error is EditError, "edits must throw EditError, not \(error)", sourceLocation: sourceLocation)
        return error as? EditError
    }
}
