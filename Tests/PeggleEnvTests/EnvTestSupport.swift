import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import PeggleUtilities

/// A bundled level by file name ("first-steps").
func bundled(_ name: String) throws -> Level {
    try LevelCodec.decode(Repository.data("Levels/\(name).json"))
}

/// A small classic level: two orange pegs and some blue, with a few balls, so episodes are short.
func tinyLevel(name: String = "Tiny", balls: Int = 3) -> Level {
    var pegs: [Peg] = []
    for (k, x) in stride(from: 150.0, through: 650.0, by: 50).enumerated() {
        pegs.append(Peg(id: k + 1, kind: k == 3 || k == 7 ? .orange : .blue, center: Vec2(x, 300)))
    }
    return Level(name: name, mode: .classic(balls: balls), pegs: pegs)
}

/// A config over `levels` with small observations.
func config(_ levels: [Level], maxShots: Int = 100, action: ActionMode = .continuous,
            encoder: EncoderKind = .objects, maxObjects: Int = 40) -> EnvConfig {
    var c = EnvConfig(levels: levels)
    c.maxShots = maxShots
    switch action {
    case .continuous: c.action = .continuous
    case let .discrete(bins): c.action = .discrete; c.bins = bins
    }
    c.encoder = encoder
    c.maxObjects = maxObjects
    return c
}

/// Deterministic action sequence in [-1, 1].
func actions(_ n: Int, seed: UInt64) -> [Double] {
    var g = SeededGenerator(seed: seed)
    return (0..<n).map { _ in g.nextUnit() * 2 - 1 }
}
