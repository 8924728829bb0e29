import PeggleLevel
import PeggleUtilities

/// One small edit the difficulty dial (`LevelTune`) may make to a level. Every kind keeps the
/// layout: a recolour or a mode field changes no position, and a move shifts one peg by
/// `LevelTune.Settings.moveStep` units, refused like the designer's move when it would overlap
/// something or leave the board.
public enum TuneEdit: Sendable, Hashable, CustomStringConvertible {
    /// An orange peg made blue: one orange fewer to clear (classic), fewer big scores (beat the score).
    case orangeToBlue(id: Int)
    /// A blue peg made orange.
    case blueToOrange(id: Int)
    /// Classic: the ball budget, from one count to the next.
    case balls(from: Int, to: Int)
    /// Beat the score: the target score.
    case target(from: Int, to: Int)
    /// Beat the score: the time limit, seconds of game time.
    case clock(from: Double, to: Double)
    /// Dodge: the clean shots asked for.
    case shots(from: Int, to: Int)
    /// One peg moved by (dx, dy) board units, from its centre at (x, y).
    case move(id: Int, x: Double, y: Double, dx: Double, dy: Double)

    /// The kinds of edit, the closed list the dial chooses from.
    public enum Kind: String, Sendable, CaseIterable {
        case orangeToBlue = "orange-to-blue", blueToOrange = "blue-to-orange", balls, target, clock, shots, move
    }

    public var kind: Kind {
        switch self {
        case .orangeToBlue: .orangeToBlue
        case .blueToOrange: .blueToOrange
        case .balls: .balls
        case .target: .target
        case .clock: .clock
        case .shots: .shots
        case .move: .move
        }
    }

    /// Which way the edit moves a level's difficulty whatever its layout: +1 harder, -1 easier, nil
    /// when it depends on the board (a move; a recolour in beat the score, where an orange peg is
    /// worth more points but also raises the multiplier later). The dial makes only edits of the
    /// sign it needs, and moves: a single recolour's estimate is noisy enough that the edit the
    /// estimate likes best is otherwise often one of the wrong sign (Ghost Story asked harder took
    /// "orange made blue" on an estimate of 0.031).
    public func direction(in mode: GameModeKind) -> Int? {
        switch self {
        case .orangeToBlue: mode == .classic ? -1 : nil
        case .blueToOrange: mode == .classic ? 1 : nil
        case let .balls(a, b): b < a ? 1 : -1
        case let .target(a, b): b > a ? 1 : -1
        case let .clock(a, b): b < a ? 1 : -1
        case let .shots(a, b): b > a ? 1 : -1
        case .move: nil
        }
    }

    /// For people: "peg 12 at (200, 250): orange made blue", "balls 10 -> 9".
    public var description: String {
        func n(_ v: Double) -> String { LevelCodec.number(v) }
        switch self {
        case let .orangeToBlue(id): return "peg \(id): orange made blue"
        case let .blueToOrange(id): return "peg \(id): blue made orange"
        case let .balls(a, b): return "balls \(a) -> \(b)"
        case let .target(a, b): return "target score \(a) -> \(b)"
        case let .clock(a, b): return "time limit \(n(a)) -> \(n(b)) s"
        case let .shots(a, b): return "dodge shots \(a) -> \(b)"
        case let .move(id, x, y, dx, dy): return "peg \(id) moved from (\(n(x)), \(n(y))) to (\(n(x + dx)), \(n(y + dy)))"
        }
    }

    /// The level with this edit made, or the reason it cannot be (the level's own checks: a move
    /// onto another object, a mode field out of its range, a recolour of a peg of another kind).
    public func applied(to level: Level, rules: Rules = Rules()) throws(EditError) -> Level {
        var l = level
        switch self {
        case let .orangeToBlue(id): try l.recolour(id: id, from: .orange, to: .blue)
        case let .blueToOrange(id): try l.recolour(id: id, from: .blue, to: .orange)
        case let .balls(a, b):
            guard case var .classic(c) = l.mode, c.balls == a else { throw EditError("the level has no ball budget of \(a)") }
            c.balls = b
            try l.changeSettings { $0.mode = .classic(c) }
        case let .target(a, b):
            guard case var .beatTheScore(s) = l.mode, s.targetScore == a else { throw EditError("the level has no target score of \(a)") }
            s.targetScore = b
            try l.changeSettings { $0.mode = .beatTheScore(s) }
        case let .clock(a, b):
            guard case var .beatTheScore(s) = l.mode, s.timeLimit == a else { throw EditError("the level has no time limit of \(a)") }
            s.timeLimit = b
            try l.changeSettings { $0.mode = .beatTheScore(s) }
        case let .shots(a, b):
            guard case var .dodge(d) = l.mode, d.shots == a else { throw EditError("the level has no dodge count of \(a)") }
            d.shots = b
            try l.changeSettings { $0.mode = .dodge(d) }
        case let .move(id, x, y, dx, dy):
            guard let i = l.pegs.firstIndex(where: { $0.id == id }), l.pegs[i].center.x == x, l.pegs[i].center.y == y else {
                throw EditError("there is no peg \(id) at (\(x), \(y))")
            }
            var c = l.pegs[i].center
            c.x += dx
            c.y += dy
            try l.move(id: id, to: c, rules: rules)
        }
        return l
    }

    /// Every single edit of `level` the dial considers, in a fixed order (mode fields first, then
    /// the pegs in file order), each one valid: the result passes the level's checks. `moveStep`
    /// is how far a move goes (board units; 0 for no moves).
    ///
    /// Classic and beat the score: each orange made blue (while another orange is left, so a
    /// classic level keeps one to clear), each blue made orange, and each orange moved one step
    /// in the four directions; classic also the balls +-1, beat the score the target x or / 1.25
    /// (rounded to 100) and the clock +-15 s. Dodge: the shots +-1 and every peg moved (any peg
    /// touched loses there, and colours mean nothing).
    public static func candidates(of level: Level, moveStep: Double, rules: Rules = Rules()) -> [TuneEdit] {
        var out: [TuneEdit] = []
        switch level.mode {
        case let .classic(c): out += [.balls(from: c.balls, to: c.balls - 1), .balls(from: c.balls, to: c.balls + 1)]
        case let .beatTheScore(s):
            let up = Int((Double(s.targetScore) * 1.25 / 100).rounded()) * 100
            let down = Int((Double(s.targetScore) / 1.25 / 100).rounded()) * 100
            out += [.target(from: s.targetScore, to: down), .target(from: s.targetScore, to: up),
                    .clock(from: s.timeLimit, to: s.timeLimit + 15), .clock(from: s.timeLimit, to: s.timeLimit - 15)]
        case let .dodge(d): out += [.shots(from: d.shots, to: d.shots - 1), .shots(from: d.shots, to: d.shots + 1)]
        }
        let isDodge = level.mode.kind == .dodge
        if !isDodge {
            let oranges = level.pegs.filter { $0.kind == .orange }.count
            for p in level.pegs {
                if p.kind == .orange && oranges > 1 { out.append(.orangeToBlue(id: p.id)) }
                if p.kind == .blue { out.append(.blueToOrange(id: p.id)) }
            }
        }
        if moveStep > 0 {
            for p in level.pegs where isDodge || p.kind == .orange {
                for (dx, dy) in [(-moveStep, 0.0), (moveStep, 0), (0, -moveStep), (0, moveStep)] {
                    out.append(.move(id: p.id, x: p.center.x, y: p.center.y, dx: dx, dy: dy))
                }
            }
        }
        return out.filter { edit in
            guard let l = try? edit.applied(to: level, rules: rules) else { return false }
            // A change that changes nothing (a target rounded back to itself) is no edit.
            return l != level
        }
    }
}

extension Level {
    /// Changes peg `id`'s kind from `from` to `to`; refused for a peg of another kind.
    mutating func recolour(id: Int, from: PegKind, to: PegKind) throws(EditError) {
        guard let p = pegs.first(where: { $0.id == id }), p.kind == from else {
            throw EditError("there is no \(from.rawValue) peg \(id)")
        }
        try setKind(id: id, to: to)
    }
}
