import PeggleGenerator
import PeggleLevel
import PeggleUtilities
import Testing
import PeggleGame

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

    /// A kept scene's traces resume from the step in which they first touched a removed peg
    /// (`AimScene.Trace.resumes`): on generated variants of every kind, played on with random
    /// shots (multiball, turning boards, zombies), its rows are the bits of a fresh scene's. The
    /// test counts the resumes that skipped steps, so it cannot pass without exercising them.
    @Test("a kept trace resumed after its peg is gone is the trace from the cannon")
    func resumedTraces() throws {
        let encoder = AimEncoder(bins: 31)
        var resumed = 0
        for variant in 0..<36 {
            var game = try GameState(level: LevelGenerator.coverageVariant(variant), rules: Rules(), seed: UInt64(variant))
            var g = SeededGenerator(seed: UInt64(2000 + variant))
            var kept = AimScene()
            var out = [Float](repeating: 0, count: encoder.size)
            var decisions = 0
            while game.status == .playing && decisions < 8 {
                // Traces that will resume past their first step (their removed peg was touched later on).
                for t in kept.traces where t.valid {
                    if let k = t.touched.firstIndex(where: { game.pegs[Int($0)].isRemoved }), t.resumes[k].t > 0 { resumed += 1 }
                }
                out.withUnsafeMutableBufferPointer { encoder.encode(game, scene: &kept, keepTraces: true, into: $0) }
                #expect(out.map(\.bitPattern) == Self.rows(game, encoder, usesBound: true), "variant \(variant), decision \(decisions)")
                _ = try game.shoot(angle: encoder.angle(bin: g.nextInt(below: 31)))
                decisions += 1
            }
            #expect(decisions > 0)
        }
        #expect(resumed > 50, "only \(resumed) traces resumed past their first step")
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
