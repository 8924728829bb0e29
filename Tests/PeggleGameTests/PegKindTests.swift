import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import Testing

/// Each peg kind and each power in a small scenario of its own.
@Suite("Peg kinds and powers")
struct PegKindTests {
    /// Far corner orange peg: keeps a classic level valid without getting in the way.
    static let spare = peg(90, .orange, 60, 500)

    @Test func bluePegScoresTenAndIsRemoved() throws {
        let level = makeLevel(pegs: [peg(1, .blue, 405, 300), Self.spare])
        var state = try game(level)
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        #expect(r.lit == [0])
        #expect(r.hits.blue == 1 && r.hits.total == 1)
        #expect(r.points == 10)
        #expect(state.score == 10)
        #expect(state.pegs[0].isRemoved && state.pegs[0].isLit)
        #expect(!state.pegs[1].isRemoved && !state.pegs[1].isLit)
        #expect(state.status == .playing)
        #expect(state.ballsLeft == 9 + r.freeBalls)
        // The removed peg is gone from the physics too: the same shot now passes through.
        let again = try state.shoot(angle: 0, recordTrajectory: true)
        #expect(again.hits.total == 0)
        #expect(closestApproach(again, to: Vec2(405, 300)) < 20, "the ball should pass where the peg was")
    }

    @Test func orangePegScoresAHundredAndClearingThemWinsClassic() throws {
        let level = makeLevel(pegs: [peg(1, .orange, 405, 300), peg(2, .blue, 700, 150)])
        var state = try game(level)
        #expect(state.orangeRemaining == 1)
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        #expect(r.lit.first == 0)
        #expect(r.hits.orange == 1)
        #expect(r.orangeCleared == 1)
        // The one orange peg was hit at x1; anything after it scores at x10 (1 of 1 orange).
        #expect(r.points == 100 + 10 * 10 * r.hits.blue)
        #expect(state.orangeRemaining == 0)
        #expect(state.status == .won)
        #expect(state.isOver)
    }

    // MARK: Green pegs and powers

    /// Kaboom layout: G1 under the cannon; B1 and G2 within the blast of G1; B2 within the blast
    /// of G2 only; B3 exactly at the blast's edge (surface 48 from G1's centre); F just outside it.
    static var kaboom: Level {
        let c = 60.5 * (3.0.squareRoot() / 2)
        return makeLevel(power: .kaboom, pegs: [
            peg(1, .green, 405, 250),  // 0: G1
            peg(2, .blue, 405, 290),  // 1: B1, surface 28 from G1
            peg(3, .green, 360, 250),  // 2: G2, surface 33 from G1
            peg(4, .blue, 315, 250),  // 3: B2, surface 78 from G1, 33 from G2
            peg(5, .blue, 465, 250),  // 4: B3, surface exactly 48 from G1
            peg(6, .blue, 405 + c, 250 - 60.5 / 2),  // 5: F, surface 48.5 from G1
            Self.spare,  // 6
        ])
    }

    @Test func kaboomLightsPegsWithinTheRadiusAndChainsThroughGreen() throws {
        let level = Self.kaboom
        let f = level.pegs[5].center
        let trial = try #require(scan(try game(level), aims(-0.05...0.05, count: 21)) { t in
            t.result.lit.first == 0 && closestApproach(t.result, to: f) > 23
        }, "no aim hits G1 first and keeps away from F")
        let r = trial.result
        // G1, then its blast in index order (B1, G2, B3), then G2's blast (B2).
        #expect(Array(r.lit.prefix(5)) == [0, 1, 2, 4, 3])
        #expect(!r.lit.contains(5), "F is outside the blast and the ball never touched it")
        #expect(r.powers == 2)
        #expect(r.trajectory?.explosions == [level.pegs[0].center, level.pegs[2].center])
        #expect(r.hits.green == 2)
        for i in [0, 1, 2, 3, 4] { #expect(trial.after.pegs[i].isRemoved) }
        #expect(!trial.after.pegs[5].isRemoved)
    }

    @Test func withoutKaboomAGreenPegLightsOnlyItself() throws {
        var level = Self.kaboom
        level.power = .none
        let trial = try #require(scan(try game(level), aims(-0.05...0.05, count: 21)) { t in
            t.result.lit.first == 0
        })
        #expect(trial.result.powers == trial.result.hits.green, "every green peg hit fires (nothing, here)")
        #expect(trial.result.trajectory?.explosions == [])
        #expect(trial.result.paths.count == 1)
        // Whatever else lit was touched by the ball.
        for i in trial.result.lit {
            #expect(closestApproach(trial.result, to: level.pegs[i].center) < 23.5, "peg \(i) lit without a touch")
        }
    }

    static func green(_ power: Power) -> Level {
        makeLevel(power: power, pegs: [peg(1, .green, 405, 300), Self.spare])
    }

    @Test func spookyBallReentersAtTheTopOnce() throws {
        let plain = try game(Self.green(.none))
        let angles = aims(-0.08...0.08, count: 33)
        // An aim whose plain shot hits the green peg and falls out (not caught, not timed out).
        let base = try #require(scan(plain, angles) { t in
            t.result.lit.first == 0 && t.result.caught == 0 && !t.result.timedOut
        })
        var spooky = try game(Self.green(.spooky))
        let r = try spooky.shoot(angle: base.angle, recordTrajectory: true)
        #expect(r.powers == 1)
        try #require(r.paths.count == 2, "the spooky ball should re-enter once: \(r.paths.count) paths")
        let first = r.paths[0].points, second = r.paths[1].points
        // Same steps as the plain shot up to the fall, then a second flight from the top.
        #expect(first == base.result.paths[0].points)
        #expect(r.steps > base.result.steps)
        let entry = try #require(second.first)
        #expect(abs(entry.y - 11) < 1e-6, "re-entry at the top: \(entry)")
        let lastX = try #require(first.last).x
        #expect(abs(entry.x - lastX) < 15, "re-entry at the same x: \(entry.x) vs \(lastX)")
        // It falls in from the top: downward velocity.
        #expect(second.count > 1 && second[1].y > second[0].y)
    }

    @Test func multiballSplitsASecondBallAtTheGreenPeg() throws {
        let plain = try game(Self.green(.none))
        let base = try #require(scan(plain, aims(-0.08...0.08, count: 33)) { $0.result.lit.first == 0 })
        #expect(base.result.paths.count == 1)
        var multi = try game(Self.green(.multiball))
        let r = try multi.shoot(angle: base.angle, recordTrajectory: true)
        #expect(r.powers == 1)
        try #require(r.paths.count == 2, "two balls after the green hit: \(r.paths.count) paths")
        let split = try #require(r.paths[1].points.first)
        // The second ball starts next to the green peg, where the first ball was at the end of
        // the step that touched it; both balls are there at that step, then part ways.
        let a = r.paths[0].points, b = r.paths[1].points
        #expect((split - Vec2(405, 300)).length < 22 + 600.0 / 120.0 * 1.5, "split at \(split)")
        let k = try #require(a.firstIndex(of: split), "the first ball should be at the split point at that step")
        let n = min(b.count, a.count - k, 30)
        try #require(n > 10)
        #expect((a[k + n - 1] - b[n - 1]).length > 20, "the balls should separate")
        #expect(a[k + 1] != b[1])
    }

    // MARK: Purple

    /// Blue pegs in a row on the left, the purple one among them; the right half is empty.
    static var purpleRow: Level {
        var pegs: [Peg] = []
        for k in 0..<8 { pegs.append(peg(k + 1, k == 3 ? .purple : .blue, 60 + Double(k) * 35, 250)) }
        pegs.append(Self.spare)
        return makeLevel(pegs: pegs)
    }

    /// An aim that touches nothing and is not caught, for two shots in a row.
    func missAngle(_ level: Level) throws -> Double {
        let start = try game(level)
        let t = try #require(scan(start, aims(0.3...1.4, count: 111)) { t in
            guard t.result.hits.total == 0, t.result.caught == 0 else { return false }
            var s = t.after
            guard let r2 = try? s.shoot(angle: t.angle) else { return false }
            return r2.hits.total == 0 && r2.caught == 0
        }, "no aim misses everything twice")
        return t.angle
    }

    func purpleIndexAfterTwoMisses(seed: UInt64, angle: Double, level: Level) throws -> Int {
        var state = try game(level, seed: seed)
        _ = try state.shoot(angle: angle)
        #expect(state.pegs[3].kind == .purple, "the purple peg stays put for the first shot")
        _ = try state.shoot(angle: angle)
        let purple = state.pegs.indices.filter { state.pegs[$0].kind == .purple }
        #expect(purple.count == 1)
        #expect(state.pegs.filter { $0.kind == .blue }.count == 7)
        #expect(state.pegs.filter { $0.kind == .orange }.count == 1)
        return purple.first ?? -1
    }

    @Test func purpleRoamsToASeededBluePegEachTurn() throws {
        let level = Self.purpleRow
        let angle = try missAngle(level)
        var places: [Int] = []
        for seed: UInt64 in 1...24 {
            let i = try purpleIndexAfterTwoMisses(seed: seed, angle: angle, level: level)
            #expect(try purpleIndexAfterTwoMisses(seed: seed, angle: angle, level: level) == i, "same seed, same peg")
            #expect((0..<8).contains(i), "purple must land on one of the blue pegs")
            places.append(i)
        }
        #expect(Set(places).count >= 4, "different seeds should move it to different pegs: \(places)")
        #expect(places.contains { $0 != 3 }, "it must move")
    }

    @Test func purpleStaysWhenRoamingIsOff() throws {
        var level = Self.purpleRow
        level.purpleRoams = false
        let angle = try missAngle(level)
        var state = try game(level, seed: 5)
        for _ in 0..<3 { _ = try state.shoot(angle: angle) }
        #expect(state.pegs.map(\.kind) == level.pegs.map(\.kind))
    }

    @Test func aHitPurpleIsReplacedByANewOneNextTurn() throws {
        let level = makeLevel(pegs: [peg(1, .purple, 405, 300), peg(2, .blue, 150, 200), peg(3, .blue, 650, 200),
                                     peg(4, .blue, 150, 400), Self.spare])
        var state = try game(level, seed: 11)
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        try #require(r.lit.first == 0)
        #expect(r.hits.purple == 1)
        #expect(r.points == 500 + 10 * r.hits.blue)
        #expect(state.pegs[0].isRemoved)
        _ = try state.shoot(angle: 1.45)
        let alive = state.pegs.indices.filter { !state.pegs[$0].isRemoved }
        #expect(alive.filter { state.pegs[$0].kind == .purple }.count == 1, "one purple each turn while blue pegs remain")
    }

    // MARK: Zombie and confusement

    @Test func zombiePegBecomesABall() throws {
        let level = makeLevel(pegs: [peg(1, .zombie, 405, 300), Self.spare])
        var state = try game(level)
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        #expect(r.lit.first == 0)
        #expect(r.hits.zombie == 1)
        #expect(r.points == 10 + 100 * r.hits.orange, "zombie 10 at x1, then the spare orange (if hit) at x1")
        try #require(r.paths.count == 2, "the zombie peg should become a second ball")
        let zombie = r.paths[1].points
        #expect((zombie[0] - Vec2(405, 300)).length < 1, "the new ball starts where the peg was: \(zombie[0])")
        #expect(zombie.count > 2 && (zombie[2] - zombie[0]).length > 0.1, "the new ball moves")
        // ...away from the ball that hit it (where that ball was when it came closest).
        let hitter = r.paths[0].points.min { ($0 - zombie[0]).length < ($1 - zombie[0]).length }!
        #expect((zombie[1] - zombie[0]).dot(zombie[0] - hitter) > 0)
        #expect(state.pegs[0].isRemoved)
        // Both balls are tracked by the game: the zombie ball lights pegs too.
        #expect(r.paths.allSatisfy { ($0.points.last?.y ?? 0) > 500 }, "every ball leaves the board")
    }

    /// Confusement under the cannon; a blue peg whose mirror image lies under the cannon.
    static var confusement: Level {
        makeLevel(pegs: [peg(1, .confusement, 405, 300), peg(2, .blue, 395, 480), peg(3, .orange, 150, 200)],
                  blocks: [Block(id: 4, shape: .rectangle, center: Vec2(650, 450), width: 80, height: 20, rotation: 0.3)])
    }

    /// After a shot that lit a confusement peg the board is turned half a turn: every peg is
    /// mirrored through the board centre (400, 300). (Fails while a shot that ends less than
    /// `flipDuration` after the hit leaves the board part-way through its turn.)
    @Test func confusementTurnsTheBoardHalfATurn() throws {
        let level = Self.confusement
        let trial = try #require(scan(try game(level), aims(-0.1...0.1, count: 41)) { $0.result.lit == [0] },
                                 "no aim lights only the confusement peg")
        #expect(trial.result.flips == 1)
        let state = trial.after
        #expect(state.boardAngle == Double.pi,
                "after the shot (\(trial.result.duration) s, aim \(trial.angle)) the board is at \(state.boardAngle) rad")
        for i in level.pegs.indices {
            let designed = level.pegs[i].center
            let now = state.pegCenter(i)
            #expect((now - Vec2(800 - designed.x, 600 - designed.y)).length < 1e-9, "peg \(i) at \(now)")
        }
    }

    @Test func onceTurnedEveryObjectIsMirroredThroughTheCentre() throws {
        let level = Self.confusement
        let trial = try #require(scan(try game(level), aims(-0.1...0.1, count: 41)) { $0.result.lit == [0] })
        // Give the turn time to finish: a shot away from everything, as long as needed.
        let wait = try #require(scan(trial.after, aims(-1.45...(-0.5), count: 39)) { t in
            t.result.hits.total == 0 && t.after.boardAngle == Double.pi
        }, "no waiting shot lets the turn finish without touching a peg")
        var state = wait.after
        #expect(wait.result.flips == 0)
        for i in level.pegs.indices {
            let designed = level.pegs[i].center
            #expect((state.pegCenter(i) - Vec2(800 - designed.x, 600 - designed.y)).length < 1e-9)
        }
        // The physics turned too: the blue peg designed at (395, 480) is now at (405, 120), right
        // under the cannon, and shot 0 hits it first.
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        #expect(r.lit.first == 1)
        #expect(r.flips == 0)
        #expect(state.boardAngle == Double.pi)
        // The block turned with the pegs: a ball never enters its mirrored outline.
        let block = level.blocks[0]
        let mirrored = Block(id: block.id, shape: block.shape, center: Vec2(800, 600) - block.center,
                             width: block.width, height: block.height, rotation: block.rotation + Double.pi)
        for p in r.paths.flatMap(\.points) {
            #expect(ObstacleStore.distance(from: p, to: mirrored.physicsShape) > 9.9)
        }
    }

    /// Whatever the aim, a shot that set off a flip ends with the board turned all the way.
    @Test func theFlipIsCompleteWhenTheShotEnds() throws {
        var flipped = 0
        var unfinished: [String] = []
        for y in [200.0, 350, 500, 530] {
            let level = makeLevel(pegs: [peg(1, .confusement, 405, y), Self.spare])
            for t in scanAll(try game(level), aims(-0.3...0.3, count: 31)) where t.result.flips > 0 {
                flipped += 1
                if t.after.boardAngle != Double.pi {
                    unfinished.append("confusement at y \(y), aim \(t.angle): board at \(t.after.boardAngle) rad after \(t.result.duration) s")
                }
            }
        }
        #expect(flipped > 10)
        #expect(unfinished.isEmpty, "\(unfinished.count) of \(flipped) flipping shots ended mid-turn:\n\(unfinished.joined(separator: "\n"))")
    }

    // MARK: Stuck ball

    /// A brick shelf just below the cannon's clearance: the ball bounces between it and the top
    /// wall, comes to rest on it, and only the stuck-ball rule lets it fall.
    static func shelf(asPeg: Bool) -> Level {
        if asPeg {
            return makeLevel(pegs: [brick(1, .blue, 400, 76, w: 60, h: 12), Self.spare])
        }
        return makeLevel(pegs: [Self.spare],
                         blocks: [Block(id: 2, shape: .rectangle, center: Vec2(400, 76), width: 60, height: 12)])
    }

    @Test func aBallRestingOnLitPegsHasThemRemoved() throws {
        var state = try game(Self.shelf(asPeg: true))
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        #expect(r.lit == [0])
        #expect(r.stuckRemovals == 1)
        #expect(r.stuckBalls == 0)
        #expect(!r.timedOut)
        #expect(r.duration < 12, "the shot should end well before 30 s: \(r.duration) s")
        // The ball then fell through where the shelf was.
        let last = try #require(r.paths.last?.points.last)
        #expect(last.y > 550)
        #expect(state.pegs[0].isRemoved)
        #expect(r.orangeCleared == 0)
    }

    @Test func withoutTheStuckRuleTheShelfHoldsTheBallUntilTheTimeLimit() throws {
        var rules = Rules()
        rules.stuckTime = 1000
        rules.stuckImpacts = 1_000_000
        var state = try game(Self.shelf(asPeg: true), rules: rules)
        let r = try state.shoot(angle: 0)
        #expect(r.timedOut)
        #expect(r.stuckRemovals == 0)
        #expect(abs(r.duration - 30) < 0.01)
        // The lit shelf still goes when the shot ends.
        #expect(state.pegs[0].isRemoved)
        #expect(r.hits.blue == 1)
    }

    /// Steps at which the ball of a shelf shot touched the shelf (lowest points above it), up to
    /// the step it first fell past it.
    func shelfContacts(_ r: ShotResult) -> (contacts: [Int], fell: Int?) {
        let pts = r.paths[0].points
        let fell = pts.firstIndex { $0.y > 100 }
        var contacts: [Int] = []
        for k in 1..<((fell ?? pts.count) - 1) where pts[k].y >= pts[k - 1].y && pts[k].y > pts[k + 1].y {
            contacts.append(k)
        }
        return (contacts, fell)
    }

    @Test func aBallRestingForTwoSecondsIsStuck() throws {
        var state = try game(Self.shelf(asPeg: true))
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        #expect(r.stuckRemovals == 1)
        let pts = r.paths[0].points
        // The ball rests on the shelf's top (y 70) at y 60. From the step the shelf went it only
        // falls. Replaying the rule on the recorded path (points are sampled after each step):
        // the spot moves whenever the ball strays more than 1 unit from it, and the shelf went
        // as soon as the ball had stayed within 1 unit of one spot for 2 s = 240 steps.
        let restEnd = try #require(pts.indices.dropLast().last { pts[$0 + 1].y <= pts[$0].y })
        #expect(abs(pts[restEnd].y - 60) < 0.01)
        var spot = pts[0], since = 0
        for k in 0...restEnd where (pts[k] - spot).length > 1 {
            spot = pts[k]
            since = k
        }
        #expect((239...241).contains(restEnd - since), "stuck after \(restEnd - since) still steps")
        let spread = pts[since...restEnd].map { ($0 - spot).length }.max()!
        #expect(spread <= 1, "the ball strayed \(spread) from its spot before the shelf was removed")
        #expect(pts.last!.y > 600, "after that it falls off the board")
        // It was the resting rule, not the bounce count, that fired.
        #expect(shelfContacts(r).contacts.count < 30)
    }

    @Test func manyBouncesOnOnePegCountAsStuck() throws {
        var rules = Rules()
        rules.stuckImpacts = 3
        var quick = try game(Self.shelf(asPeg: true), rules: rules)
        let fast = try quick.shoot(angle: 0, recordTrajectory: true)
        #expect(fast.stuckRemovals == 1)
        #expect(fast.stuckBalls == 0)
        // The shelf goes at the third bounce: the ball falls past it right after.
        let (contacts, fell) = shelfContacts(fast)
        #expect(contacts.count == 3, "bounces before the shelf went: \(contacts)")
        #expect(fell != nil)
        var normal = try game(Self.shelf(asPeg: true))
        let slow = try normal.shoot(angle: 0)
        #expect(fast.duration < slow.duration)
    }

    @Test func aBallStuckWithNoLitPegIsTakenOut() throws {
        var state = try game(Self.shelf(asPeg: false))
        let r = try state.shoot(angle: 0)
        #expect(r.hits.total == 0)
        #expect(r.stuckRemovals == 0)
        #expect(r.stuckBalls == 1)
        #expect(!r.timedOut)
        #expect(r.duration < 12)
        #expect(state.status == .playing)
    }

    // MARK: Bucket

    @Test func aBallCaughtByTheBucketIsAFreeBall() throws {
        let level = makeLevel(pegs: [peg(1, .orange, 100, 300)])
        let start = try game(level)
        let trial = try #require(scan(start, aims(-0.6...0.6, count: 61)) { $0.result.caught > 0 },
                                 "no aim is caught by the bucket")
        let r = trial.result
        #expect(r.caught == 1)
        #expect(r.hits.total == 0)
        #expect(r.freeBalls == 1)
        #expect(trial.after.ballsLeft == 10, "a caught ball is a free ball")
        #expect(trial.after.status == .playing)
        // Caught at the bucket: the ball's last recorded centre is over the bucket's mouth.
        let last = try #require(r.paths.last?.points.last)
        let bucketX = try #require(r.trajectory?.bucketX.last)
        #expect(abs(last.x - bucketX) < 50)
        #expect(last.y > 540)
        // A missed ball costs one.
        let miss = try #require(scan(start, aims(-0.6...0.6, count: 61)) { $0.result.caught == 0 && $0.result.hits.total == 0 })
        #expect(miss.after.ballsLeft == 9)
    }

    @Test func theBucketMovesSteadilyDuringAndBetweenShots() throws {
        let level = makeLevel(pegs: [peg(1, .orange, 100, 300)])
        var state = try game(level)
        #expect(state.bucket.x == 400 && state.bucket.direction == 1)
        var bucket = KinematicBucket()
        for a in [0.0, 0.9, -0.7] {
            let r = try state.shoot(angle: a, recordTrajectory: true)
            let xs = try #require(r.trajectory?.bucketX)
            #expect(xs.count == r.steps + 1)
            #expect(xs.first == bucket.x, "the bucket carries on from where the last shot left it")
            for _ in 0..<r.steps {
                let next = bucket.advanced(by: 1.0 / 120.0)
                bucket.x = next.x
                bucket.direction = next.direction
            }
            #expect(abs(state.bucket.x - bucket.x) < 1e-6)
            #expect(state.bucket.direction == bucket.direction)
            // 150 units/s is 1.25 units a step, turning inside the travel limits.
            #expect(xs.allSatisfy { $0 >= 60 && $0 <= 740 })
            #expect((1..<xs.count).allSatisfy { abs(xs[$0] - xs[$0 - 1]) <= 1.25 + 1e-9 })
            #expect((1..<xs.count).filter { abs(abs(xs[$0] - xs[$0 - 1]) - 1.25) > 1e-9 }.count <= 1)
        }
    }
}
