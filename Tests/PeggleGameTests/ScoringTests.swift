import Foundation
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import Testing

/// The orange multiplier ladder, shot-score free balls, and points of real shots.
@Suite("Scoring")
struct ScoringTests {
    let rules = Rules()

    @Test(arguments: [
        (0, 1), (1, 1), (5, 1), (9, 1), (10, 2), (14, 2), (15, 3), (18, 3), (19, 5), (21, 5), (22, 10), (25, 10),
    ])
    func multiplierForTwentyFiveOrange(hit: Int, expected: Int) {
        #expect(rules.multiplier(orangeHit: hit, of: 25) == expected)
    }

    @Test func multiplierForOtherTotals() {
        // 10 orange: 40% = 4, 60% = 6, 76% = 7.6, 88% = 8.8.
        #expect((0...10).map { rules.multiplier(orangeHit: $0, of: 10) } == [1, 1, 1, 1, 2, 2, 3, 3, 5, 10, 10])
        // 1 orange: the one hit is 100%.
        #expect(rules.multiplier(orangeHit: 0, of: 1) == 1)
        #expect(rules.multiplier(orangeHit: 1, of: 1) == 10)
        // 5 orange: 2, 3, 3.8, 4.4.
        #expect((0...5).map { rules.multiplier(orangeHit: $0, of: 5) } == [1, 1, 2, 3, 5, 10])
        // 50 orange: exact thresholds 20, 30, 38, 44 (floating-point products must not miss them).
        #expect([19, 20, 29, 30, 37, 38, 43, 44].map { rules.multiplier(orangeHit: $0, of: 50) } == [1, 2, 2, 3, 3, 5, 5, 10])
        // 100 orange.
        #expect([39, 40, 59, 60, 75, 76, 87, 88].map { rules.multiplier(orangeHit: $0, of: 100) } == [1, 2, 2, 3, 3, 5, 5, 10])
        // No orange at all (dodge, beat the score): always 1.
        #expect(rules.multiplier(orangeHit: 0, of: 0) == 1)
    }

    @Test func multiplierNeverDecreasesAsOrangeIsHit() {
        for total in 1...120 {
            var last = 1
            for hit in 0...total {
                let m = rules.multiplier(orangeHit: hit, of: total)
                #expect(m >= last, "total \(total), hit \(hit)")
                #expect([1, 2, 3, 5, 10].contains(m))
                last = m
            }
            #expect(last == 10)
        }
    }

    @Test func freeBallsForShotScore() {
        #expect(rules.freeBalls(forShotPoints: 0) == 0)
        #expect(rules.freeBalls(forShotPoints: 24_999) == 0)
        #expect(rules.freeBalls(forShotPoints: 25_000) == 1)
        #expect(rules.freeBalls(forShotPoints: 74_999) == 1)
        #expect(rules.freeBalls(forShotPoints: 75_000) == 2)
        #expect(rules.freeBalls(forShotPoints: 124_999) == 2)
        #expect(rules.freeBalls(forShotPoints: 125_000) == 3)
        #expect(rules.freeBalls(forShotPoints: 10_000_000) == 3)
    }

    @Test func basePoints() {
        #expect(PegKind.allCases.map { rules.points(for: $0) } == [10, 100, 10, 500, 10, 10])
    }

    /// A cluster with few orange pegs, so the multiplier climbs within one shot.
    static var ladder: Level {
        var pegs: [Peg] = []
        var id = 1
        for row in 0..<6 {
            for col in 0..<9 {
                let x = 240 + Double(col) * 40 + (row % 2 == 0 ? 0 : 20)
                let y = 180 + Double(row) * 50
                let kind: PegKind = [(1, 2), (2, 5), (3, 3), (4, 6)].contains { $0 == (row, col) } ? .orange : .blue
                pegs.append(peg(id, kind, x, y))
                id += 1
            }
        }
        return Level(name: "Ladder", mode: .classic(balls: 10), pegs: pegs)
    }

    /// Replays a shot's lit pegs through the rules: base x multiplier in force at each touch.
    func expectedPoints(_ lit: [Int], kinds: (Int) -> PegKind, orangeHitBefore: Int, total: Int) -> Int {
        var orange = orangeHitBefore, sum = 0
        for i in lit {
            let kind = kinds(i)
            sum += rules.points(for: kind) * rules.multiplier(orangeHit: orange, of: total)
            if kind == .orange { orange += 1 }
        }
        return sum
    }

    @Test func aShotScoresBaseTimesMultiplierInOrder() throws {
        let start = try game(Self.ladder)
        // A shot that lights at least two orange pegs and something after the second, so the
        // multiplier (x2 from 2 of 4 orange) changes within the shot.
        let trial = try #require(scan(start, aims(-0.5...0.5, count: 201)) { t in
            let lit = t.result.lit
            let oranges = lit.indices.filter { Self.ladder.pegs[lit[$0]].kind == .orange }
            return oranges.count >= 2 && oranges[1] < lit.count - 1
        }, "no aim lights two orange pegs and then more")
        let r = trial.result
        let expected = expectedPoints(r.lit, kinds: { Self.ladder.pegs[$0].kind }, orangeHitBefore: 0, total: 4)
        #expect(r.points == expected)
        // Scoring everything at x1 would be less: the multiplier did rise within the shot.
        #expect(r.points > r.lit.map { rules.points(for: Self.ladder.pegs[$0].kind) }.reduce(0, +))
        #expect(trial.after.score == r.points)
        // Hit counts match the lit list.
        var counts = KindCounts()
        for i in r.lit { counts[Self.ladder.pegs[i].kind] += 1 }
        #expect(r.hits == counts)
        #expect(Set(r.lit).count == r.lit.count, "a peg lit twice in one shot")
        #expect(trial.after.orangeHit == counts.orange)
        // Everything lit is removed at the end of the shot, nothing else.
        for i in Self.ladder.pegs.indices {
            #expect(trial.after.pegs[i].isRemoved == r.lit.contains(i))
        }
    }

    @Test func multiplierCarriesAcrossShots() throws {
        var state = try game(Self.ladder, seed: 3)
        var total = 0
        let angles = aims(-0.45...0.45, count: 13)
        for a in angles where !state.isOver {
            let before = state.orangeHit
            let r = try state.shoot(angle: a, recordTrajectory: true)
            let expected = expectedPoints(r.lit, kinds: { state.pegs[$0].kind }, orangeHitBefore: before, total: 4)
            #expect(r.points == expected, "aim \(a)")
            #expect(r.freeBalls == r.caught + rules.freeBalls(forShotPoints: r.points))
            total += r.points
            #expect(state.score == total)
            #expect(state.multiplier == rules.multiplier(orangeHit: state.orangeHit, of: 4))
        }
        #expect(state.shotsTaken > 1)
    }

    @Test func purpleScoresFiveHundredTimesTheMultiplier() throws {
        // Two orange pegs: after one is hit the multiplier is x2 (50% >= 40%).
        let level = makeLevel(pegs: [peg(1, .orange, 150, 300), peg(2, .orange, 700, 300), peg(3, .purple, 405, 250)],
                              purpleRoams: false)
        let start = try game(level)
        let first = try #require(scan(start, aims(-1.0...(-0.1), count: 181)) { t in
            t.result.lit == [0] && t.result.caught == 0
        }, "no aim hits only the first orange peg")
        var state = first.after
        #expect(state.multiplier == 2)
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        try #require(r.lit.first == 2, "shot 0 should hit the purple peg first: \(r.lit)")
        #expect(r.hits.purple == 1)
        #expect(r.points == expectedPoints(r.lit, kinds: { level.pegs[$0].kind }, orangeHitBefore: 1, total: 2))
        if r.lit == [2] { #expect(r.points == 1000) }
    }

    @Test func aBigShotEarnsFreeBalls() throws {
        // Kaboom: a green peg with two arcs of small pegs below it, all within the blast. One
        // explosion lights them in index order: eight orange pegs (the multiplier climbs to x10,
        // 8 of 9 orange) and then six purple pegs at 5,000 each, far past 25,000 in one shot.
        var pegs = [peg(1, .green, 405, 250)]
        var kinds: [PegKind] = Array(repeating: .orange, count: 8) + Array(repeating: .purple, count: 6)
        kinds += Array(repeating: .blue, count: 2)
        var spots: [Vec2] = []
        for k in 0...6 { let a = Double(k) * Double.pi / 6; spots.append(Vec2(405 + 30 * cos(a), 250 + 30 * sin(a))) }
        for k in 0...8 { let a = Double(k) * Double.pi / 8; spots.append(Vec2(405 + 50 * cos(a), 250 + 50 * sin(a))) }
        for (k, p) in spots.enumerated() { pegs.append(peg(k + 2, kinds[k], p.x, p.y, r: 6)) }
        pegs.append(peg(40, .orange, 100, 450))  // left over, so the game goes on
        let level = makeLevel(power: .kaboom, pegs: pegs, purpleRoams: false)
        var state = try game(level)
        let r = try state.shoot(angle: 0, recordTrajectory: true)
        try #require(r.lit.first == 0, "shot 0 should hit the green peg first: \(r.lit)")
        #expect(Array(r.lit.prefix(17)) == Array(0...16), "the blast lights the arcs in index order")
        let expected = expectedPoints(r.lit, kinds: { level.pegs[$0].kind }, orangeHitBefore: 0, total: 9)
        #expect(r.points == expected)
        #expect(r.points >= 30_000)
        #expect(r.freeBalls == r.caught + rules.freeBalls(forShotPoints: r.points))
        #expect(r.freeBalls >= 1)
        #expect(state.status == .playing)
        #expect(state.ballsLeft == 10 - 1 + r.freeBalls)
    }
}
