import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleUtilities

/// The benchmark workloads, as pure computations (the caller owns the clock). They match the
/// pymunk and Box2D scripts of docs/lab/2026-11-22-physics-against-pymunk-and-box2d.md, so the figures compare directly.
public enum Benchmarks {
    /// `n` aim angles spread evenly over [-1.3, 1.3] radians, as the peer scripts use.
    public static func gridAngles(_ n: Int) -> [Double] {
        guard n > 1 else { return [0] }
        return (0..<n).map { -1.3 + 2.6 * Double($0) / Double(n - 1) }
    }

    /// Physics only: the level's pegs and blocks as static obstacles (never removed, no bucket);
    /// one ball per angle from the cannon, until it leaves the board or the shot time limit.
    /// Returns the number of fixed steps simulated.
    public static func physicsSteps(level: Level, rules: Rules, angles: ArraySlice<Double>) -> Int {
        var world = PhysicsWorld(config: rules.physics, obstacles: GameState.obstacles(level: level, rules: rules))
        let maxSteps = Int((rules.shotTimeLimit / rules.physics.timeStep).rounded(.up))
        var total = 0
        for a in angles {
            world.spawnBall(position: rules.cannon, velocity: Vec2(Trig.sin(a), Trig.cos(a)) * rules.launchSpeed)
            var steps = 0
            // Free-flight steps in the world's tight loop (no stuck rule here: the anchor always
            // moves), then one full step; the same steps as `step()` alone.
            var anchor = Vec2.zero, anchorTime = 0.0
            while world.activeBallCount > 0 && steps < maxSteps {
                if world.freeFlightLikely {
                    steps += world.flyFree(limit: maxSteps - steps, anchor: &anchor, anchorTime: &anchorTime,
                                           stuckDistanceSquared: -1).steps
                }
                guard world.activeBallCount > 0 && steps < maxSteps else { break }
                world.step()
                steps += 1
            }
            world.removeAllBalls()
            total += steps
        }
        return total
    }

    /// Full game, every rule on: episode `e` is a new game with seed `e` whose shots take the
    /// angles in order from position `7 e` (wrapping), until the game ends or `maxShots`.
    /// Episodes are independent, so the work does not depend on how they are split across
    /// threads. Returns shots taken and fixed steps simulated.
    public static func gameEpisodes(level: Level, rules: Rules, episodes: Range<Int>, angles: [Double],
                                    maxShots: Int = 200) throws -> (shots: Int, steps: Int) {
        let fresh = try GameState(level: level, rules: rules, seed: 0)
        var shots = 0, steps = 0
        for e in episodes {
            var game = fresh
            game.reseed(UInt64(e))
            var k = 7 * e
            while !game.isOver && k - 7 * e < maxShots {
                steps += try game.shoot(angle: angles[k % angles.count]).steps
                shots += 1
                k += 1
            }
        }
        return (shots, steps)
    }

    /// What a free-flight fuzz run saw.
    public struct FreeFlightFuzz: Sendable, Equatable {
        /// Shots played and fixed steps simulated.
        public var shots = 0, steps = 0
        /// Store sweeps the bound skipped, and of those, how many would have found a contact.
        public var skipped = 0, misses = 0
        /// Shots whose result, trajectory or state differed from the same shot with the bound off
        /// (counted only when comparing).
        public var mismatches = 0

        public init() {}

        public static func + (a: Self, b: Self) -> Self {
            var r = a
            r.shots += b.shots
            r.steps += b.steps
            r.skipped += b.skipped
            r.misses += b.misses
            r.mismatches += b.mismatches
            return r
        }
    }

    /// The free-flight checker's workload: `shots` random shots on `level` in `.checked` mode,
    /// whole games one after another (game k: seed `seed + k`, the bucket at a random phase, aims
    /// uniform over the legal range), so pegs are lit and removed, boards turn and balls split as
    /// the level's pegs and power make them. With `compare`, each shot is also played on a copy
    /// with the bound off and must give the same result, trajectory, score and pegs.
    public static func freeFlightFuzz(level: Level, rules: Rules, seed: UInt64, shots: Int,
                                      compare: Bool) throws -> FreeFlightFuzz {
        var fresh = try GameState(level: level, rules: rules, seed: 0)
        fresh.freeFlight = .checked
        var aims = SeededGenerator(seed: seed ^ 0x5EED_F1EE)
        var out = FreeFlightFuzz()
        var k: UInt64 = 0
        var game = fresh
        func newGame() {
            game = fresh
            game.reseed(seed &+ k)
            game.placeBucket(phase: aims.nextUnit())
            k += 1
        }
        func tally() {
            out.skipped += game.world.freeFlightTally.skipped
            out.misses += game.world.freeFlightTally.misses
        }
        newGame()
        while out.shots < shots {
            if game.isOver {
                tally()
                newGame()
            }
            let angle = (aims.nextUnit() * 2 - 1) * rules.maxAim
            if compare {
                var reference = game
                reference.freeFlight = .off
                let a = try reference.shoot(angle: angle, recordTrajectory: true)
                let b = try game.shoot(angle: angle, recordTrajectory: true)
                if a != b || reference.score != game.score || reference.pegs != game.pegs
                    || reference.status != game.status || reference.bucket != game.bucket
                    || reference.world.time != game.world.time {
                    out.mismatches += 1
                }
                out.steps += b.steps
            } else {
                out.steps += try game.shoot(angle: angle).steps
            }
            out.shots += 1
        }
        tally()
        return out
    }
}
