import Foundation
import PeggleGame
import PeggleGenerator
import PeggleLab
import PeggleLevel
import PegglePhysics
import PeggleUtilities
import Testing

/// Version 2's whole-game fuzz (issue 51) on the free-flight fuzz's generated levels: every
/// distribution, template and power, with confusement and zombie pegs added, so shots are handed
/// to version 1 midway. PEGGLE_FUZZ_LEVELS raises the number of level variants (each plays
/// `shotsPerLevel` shots); `peggle-bench toi-fuzz` is the million-shot run.
@Suite("Version 2 whole-game fuzz")
struct TOIGameFuzzTests {
    static let shotsPerLevel = 16

    /// Variants `0..<levels`, `shotsPerLevel` shots each, on `threads` threads, folded in order.
    static func run(levels: Int, threads: Int, compare: Bool) throws -> Benchmarks.TOIGameFuzz {
        let each = Parallel.map(levels, threads: threads) { i in
            Result {
                try Benchmarks.toiGameFuzz(level: LevelGenerator.coverageVariant(i), rules: Rules(), seed: UInt64(i),
                                           shots: shotsPerLevel, compare: compare)
            }
        }
        return try each.reduce(Benchmarks.TOIGameFuzz()) { try $0 + $1.get() }
    }

    @Test("no violation, every replay the same, hand-offs exercised, the same hash on 1 and 2 threads")
    func fuzz() throws {
        // 72 variants: every power (variant i has power (i / 18) % 4).
        let levels = ProcessInfo.processInfo.environment["PEGGLE_FUZZ_LEVELS"].flatMap { Int($0) } ?? 72
        let two = try Self.run(levels: levels, threads: 2, compare: true)
        #expect(two.shots == levels * Self.shotsPerLevel)
        // Version 2's own: no violation (version 1's steps in it are counted apart, as version 1's).
        #expect(two.violations == 0 && two.mismatches == 0, "\(two)")
        // The corpus must hand shots to version 1 (midway, and whole on turned boards).
        #expect(two.handOffs > 0 && two.turnedShots > 0, "\(two)")
        // The obstacle check must be looking: most shots keep their board, and balls touch obstacles
        // (a contact leaves the ball about a radius from the surface).
        #expect(two.checkedShots > two.shots / 2 && two.partlyCheckedShots > 0 && two.positions > 100 * two.checkedShots, "\(two)")
        #expect(two.deepest > -0.01 && two.deepest <= Benchmarks.toiFuzzTolerance, "\(two)")
        #expect(two.v1Positions > 0 && two.v1Positions < two.positions, "\(two)")
        #expect(two.games > levels && two.gamesOver > 0, "\(two)")

        // One thread, no replays: the same games, the same hash.
        let one = try Self.run(levels: levels, threads: 1, compare: false)
        #expect(one.hash == two.hash)
        var unreplayed = two
        unreplayed.mismatches = 0
        #expect(one == unreplayed)
        // The hash tells runs apart.
        let fewer = try Self.run(levels: levels - 1, threads: 2, compare: false)
        #expect(fewer.hash != one.hash && fewer.hash != 0)
    }

    /// Found by the million-shot run (`peggle-bench toi-fuzz --shots 1000000`): 103 shots of a
    /// million, all on the Pockets template (variant i with (i / 2) % 9 == 7), where two blocks of
    /// restitution 1.106 face each other 37.4 units apart. A ball bouncing between them gains 10.6%
    /// speed a bounce, so its speed grows without bound; version 2's flight, at some 1e150 units/s,
    /// left through a wall and ran to the time limit. Version 1 does the same from the same state
    /// (1.8e6 units/s after 22 steps) but stands at the face until the stuck rule takes the ball.
    /// Now a ball past `fastestBall` (1e5 units/s) goes to version 1's steps: shot 9 is handed off.
    @Test("a ball sped up between two bouncy blocks goes to version 1's steps, not through a wall (variant 1113, its shot 9)")
    func pinnedRunaway() throws {
        let level = LevelGenerator.coverageVariant(1113)
        let before = try Benchmarks.toiGameFuzz(level: level, rules: Rules(), seed: 1113, shots: 9, compare: false)
        let r = try Benchmarks.toiGameFuzz(level: level, rules: Rules(), seed: 1113, shots: 10, compare: true)
        #expect(r.runaways == 0 && r.throughWalls == 0 && r.tunnelled == 0 && r.violations == 0 && r.mismatches == 0, "\(r)")
        #expect(r.handOffs == before.handOffs + 1, "\(before) then \(r)")
    }

    /// Also found by the million-shot run: 21 shots of a million put a ball 1.16e-6 to 1.38e-6
    /// units into a block's vertical face (a ball wedged at rest near y 530, the same spot on
    /// several generated levels): contacts leave the centre `contactSlop` (1e-6) outside, so
    /// this is rounding of about 2e-6 against the check's 1e-6 tolerance, not a ball through a block.
    @Test("pinned: a ball at rest 1.16e-6 units into a block's face (variant 2121, its shot 0)")
    func pinnedRounding() throws {
        let r = try Benchmarks.toiGameFuzz(level: LevelGenerator.coverageVariant(2121), rules: Rules(), seed: 2121, shots: 1,
                                           compare: false)
        #expect(r.tunnelled == 1 && r.violations == 1, "\(r)")
        #expect(r.deepest > Benchmarks.toiFuzzTolerance && r.deepest < 2e-6, "\(r)")
        let loose = try Benchmarks.toiGameFuzz(level: LevelGenerator.coverageVariant(2121), rules: Rules(), seed: 2121, shots: 1,
                                               compare: false, tolerance: 2e-6)
        #expect(loose.violations == 0, "\(loose)")
    }

    @Test("the checks can fail: a ball asked to keep clear of everything, games cut at two shots")
    func checksCanFail() throws {
        var strict = Benchmarks.TOIGameFuzz(), short = Benchmarks.TOIGameFuzz()
        for i in 0..<6 {
            let level = LevelGenerator.coverageVariant(i)
            // Balls touch pegs: a clearance of 0.001 is broken.
            strict = strict + (try Benchmarks.toiGameFuzz(level: level, rules: Rules(), seed: UInt64(i), shots: 10, compare: false,
                                                          tolerance: -0.001))
            short = short + (try Benchmarks.toiGameFuzz(level: level, rules: Rules(), seed: UInt64(i), shots: 10, compare: false,
                                                        maxGameShots: 2))
        }
        #expect(strict.tunnelled > 0 && strict.violations >= strict.tunnelled, "\(strict)")
        #expect(strict.firstViolation?.contains(" inside ") == true, "\(strict)")
        #expect(short.longGames > 0 && short.violations == short.longGames, "\(short)")
        #expect(short.firstViolation?.contains("not over after 2 shots") == true, "\(short)")
    }

    @Test("the obstacle grid offers every obstacle within reach of a point")
    func gridFindsEveryNearObstacle() throws {
        let rules = Rules()
        let r = rules.physics.ballRadius
        var rng = SeededGenerator(seed: 51)
        var near = 0
        for i in [0, 5, 20, 41, 66] {
            let shapes = GameState.obstacles(level: LevelGenerator.coverageVariant(i), rules: rules).map(\.shape)
            let grid = ObstacleGrid(shapes, reach: r)
            for _ in 0..<2000 {
                let p = Vec2(rng.nextUnit() * 820 - 10, rng.nextUnit() * 640 - 10)
                var offered = Set<Int>()
                grid.forEachCandidate(p) { offered.insert($0) }
                for j in shapes.indices where Benchmarks.surfaceDistance(from: p, to: shapes[j]) <= r {
                    near += 1
                    #expect(offered.contains(j), "variant \(i): obstacle \(j) near \(p) not offered")
                }
            }
        }
        #expect(near > 100)
    }

    @Test("a segment's distance is to the segment, not a half-plane")
    func segmentDistance() {
        let segment = Shape.polygon(ConvexPolygon(vertices: [Vec2(0, 0), Vec2(10, 0)]))
        #expect(Benchmarks.surfaceDistance(from: Vec2(5, 3), to: segment) == 3)
        #expect(Benchmarks.surfaceDistance(from: Vec2(5, -3), to: segment) == 3)
        #expect(Benchmarks.surfaceDistance(from: Vec2(13, 4), to: segment) == 5)
        #expect(Benchmarks.surfaceDistance(from: Vec2(1, 1), to: .circle(center: Vec2(1, 2), radius: 3)) == -2)
    }
}
