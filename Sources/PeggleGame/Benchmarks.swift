import PeggleLevel
import PegglePhysics

/// The benchmark workloads, as pure computations (the caller owns the clock). They match the
/// pymunk and Box2D scripts docs/performance.md compares with, so the figures compare directly.
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
        var obstacles = level.pegs.map { Obstacle(shape: $0.physicsShape, restitution: rules.restitution) }
        obstacles += level.blocks.map { Obstacle(shape: $0.physicsShape, restitution: $0.restitution(rules)) }
        var world = PhysicsWorld(config: rules.physics, obstacles: obstacles)
        let maxSteps = Int((rules.shotTimeLimit / rules.physics.timeStep).rounded(.up))
        var total = 0
        for a in angles {
            world.spawnBall(position: rules.cannon, velocity: Vec2(Trig.sin(a), Trig.cos(a)) * rules.launchSpeed)
            var steps = 0
            while world.activeBallCount > 0 && steps < maxSteps {
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
}
