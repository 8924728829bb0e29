import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleUtilities
import Testing

/// The `aim` observation: one row per aim bin, the linear agent's features (the same encoder,
/// bit for bit), and with the discrete action, action b fires at row b's angle.
@Suite struct AimObservationTests {
    func aimConfig(_ levels: [Level], bins: Int = 61, action: ActionKind = .discrete) -> EnvConfig {
        var c = EnvConfig(levels: levels)
        c.encoder = .aim
        c.bins = bins
        c.action = action
        return c
    }

    @Test func spacesAreTheRowsAndTheirBins() throws {
        let env = try PeggleEnv(config: aimConfig([try bundled("first-steps")], bins: 21))
        #expect(env.observationSpace == .box(low: 0, high: 1, shape: [21, AimEncoder.featureCount]))
        #expect(env.actionSpace == .discrete(n: 21))
        #expect(env.observationSize == 21 * 20)
        // The continuous action keeps its own space beside the rows.
        let continuous = try PeggleEnv(config: aimConfig([try bundled("first-steps")], bins: 21, action: .continuous))
        #expect(continuous.actionSpace == .box(low: -1, high: 1, shape: [1]))
    }

    /// Every observation of whole episodes on every bundled level (purple pegs that roam,
    /// zombies, kaboom, a confusement flip, bricks and blocks): the environment keeps each bin's
    /// trace while it holds and traces again when a peg it touched is gone or the board turned;
    /// the rows are the bits a fresh encoder (the linear agent's, 61 bins) gives.
    @Test(arguments: ["bench-grid", "brick-road", "first-steps", "fortress", "gauntlet", "ghost-story", "green-light",
                      "last-stand", "needle-s-eye", "purple-haze", "score-rush", "spiral", "springboard", "upside-down",
                      "zombie-night"])
    func rowsAreTheLinearAgentsFeaturesBitForBit(_ name: String) throws {
        var c = aimConfig([try bundled(name)])
        c.maxShots = 25
        c.aimNoise = 0.01
        var env = try PeggleEnv(config: c)
        let encoder = AimEncoder()  // the linear agent's: 61 bins
        var g = SeededGenerator(seed: 7)
        for episode in 0..<2 {
            var (obs, _) = try env.reset(seed: UInt64(episode))
            while true {
                #expect(obs.map(\.bitPattern) == encoder.encode(env.game!).map(\.bitPattern), "\(name), shot \(env.shots)")
                let out = try env.step(Double(g.nextInt(below: 61)))
                obs = out.observation
                if out.terminated || out.truncated { break }
            }
        }
    }

    /// Procedural levels repeat (3 level seeds, 12 episodes: at least 9 resets are of a level
    /// seen before), and a repeated level's first observation starts from the traces kept at its
    /// first reset: every row, at the reset and after each shot, is the bits of a fresh encoder's.
    @Test func episodesOnAKeptLevelStartFromItsTracesBitForBit() throws {
        var c = aimConfig([], bins: 31)
        c.procedural = ProceduralLevels(numLevels: 3, startLevel: 40, distribution: .hard)
        c.maxShots = 4
        var env = try PeggleEnv(config: c)
        let encoder = AimEncoder(bins: 31)
        var g = SeededGenerator(seed: 9)
        var seen: Set<UInt64> = [], repeats = 0
        for episode in 0..<12 {
            var (obs, info) = try env.reset(seed: UInt64(100 + episode))
            if !seen.insert(info.levelSeed!).inserted { repeats += 1 }
            while true {
                #expect(obs.map(\.bitPattern) == encoder.encode(env.game!).map(\.bitPattern), "episode \(episode), shot \(env.shots)")
                let out = try env.step(Double(g.nextInt(below: 31)))
                obs = out.observation
                if out.terminated || out.truncated { break }
            }
        }
        #expect(repeats >= 9)
    }

    @Test func actionBFiresAtRowBsAngle() throws {
        var env = try PeggleEnv(config: aimConfig([try bundled("first-steps")], bins: 31))
        let encoder = AimEncoder(bins: 31)
        for b in [0, 7, 15, 30] {
            _ = try env.reset(seed: 1)
            let info = try env.step(Double(b)).info
            #expect(info.shot?.angle == encoder.angle(bin: b))
            #expect(info.shot?.firedAngle == encoder.angle(bin: b))  // no aim noise
        }
        // Without the aim encoder a discrete bin spans the cannon's whole range, as before.
        var plain = try PeggleEnv(config: config([try bundled("first-steps")], action: .discrete(bins: 31)))
        _ = try plain.reset(seed: 1)
        #expect(try plain.step(30).info.shot?.angle == 1.5)
    }

    @Test func valuesStayInTheUnitRangeAndEpisodesRepeat() throws {
        var c = aimConfig([], bins: 31)
        c.levels = []
        c.procedural = ProceduralLevels(numLevels: 20, startLevel: 0, distribution: .easy)
        c.aimNoise = 0.02
        func run() throws -> [UInt32] {
            var v = try VectorEnv(config: c, count: 3, threads: 2, seed: 5)
            try v.reset(seed: 5)
            var bits: [UInt32] = []
            for k in 0..<6 {
                #expect(v.observations.allSatisfy { $0 >= 0 && $0 <= 1 })
                bits += v.observations.map(\.bitPattern)
                try v.step([Double(k * 5 % 31), 15, Double(30 - k)])
            }
            return bits
        }
        #expect(try run() == run())
    }
}
