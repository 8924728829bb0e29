import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleUtilities

extension Benchmarks {
    /// What a whole-game fuzz of version 2 saw (`toiGameFuzz`). The violation counts count shots
    /// (a shot with two bad positions counts once in `tunnelled`).
    public struct TOIGameFuzz: Sendable, Equatable {
        /// Shots played, and the fixed steps they count (`ShotResult.steps`).
        public var shots = 0, steps = 0
        /// Games started, and of those the ones that ended (won or lost) within the run.
        public var games = 0, gamesOver = 0
        /// Shots version 2 began and handed to version 1's steps midway (a second ball or a
        /// turning board), and shots version 1 played whole (they began on a turned board).
        public var handOffs = 0, turnedShots = 0
        /// Shots whose every recorded position was checked against the obstacles (their board did
        /// not turn), shots whose positions were checked up to a flip, and the positions checked.
        public var checkedShots = 0, partlyCheckedShots = 0, positions = 0
        /// The deepest any checked position version 2 flew came into an obstacle, ball radius minus
        /// distance to its surface (negative: the closest approach stayed that far out); -infinity
        /// while none has come within the ball radius plus the tolerance of an obstacle.
        public var deepest = -Double.infinity
        /// Shots with a non-finite number (a recorded position, bucket x, board angle, lit angle or
        /// explosion, the result's duration or angle, the game's elapsed time, world time, bucket or
        /// board angle).
        public var nonFinite = 0
        /// Shots with a position version 2 flew more than the tolerance inside an obstacle that was
        /// there, in place; and shots with one more than the tolerance beyond a wall (but where
        /// the bucket squeezes it, `squeezed`).
        public var tunnelled = 0, throughWalls = 0
        /// The same two checks on the positions version 1's steps recorded (the rest of a shot
        /// handed off, a shot on a turned board, every shot under `physics: .fixedStep`): version
        /// 1's own behaviour, which version 2 inherits; not among `violations`.
        public var v1Tunnelled = 0, v1ThroughWalls = 0
        /// Shots with a position (either version's) beyond the left or right wall at the bucket's
        /// height, outside its rim, with the rim's outer face less than a ball's width from that
        /// wall, or beyond it since such a position without coming back inside: the moving bucket
        /// pushes the ball into the wall (its travel leaves 6 units at each end where a ball needs
        /// 20). Not among `violations`.
        public var squeezed = 0
        /// Shots with a recorded position more than a board's width or height off the board (a
        /// runaway ball; also counted where it crosses a wall or enters an obstacle).
        public var runaways = 0
        /// `deepest` over the positions version 1's steps recorded, and their number (among
        /// `positions`).
        public var v1Deepest = -Double.infinity, v1Positions = 0
        /// Shots longer than the rules' shot time limit in steps (or of no step at all), and games
        /// not over after `maxGameShots` shots (cut there; the run goes on with a new game).
        public var overLimit = 0, longGames = 0
        /// Shots after which the game's elapsed time or its world's clock was earlier than before,
        /// or whose duration was negative.
        public var timeBack = 0
        /// Shots whose replays (`compare`) differed from the shot in any bit.
        public var mismatches = 0
        /// FNV-1a (64 bits) over the bit patterns of every shot's result, trajectory and the state it
        /// left, and of every game's end; 0 for no shot. `+` mixes two hashes in order (see `+`).
        public var hash: UInt64 = 0
        /// The first violations and mismatches seen, at most `maxExamples` (what, and where to
        /// replay it: the run's seed, the shot's index in it, its game and aim; a bad position's
        /// ball, `-1`, `-2` version 2's, and its record index).
        public var examples: [String] = []
        /// The first of version 1's (`v1Tunnelled`, `v1ThroughWalls`), at most `maxExamples`.
        public var v1Examples: [String] = []
        public static let maxExamples = 10

        /// The first violation or mismatch seen, nil for none.
        public var firstViolation: String? { examples.first }

        public init() {}

        mutating func note(_ example: String, v1: Bool = false) {
            if v1 {
                if v1Examples.count < Self.maxExamples { v1Examples.append(example) }
            } else if examples.count < Self.maxExamples {
                examples.append(example)
            }
        }

        /// Every violation counted: version 2's own (mismatches apart; version 1's steps, the
        /// bucket's squeezes and runaways by themselves are not).
        public var violations: Int { nonFinite + tunnelled + throughWalls + overLimit + longGames + timeBack }

        /// The two runs' tallies together. The hash is order-dependent (FNV-1a of `a.hash` then
        /// `b.hash`; an empty side leaves the other's as it is), so a run over many levels folds
        /// them from the left in level order, whatever order they were computed in.
        public static func + (a: Self, b: Self) -> Self {
            var r = a
            r.shots += b.shots
            r.steps += b.steps
            r.games += b.games
            r.gamesOver += b.gamesOver
            r.handOffs += b.handOffs
            r.turnedShots += b.turnedShots
            r.checkedShots += b.checkedShots
            r.partlyCheckedShots += b.partlyCheckedShots
            r.positions += b.positions
            r.deepest = max(a.deepest, b.deepest)
            r.nonFinite += b.nonFinite
            r.tunnelled += b.tunnelled
            r.throughWalls += b.throughWalls
            r.v1Tunnelled += b.v1Tunnelled
            r.v1ThroughWalls += b.v1ThroughWalls
            r.squeezed += b.squeezed
            r.runaways += b.runaways
            r.v1Deepest = max(a.v1Deepest, b.v1Deepest)
            r.v1Positions += b.v1Positions
            r.overLimit += b.overLimit
            r.longGames += b.longGames
            r.timeBack += b.timeBack
            r.mismatches += b.mismatches
            if a.shots == 0 {
                r.hash = b.hash
            } else if b.shots > 0 {
                var h = FuzzHash()
                h.add(a.hash)
                h.add(b.hash)
                r.hash = h.value
            }
            r.examples = Array((a.examples + b.examples).prefix(maxExamples))
            r.v1Examples = Array((a.v1Examples + b.v1Examples).prefix(maxExamples))
            return r
        }
    }

    /// How far into an obstacle or beyond a wall a recorded position may be before it counts as
    /// tunnelling: rounding, as the version 2 tests allow (Tests/PegglePhysicsTOITests).
    public static let toiFuzzTolerance = 1e-6

    /// The whole-game fuzz of version 2 (issue 51): `shots` random shots on `level` under `rules`
    /// with `physicsVersion` set to `physics` (`.timeOfImpact`), whole games one after another (game k: seed
    /// `seed + k`, the bucket at a random phase, aims uniform over the legal range, as
    /// `freeFlightFuzz`), so pegs light and go, boards turn, balls split and shots are handed to
    /// version 1's steps as the level's pegs and power make them. Every shot is recorded
    /// (`recordTrajectory`: every ball's position at the cannon or where it came in, at every step
    /// end, version 2's and version 1's, and where version 2's ball left play) and checked:
    /// - finite: every recorded position, bucket x, board angle, lit angle and explosion, the
    ///   result's duration and angle, and after the shot the game's elapsed time, its world's clock,
    ///   the bucket and the board's angle. (The score is an integer: an overflow would trap.)
    ///   Velocities are not seen: no ball is left after a shot.
    /// - no tunnelling, obstacles: every recorded position of every ball taken while the board
    ///   was where the shot found it (all of a shot without a flip; up to the first recorded step
    ///   end at another angle in a shot with one), taken into the board's frame, is at least the
    ///   ball radius less the tolerance from the surface of every block and of every peg still on
    ///   the board after the shot. Those were there, in place, until then (a peg that goes, lit,
    ///   unstuck or zombie, is removed by the shot's end and never comes back; only a flip moves
    ///   pegs; a ball handed to version 1 at a confusement peg is recorded there before the
    ///   board moves). Distance as the version 2 tests measure it: `ObstacleStore.distance` (0
    ///   inside a polygon), a two-vertex polygon as a segment. Not checked: the bucket (it moves),
    ///   pegs that went during the shot, positions once a flip has moved the board.
    /// - no tunnelling, walls: every recorded position (world frame, every shot) is at least the
    ///   ball radius less the tolerance inside each wall the physics has (left, right, top), but
    ///   where the bucket squeezes the ball into the wall (`TOIGameFuzz.squeezed`).
    ///   Both tunnelling checks count version 2's flight (`tunnelled`, `throughWalls`, violations)
    ///   apart from version 1's steps (`v1Tunnelled`, `v1ThroughWalls`: the part of a shot handed
    ///   off, a shot on a turned board; version 1's own behaviour, as `physics: .fixedStep` shows).
    /// - no stuck loop: the shot counts between 1 and `ceil(limit / timeStep)` steps, limit the
    ///   shot time limit or (beat the score) the game's time left if less; a game not over after
    ///   `maxGameShots` shots counts as a long game and is cut.
    /// - time never goes back: the game's elapsed time and its world's clock do not decrease, the
    ///   duration is not negative.
    /// With `compare`, each shot is played again twice from the state before it and must give the
    /// same result and state bit for bit (its trajectory apart): unrecorded on a copy of the game
    /// (a copy shares storage with the original, which has played first), and through
    /// `GameState.outcome(ofShooting:)` (a search's shot: same result and status).
    /// - Parameters:
    ///   - tolerance: how far into an obstacle or beyond a wall a position may be (a negative
    ///     tolerance asks for clearance, which a ball touching anything breaks: the tests use one
    ///     to see that the check can fail).
    ///   - physics: the version the games are played on: `.fixedStep` runs the same games and
    ///     checks on version 1 alone, the baseline to read version 2's counts against.
    public static func toiGameFuzz(level: Level, rules: Rules, seed: UInt64, shots: Int, compare: Bool,
                                   maxGameShots: Int = 1000, tolerance: Double = toiFuzzTolerance,
                                   physics: PhysicsVersion = .timeOfImpact) throws -> TOIGameFuzz {
        var v2 = rules
        v2.physicsVersion = physics
        let fresh = try GameState(level: level, rules: v2, seed: 0)
        let obstacles = GameState.obstacles(level: level, rules: v2)
        let pegCount = level.pegs.count
        let cfg = v2.physics
        let r = cfg.ballRadius, tol = tolerance, h = cfg.timeStep
        let grid = ObstacleGrid(obstacles.map(\.shape), reach: r + abs(tol))
        // A ball beyond the left (right) wall at the bucket's height, outside its left (right)
        // rim, where the rim's outer face is less than a ball's width from that wall: the moving
        // bucket pushes it there (both versions), there is no room for it.
        let bk = v2.bucket
        func bucketSqueezes(_ p: Vec2, bucketX x: Double, left: Bool) -> Bool {
            guard p.y >= bk.top - bk.rimRadius - r - tol, p.y <= bk.top + bk.depth + r + tol else { return false }
            if left {
                let face = x - bk.width / 2 - bk.rimRadius
                return face < 2 * r && p.x < face
            }
            let face = x + bk.width / 2 + bk.rimRadius
            return cfg.boardWidth - face < 2 * r && p.x > face
        }
        var aims = SeededGenerator(seed: seed ^ 0x5EED_7012_F022)
        var out = TOIGameFuzz()
        var hash = FuzzHash()
        var k: UInt64 = 0
        func newGame() -> GameState {
            var s = fresh
            s.reseed(seed &+ k)
            s.placeBucket(phase: aims.nextUnit())
            k += 1
            out.games += 1
            return s
        }
        var game = newGame()
        var shotOfGame = 0
        while out.shots < shots {
            if game.isOver || game.shotsTaken >= maxGameShots {
                if game.isOver {
                    out.gamesOver += 1
                    hash.add(game.status == .won)
                } else {
                    out.longGames += 1
                    out.note("seed \(seed), game \(k - 1): not over after \(maxGameShots) shots")
                }
                game = newGame()
                shotOfGame = 0
            }
            let before = game
            let angle = (aims.nextUnit() * 2 - 1) * v2.maxAim
            var limit = v2.shotTimeLimit
            if let left = before.timeLeft { limit = min(limit, left) }
            let maxSteps = Int((limit / h).rounded(.up))
            let shot = try game.shoot(angle: angle, recordTrajectory: true)
            let after = game
            let t = shot.trajectory ?? Trajectory()
            let n = out.shots
            out.shots += 1
            out.steps += shot.steps
            shotOfGame += 1
            let played: String
            if physics == .fixedStep {
                played = "version 1"
                if before.boardAngle != 0 { out.turnedShots += 1 }
            } else if before.boardAngle != 0 {
                out.turnedShots += 1
                played = "version 1 (turned board)"
            } else if t.paths.contains(where: { $0.ball >= 0 }) {
                // Version 2's paths count down from -1; a path of version 1's world (ids from 0)
                // is a hand-off (TOIGame.swift).
                out.handOffs += 1
                played = "version 2, handed off"
            } else {
                played = "version 2"
            }
            func flag(_ what: String, v1: Bool = false) {
                out.note("seed \(seed), shot \(n) (game \(k - 1) from seed \(seed &+ (k - 1)), its shot \(shotOfGame - 1)), "
                    + "angle \(angle), \(played): \(what)", v1: v1)
            }

            // Finite.
            var finite = shot.duration.isFinite && shot.angle.isFinite && after.elapsed.isFinite && after.world.time.isFinite
                && after.bucket.x.isFinite && after.bucket.direction.isFinite && after.boardAngle.isFinite
            for p in t.paths { for q in p.points where !(q.x.isFinite && q.y.isFinite) { finite = false } }
            for x in t.bucketX + t.boardAngles + t.litAngles where !x.isFinite { finite = false }
            for e in t.explosions where !(e.x.isFinite && e.y.isFinite) { finite = false }
            if !finite {
                out.nonFinite += 1
                flag("a non-finite number")
            }

            // Walls, every position; obstacles, while the board is where the shot found it: up to
            // the first recorded step end at another angle (a flip moving it), all of them if none.
            // Engine 0: positions version 2 flew (its paths count down from -1, TOIGame.swift);
            // engine 1: positions version 1's steps recorded (its world's ball ids, from 0).
            let moved = t.boardAngles.firstIndex { $0 != before.boardAngle } ?? t.boardAngles.count
            var checked = 0, recorded = 0
            var inside: [(depth: Double, at: Vec2, obstacle: Int, ball: Int32, record: Int)?] = [nil, nil]
            var beyond: [(at: Vec2, ball: Int32, record: Int)?] = [nil, nil]
            var squeezed = false
            var runaway = false
            for path in t.paths {
                let engine = path.ball < 0 ? 0 : 1
                // The bucket pushed this ball into a wall and it is not back inside yet.
                var pushedIn = false
                for (m, p) in path.points.enumerated() {
                    recorded += 1
                    // Point m of a path is at record `start + m` (a ball is recorded at every
                    // record from its start until it leaves play).
                    let record = path.start + m
                    if !(abs(p.x - cfg.boardWidth / 2) <= 1.5 * cfg.boardWidth && abs(p.y - cfg.boardHeight / 2) <= 1.5 * cfg.boardHeight) {
                        runaway = true
                    }
                    let left = cfg.leftWall && p.x < r - tol, right = cfg.rightWall && p.x > cfg.boardWidth - r + tol
                    if !(left || right) { pushedIn = false }
                    if left || right || (cfg.topWall && p.y < r - tol) {
                        if (left || right) && record < t.bucketX.count && bucketSqueezes(p, bucketX: t.bucketX[record], left: left) {
                            pushedIn = true
                        }
                        if pushedIn && (left || right) {
                            squeezed = true
                        } else {
                            beyond[engine] = beyond[engine] ?? (p, path.ball, record)
                        }
                    }
                    guard record < moved else { continue }
                    checked += 1
                    if engine == 1 { out.v1Positions += 1 }
                    let local = before.world.localPoint(p)
                    grid.forEachCandidate(local) { j in
                        guard j >= pegCount || !after.pegs[j].isRemoved else { return }
                        let depth = r - Self.surfaceDistance(from: local, to: obstacles[j].shape)
                        if engine == 0 { out.deepest = max(out.deepest, depth) } else { out.v1Deepest = max(out.v1Deepest, depth) }
                        if depth > tol, depth > (inside[engine]?.depth ?? -.infinity) { inside[engine] = (depth, p, j, path.ball, record) }
                    }
                }
            }
            out.positions += checked
            if checked == recorded && moved == t.boardAngles.count && after.boardAngle == before.boardAngle {
                out.checkedShots += 1
            } else if checked > 0 {
                out.partlyCheckedShots += 1
            }
            if squeezed { out.squeezed += 1 }
            if runaway { out.runaways += 1 }
            for engine in 0..<2 {
                let by = engine == 0 ? "version 2's flight" : "version 1's steps"
                if let i = inside[engine] {
                    if engine == 0 { out.tunnelled += 1 } else { out.v1Tunnelled += 1 }
                    let what = i.obstacle < pegCount ? "peg \(i.obstacle) (\(after.pegs[i.obstacle].kind))" : "block \(i.obstacle - pegCount)"
                    flag("\(by): ball \(i.ball) \(i.depth) inside \(what) at (\(i.at.x), \(i.at.y)), record \(i.record) of "
                        + "\(t.bucketX.count)" + (t.paths.count > 1 ? ", \(t.paths.count) paths" : ""), v1: engine == 1)
                }
                if let b = beyond[engine] {
                    if engine == 0 { out.throughWalls += 1 } else { out.v1ThroughWalls += 1 }
                    flag("\(by): ball \(b.ball) beyond a wall at (\(b.at.x), \(b.at.y)), record \(b.record) of \(t.bucketX.count), "
                        + "bucket x \(b.record < t.bucketX.count ? t.bucketX[b.record] : .nan)"
                        + (b.record >= moved ? ", the board turning" : "") + (t.paths.count > 1 ? ", \(t.paths.count) paths" : ""),
                         v1: engine == 1)
                }
            }

            // Stuck loops, time.
            if shot.steps > maxSteps || shot.steps < 1 {
                out.overLimit += 1
                flag("\(shot.steps) steps (limit \(maxSteps))")
            }
            if after.elapsed < before.elapsed || after.world.time < before.world.time || shot.duration < 0 {
                out.timeBack += 1
                flag("time went back: elapsed \(before.elapsed) to \(after.elapsed), world \(before.world.time) to \(after.world.time)")
            }

            // The determinism hash: the shot, its trajectory, the state it left.
            let shotHash = Self.fuzzHash(shot), stateHash = Self.fuzzHash(game)
            hash.add(shotHash)
            hash.add(stateHash)

            if compare {
                var bare = shot
                bare.trajectory = nil
                var again = before
                let replayed = try again.shoot(angle: angle)
                let (searched, status) = try before.outcome(ofShooting: angle)
                let bareHash = Self.fuzzHash(bare)
                if replayed != bare || Self.fuzzHash(replayed) != bareHash || Self.fuzzHash(again) != stateHash
                    || again.pegs != after.pegs || searched != bare || Self.fuzzHash(searched) != bareHash
                    || status != after.status {
                    out.mismatches += 1
                    flag("replay differs")
                }
            }
        }
        out.hash = hash.value
        return out
    }

    /// `ObstacleStore.distance`, but a two-vertex polygon is the distance to its segment (the
    /// store's inside test orients a segment's normals by its centroid, on the segment itself).
    package static func surfaceDistance(from p: Vec2, to shape: Shape) -> Double {
        if case let .polygon(poly) = shape, poly.vertices.count == 2 {
            let a = poly.vertices[0], ab = poly.vertices[1] - a
            let t = min(max((p - a).dot(ab) / ab.lengthSquared, 0), 1)
            return (p - (a + ab * t)).length
        }
        return ObstacleStore.distance(from: p, to: shape)
    }

    /// The bits of a shot's result and trajectory.
    static func fuzzHash(_ s: ShotResult) -> UInt64 {
        var h = FuzzHash()
        h.add(s.angle)
        for c in [s.hits.blue, s.hits.orange, s.hits.green, s.hits.purple, s.hits.zombie, s.hits.confusement, s.points,
                  s.freeBalls, s.caught, s.orangeCleared, s.steps, s.stuckRemovals, s.stuckBalls, s.flips, s.powers] {
            h.add(c)
        }
        h.add(s.duration)
        h.add(s.timedOut)
        h.add(s.trajectory != nil)
        if let t = s.trajectory {
            h.add(t.paths.count)
            for p in t.paths {
                h.add(Int(p.ball))
                h.add(p.start)
                h.add(p.points.count)
                for q in p.points { h.add(q) }
            }
            for list in [t.litPegs, t.litSteps] {
                h.add(list.count)
                for i in list { h.add(i) }
            }
            for list in [t.litAngles, t.bucketX, t.boardAngles] {
                h.add(list.count)
                for x in list { h.add(x) }
            }
            h.add(t.explosions.count)
            for e in t.explosions { h.add(e) }
        }
        return h.value
    }

    /// The bits of a game's state between shots.
    static func fuzzHash(_ s: GameState) -> UInt64 {
        var h = FuzzHash()
        for c in [s.score, s.ballsLeft, s.shotsTaken, s.orangeHit, s.orangeCleared, s.cleanShots, s.chances] { h.add(c) }
        h.add(s.status == .playing ? 0 : s.status == .won ? 1 : 2)
        h.add(s.elapsed)
        h.add(s.world.time)
        h.add(s.bucket.x)
        h.add(s.bucket.direction)
        h.add(s.boardAngle)
        var rng = s.rng
        h.add(rng.next())
        for p in s.pegs {
            h.add(PegKind.allCases.firstIndex(of: p.kind)! * 4 + (p.isLit ? 2 : 0) + (p.isRemoved ? 1 : 0))
        }
        return h.value
    }
}

/// FNV-1a, 64 bits, fed eight bytes at a time little-endian: the same function as the tests'
/// `FNV1a` (Tests/PeggleTestSupport) and `ContentHash.fnv1a64`.
struct FuzzHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ v: UInt64) {
        var v = v
        for _ in 0..<8 {
            value ^= v & 0xff
            value &*= 0x0000_0100_0000_01b3
            v >>= 8
        }
    }
    mutating func add(_ v: Int) { add(UInt64(bitPattern: Int64(v))) }
    mutating func add(_ v: Double) { add(v.bitPattern) }
    mutating func add(_ v: Bool) { add(v ? 1 : 0) }
    mutating func add(_ v: Vec2) {
        add(v.x)
        add(v.y)
    }
}

/// The level's obstacles (board frame) in square cells: each cell lists the obstacles whose
/// bounds, grown by `reach`, overlap it, so a ball centre in the cell can be within `reach` of no
/// other. A point outside every cell is within `reach` of no obstacle.
package struct ObstacleGrid {
    let origin: Vec2
    let size: Double
    let columns: Int, rows: Int
    /// Cell c's obstacles: `items[starts[c]..<starts[c + 1]]`.
    let starts: [Int]
    let items: [Int]

    package init(_ shapes: [Shape], reach: Double, size: Double = 16) {
        self.size = size
        guard !shapes.isEmpty else {
            (origin, columns, rows, starts, items) = (.zero, 0, 0, [0], [])
            return
        }
        let grown = shapes.map { s in
            let b = s.bounds
            return (min: b.min - Vec2(reach, reach), max: b.max + Vec2(reach, reach))
        }
        var lo = grown[0].min, hi = grown[0].max
        for b in grown {
            lo = Vec2(min(lo.x, b.min.x), min(lo.y, b.min.y))
            hi = Vec2(max(hi.x, b.max.x), max(hi.y, b.max.y))
        }
        origin = lo
        let columns = Int(((hi.x - lo.x) / size).rounded(.down)) + 1
        let rows = Int(((hi.y - lo.y) / size).rounded(.down)) + 1
        var lists = [[Int]](repeating: [], count: columns * rows)
        for (j, b) in grown.enumerated() {
            let c0 = Int(((b.min.x - lo.x) / size).rounded(.down)), c1 = Int(((b.max.x - lo.x) / size).rounded(.down))
            let r0 = Int(((b.min.y - lo.y) / size).rounded(.down)), r1 = Int(((b.max.y - lo.y) / size).rounded(.down))
            for row in r0...r1 { for col in c0...c1 { lists[row * columns + col].append(j) } }
        }
        var starts = [0]
        for l in lists { starts.append(starts.last! + l.count) }
        (self.columns, self.rows, self.starts, items) = (columns, rows, starts, lists.flatMap { $0 })
    }

    /// Calls `body` with each obstacle whose grown bounds may hold `p`.
    package func forEachCandidate(_ p: Vec2, _ body: (Int) -> Void) {
        let fx = (p.x - origin.x) / size, fy = (p.y - origin.y) / size
        guard fx >= 0, fy >= 0, fx < Double(columns), fy < Double(rows) else { return }
        let c = Int(fy) * columns + Int(fx)
        for k in starts[c]..<starts[c + 1] { body(items[k]) }
    }
}
