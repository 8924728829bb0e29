import Foundation
import PeggleEnv
import PeggleGame
import PegglePhysics
import PeggleUtilities
import Testing

/// Aim noise and the random bucket start (`EnvConfig.aimNoise`, `bucketStart`): what makes a
/// deterministic policy meet a distribution of episodes (Peggle-v1).
@Suite("Aim noise")
struct AimNoiseTests {
    /// v1's settings on first steps.
    func noisy(_ sigma: Double = 0.02, bucket: BucketStart = .random) throws -> EnvConfig {
        var c = config([try bundled("first-steps")], maxShots: 30, maxObjects: 128)
        c.aimNoise = sigma
        c.bucketStart = bucket
        return c
    }

    /// One episode's observations, rewards, aims and fired angles, playing `moves` in turn.
    func episode(_ env: inout PeggleEnv, seed: UInt64?, _ moves: [Double]) throws
        -> (obs: [Float], rewards: [Float], aims: [Double], fired: [Double]) {
        var obs = try env.reset(seed: seed).observation
        var rewards: [Float] = [], aims: [Double] = [], fired: [Double] = []
        var k = 0
        while !env.isDone {
            let s = try env.step(moves[k % moves.count])
            obs += s.observation
            rewards.append(s.reward)
            aims.append(s.info.shot!.angle)
            fired.append(s.info.shot!.firedAngle)
            k += 1
        }
        return (obs, rewards, aims, fired)
    }

    @Test func theSameSeedGivesTheSameNoisyEpisode() throws {
        let moves = actions(40, seed: 3)
        var a = try PeggleEnv(config: noisy()), b = try PeggleEnv(config: noisy())
        for seed: UInt64 in [1, 2, 99] {
            let x = try episode(&a, seed: seed, moves), y = try episode(&b, seed: seed, moves)
            #expect(x.obs == y.obs && x.rewards == y.rewards && x.fired == y.fired)
        }
        // Seedless resets continue the generator: the same sequence of episodes from the same start.
        var c = try PeggleEnv(config: noisy(), seed: 5), d = try PeggleEnv(config: noisy(), seed: 5)
        for _ in 0..<3 {
            let x = try episode(&c, seed: nil, moves), y = try episode(&d, seed: nil, moves)
            #expect(x.obs == y.obs && x.fired == y.fired)
        }
        let one = try episode(&a, seed: 1, moves), other = try episode(&a, seed: 2, moves)
        #expect(one.fired != other.fired)
    }

    /// The fired angle is the aim plus sigma times the episode's Gaussian stream, clamped: the
    /// draw order documented in docs/environment.md (game seed, bucket phase, noise seed).
    @Test func theFiredAngleFollowsTheDocumentedDrawOrder() throws {
        var env = try PeggleEnv(config: noisy(0.05))
        let info = try env.reset(seed: 11).info
        var rng = SeededGenerator(seed: 11)
        #expect(rng.next() >> 1 == info.gameSeed)
        let phase = rng.nextUnit()
        var noise = SeededGenerator(seed: rng.next())
        var expectedGame = try GameState(level: bundled("first-steps"), seed: info.gameSeed)
        expectedGame.placeBucket(phase: phase)
        #expect(env.game!.bucket == expectedGame.bucket)
        for action in [0.2, -0.4, 0.999] where !env.isDone {
            let want = min(max(action * 1.5 + 0.05 * noise.nextGaussian(), -1.5), 1.5)
            let shot = try env.step(action).info.shot!
            #expect(shot.angle == action * 1.5)
            #expect(shot.firedAngle == want)
        }
    }

    /// Without noise nothing is drawn beyond the game seed, so the episode is the noiseless
    /// environment's, bit for bit (Peggle-v0 stays as it was).
    @Test func zeroNoiseAndACentredBucketChangeNothing() throws {
        var plain = config([try bundled("first-steps"), try bundled("purple-haze")], maxShots: 30,
                           maxObjects: 128)
        plain.order = .random
        var explicit = plain
        explicit.aimNoise = 0
        explicit.bucketStart = .centre
        var a = try PeggleEnv(config: plain, seed: 4), b = try PeggleEnv(config: explicit, seed: 4)
        let moves = actions(40, seed: 8)
        for seed: UInt64? in [7, nil, nil] {
            let x = try episode(&a, seed: seed, moves), y = try episode(&b, seed: seed, moves)
            #expect(x.obs == y.obs && x.rewards == y.rewards)
            #expect(x.fired == x.aims)
        }
        _ = try a.reset(seed: 3)
        #expect(a.game!.bucket == (x: 400, direction: 1))
    }

    /// The complaint: a deterministic policy played one trajectory over 100 seeds. Under
    /// v1's settings (0.02 rad, random bucket start) the same policy on one level meets 99
    /// outcomes in 100 seeds.
    @Test func aDeterministicPolicyMeetsADistribution() throws {
        let moves = [0.1, -0.3, 0.45, -0.05, 0.7, -0.6]
        func outcomes(_ c: EnvConfig) throws -> Set<[Int]> {
            var env = try PeggleEnv(config: c)
            var seen = Set<[Int]>()
            for seed: UInt64 in 0..<100 {
                _ = try env.reset(seed: seed)
                var path: [Int] = []
                var k = 0
                while !env.isDone {
                    let s = try env.step(moves[k % moves.count])
                    path += [s.info.score, s.info.shot!.hits.total, s.info.shot!.caught]
                    k += 1
                }
                seen.insert(path)
            }
            return seen
        }
        #expect(try outcomes(noisy(0, bucket: .centre)).count == 1)
        // Outcomes (score, pegs hit and balls caught, shot by shot), coarser than trajectories:
        // two seeds' noisy aims may still score alike. Pinned counts.
        #expect(try outcomes(noisy()).count == 99)
        #expect(try outcomes(noisy(bucket: .centre)).count == 100, "aim noise alone")
        #expect(try outcomes(noisy(0)).count == 15, "the bucket's start alone: only catches differ")
    }

    @Test func theBucketPhaseMapsOntoItsTrack() throws {
        var g = try GameState(level: tinyLevel(), seed: 0)
        #expect(g.bucket == (x: 400, direction: 1), "the rules' start")
        let cases: [(Double, Double, Double)] = [(0, 60, 1), (0.25, 400, 1), (0.5, 740, -1), (0.75, 400, -1), (0.999, 61.36, -1)]
        for (phase, x, dir) in cases {
            g.placeBucket(phase: phase)
            #expect(abs(g.bucket.x - x) < 1e-9 && g.bucket.direction == dir, "phase \(phase)")
        }
    }

    @Test func aimNoiseOutsideItsRangeIsRefused() throws {
        for bad in [-0.01, 1.5, .nan, .infinity] {
            var c = try noisy()
            c.aimNoise = bad
            #expect { try PeggleEnv(config: c) } throws: {
                ($0 as? EnvError)?.message == "aim_noise is \(bad); it must be in 0.0...1.0 radians"
            }
        }
    }
}
