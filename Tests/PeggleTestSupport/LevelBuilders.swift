import PeggleLevel
import PegglePhysics

// Levels built by hand for the tests of the level, the game and the agents.

/// A round peg of radius `r` (default 12) at (x, y).
public func peg(_ id: Int, _ kind: PegKind, _ x: Double, _ y: Double, r: Double = 12) -> Peg {
    Peg(id: id, kind: kind, center: Vec2(x, y), shape: .circle(radius: r))
}

/// A brick peg.
public func brick(_ id: Int, _ kind: PegKind, _ x: Double, _ y: Double, w: Double, h: Double, rot: Double = 0) -> Peg {
    Peg(id: id, kind: kind, center: Vec2(x, y), shape: .brick(width: w, height: h, rotation: rot))
}

/// A level from parts; purple roaming as asked.
public func makeLevel(
    _ name: String = "Test", mode: GameMode = .classic(balls: 10), power: Power = .none,
    pegs: [Peg], blocks: [Block] = [], purpleRoams: Bool = true
) -> Level {
    var l = Level(name: name, mode: mode, power: power, pegs: pegs, blocks: blocks)
    l.purpleRoams = purpleRoams
    return l
}
