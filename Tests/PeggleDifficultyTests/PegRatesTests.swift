import PeggleDifficulty
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import Testing

/// One ball; orange peg 1 in the open under the cannon, orange peg 2 sealed in a box of four
/// blocks (gaps of 1 unit, narrower than the ball), so no shot can reach it.
private let walled = makeLevel("Walled", mode: .classic(balls: 1), pegs: [
    peg(1, .orange, 400, 250),
    peg(2, .orange, 650, 400),
    peg(3, .blue, 200, 450),
], blocks: [
    Block(id: 4, shape: .rectangle, center: Vec2(650, 368), width: 64, height: 8),
    Block(id: 5, shape: .rectangle, center: Vec2(650, 432), width: 64, height: 8),
    Block(id: 6, shape: .rectangle, center: Vec2(613, 400), width: 8, height: 56),
    Block(id: 7, shape: .rectangle, center: Vec2(687, 400), width: 8, height: 56),
])

/// Aims that go straight at peg 1, and away from it.
private let atOpenPeg = 0.01, awayFromIt = 1.3

/// A stored game as the rater stores it: the episode's game seed, every shot at `angle` until
/// the game ends (a bucket catch gives another ball).
private func played(_ prepared: PreparedLevel, seed: UInt64, sigma: Double, angle: Double,
                    label: String = "greedy") -> PlayedGame {
    var game = prepared.newGame(seed: EpisodeSeeds(episode: seed).game)
    var log: [PlayedShot] = []
    while !game.isOver && log.count < 20 {
        let r = try! game.shoot(angle: angle)
        log.append(PlayedShot(index: log.count, chosen: angle, angle: angle, hits: r.hits, points: r.points,
                              freeBalls: r.freeBalls, caught: r.caught, orangeCleared: r.orangeCleared, seconds: r.duration))
    }
    return PlayedGame(levelHash: prepared.hash, levelName: prepared.level.name, agentKind: .greedy, agentLabel: label,
                      seed: seed, sigma: sigma, status: game.status, score: game.score, shots: game.shotsTaken,
                      orangeCleared: game.orangeCleared, orangeTotal: game.orangeTotal, ballsUsed: 1,
                      gameSeconds: game.elapsed, shotLog: log)
}

@Suite struct PegRatesTests {
    @Test("the window is sigma50 within a factor 2 either side: the value, or the bound; none when unknown")
    func window() {
        #expect(PegRates.window(.value(0.02, low: 0.015, high: 0.03)) == 0.01...0.04)
        #expect(PegRates.window(.below(0.001, probability: 0.995)) == 0.0005...0.002)
        #expect(PegRates.window(.above(0.5, probability: 0.975)) == 0.25...1.0)
        #expect(PegRates.window(.unknown) == nil)
    }

    @Test("hand-counted rates: the walled peg is never hit and left in every lost game; other agents and sigmas are not counted")
    func handCounted() throws {
        let prepared = try PreparedLevel(walled)
        let hitting = [(UInt64(1), 0.02), (2, 0.03), (3, 0.01)].map { played(prepared, seed: $0.0, sigma: $0.1, angle: atOpenPeg) }
        let missing = [(UInt64(4), 0.04), (5, 0.015)].map { played(prepared, seed: $0.0, sigma: $0.1, angle: awayFromIt) }
        // What the rates are counted from, checked on the games themselves: every game is lost
        // (peg 2 cannot be reached), peg 1 is cleared by the first three and not by the other two.
        for g in hitting + missing { try #require(g.status == .lost) }
        try #require(hitting.allSatisfy { $0.orangeCleared == 1 } && missing.allSatisfy { $0.orangeCleared == 0 })
        let ignored = [played(prepared, seed: 6, sigma: 0.05, angle: awayFromIt),               // outside the window
                       played(prepared, seed: 7, sigma: 0.005, angle: awayFromIt),              // outside the window
                       played(prepared, seed: 8, sigma: 0.02, angle: awayFromIt, label: "other")] // another agent

        let rates = PegRates.rates(prepared: prepared, levelName: "Walled", agentLabel: "greedy", window: 0.01...0.04,
                                   games: ignored + missing + hitting, threads: 2)
        #expect(rates.games == 5 && rates.gamesLost == 5 && rates.unreplayable == 0)
        #expect(rates.pegs == [
            // Peg 1: hit in 3 of 5 games, so left in 2 of the 5 lost.
            PegRate(pegID: 1, index: 0, x: 400, y: 250, hits: 3, lostWith: 2, hitRate: 0.6, lostWithRate: 0.4),
            PegRate(pegID: 2, index: 1, x: 650, y: 400, hits: 0, lostWith: 5, hitRate: 0, lostWithRate: 1),
        ])
    }

    @Test("a won game counts its hits and is no lost game")
    func wonGames() throws {
        // Without the box's peg: peg 1 alone is orange, and a shot that clears it wins.
        var open = walled
        open.pegs.remove(at: 1)
        let prepared = try PreparedLevel(open)
        let won = played(prepared, seed: 1, sigma: 0.02, angle: atOpenPeg)
        let lost = played(prepared, seed: 2, sigma: 0.02, angle: awayFromIt)
        try #require(won.status == .won && lost.status == .lost)
        let rates = PegRates.rates(prepared: prepared, levelName: "Open", agentLabel: "greedy", window: 0.01...0.04,
                                   games: [won, lost])
        #expect(rates.games == 2 && rates.gamesLost == 1)
        #expect(rates.pegs.map(\.hitRate) == [0.5] && rates.pegs.map(\.lostWithRate) == [1])
    }

    @Test("no games counted: rows without rates")
    func nothingCounted() throws {
        let prepared = try PreparedLevel(walled)
        let rates = PegRates.rates(prepared: prepared, levelName: "Walled", agentLabel: nil, window: nil, games: [])
        #expect(rates.games == 0 && rates.gamesLost == 0)
        #expect(rates.pegs.map(\.pegID) == [1, 2])
        #expect(rates.pegs.allSatisfy { $0.hitRate == nil && $0.lostWithRate == nil })
    }

    @Test("a game that does not replay to its stored outcome is left out and named")
    func unreplayable() throws {
        let prepared = try PreparedLevel(walled)
        var wrong = played(prepared, seed: 1, sigma: 0.02, angle: atOpenPeg)
        wrong.shotLog[0].angle = awayFromIt  // the stored outcome says peg 1 was hit; this aim misses it
        let withoutShots = played(prepared, seed: 2, sigma: 0.02, angle: atOpenPeg).withoutShots
        let rates = PegRates.rates(prepared: prepared, levelName: "Walled", agentLabel: "greedy", window: 0.01...0.04,
                                   games: [wrong, withoutShots])
        #expect(rates.games == 0 && rates.unreplayable == 2)
        #expect(rates.firstUnreplayable == "seed 1 at sigma 0.02: shot 1 replays with another hits")
    }
}
