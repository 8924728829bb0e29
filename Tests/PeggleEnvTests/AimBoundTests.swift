import PeggleGenerator
import PeggleLevel
import PeggleUtilities
import Testing
@testable import PeggleGame

/// The `aim` encoder's traces skip the obstacle sweep wherever the physics' free-flight bound
/// proves a move touches nothing: the rows must be the bits of traces that sweep every step.
/// Generated levels of every distribution, template and power (turning boards and zombies
/// added), played on with random shots so pegs go and boards turn, and a flipped bundled level.
@Suite("aim encoder and the free-flight bound")
struct AimBoundTests {
    static func rows(_ game: GameState, _ encoder: AimEncoder, usesBound: Bool) -> [UInt32] {
        var scene = AimScene()
        scene.usesBound = usesBound
        var out = [Float](repeating: 0, count: encoder.size)
        out.withUnsafeMutableBufferPointer { encoder.encode(game, scene: &scene, into: $0) }
        return out.map(\.bitPattern)
    }

    @Test("every row is the row without the bound", arguments: 0..<36)
    func sameRows(_ variant: Int) throws {
        let encoder = AimEncoder(bins: 31)
        var game = try GameState(level: LevelGenerator.coverageVariant(variant), rules: Rules(), seed: UInt64(variant))
        var g = SeededGenerator(seed: UInt64(1000 + variant))
        var decisions = 0
        while game.status == .playing && decisions < 6 {
            #expect(Self.rows(game, encoder, usesBound: true) == Self.rows(game, encoder, usesBound: false),
                    "variant \(variant), decision \(decisions)")
            _ = try game.shoot(angle: encoder.angle(bin: g.nextInt(below: 31)))
            decisions += 1
        }
        #expect(decisions > 0)
    }

    @Test("a turned board: the probe rotates into the store's frame")
    func upsideDown() throws {
        let level = try bundled("upside-down")
        let encoder = AimEncoder(bins: 61)
        var game = try GameState(level: level, rules: Rules(), seed: 3)
        var g = SeededGenerator(seed: 11)
        var turned = 0
        for _ in 0..<12 where game.status == .playing {
            if game.boardAngle != 0 { turned += 1 }
            #expect(Self.rows(game, encoder, usesBound: true) == Self.rows(game, encoder, usesBound: false))
            _ = try game.shoot(angle: encoder.angle(bin: g.nextInt(below: 61)))
        }
        #expect(turned > 0, "the board never turned: the test would not cover the rotation")
    }
}
