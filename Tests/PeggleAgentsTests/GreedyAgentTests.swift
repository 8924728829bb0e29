import Foundation
import PeggleAgents
import PeggleGame
import PeggleLevel
import PegglePhysics
import Testing

private func bundled(_ name: String) throws -> Level {
    try LevelCodec.decode(Data(contentsOf: URL(fileURLWithPath: "Levels/\(name).json")))
}

/// A small level: a row of orange pegs under blue ones, so aims differ a lot in value.
private func smallLevel() -> Level {
    var pegs: [Peg] = []
    for i in 0..<6 { pegs.append(Peg(id: i + 1, kind: .orange, center: Vec2(150 + Double(i) * 100, 420))) }
    for i in 0..<5 { pegs.append(Peg(id: i + 10, kind: .blue, center: Vec2(200 + Double(i) * 100, 300))) }
    return Level(name: "Small", mode: .classic(balls: 6), pegs: pegs)
}

@Suite struct GreedyAgentTests {
    @Test func picksTheBestOfItsCandidatesCheckedByBruteForce() throws {
        let game = try GameState(level: smallLevel(), seed: 3)
        let agent = GreedyAgent(candidates: 25, refineRounds: 2, refineCandidates: 4)
        let found = agent.search(game)
        #expect(found.tried.count > 25 && found.tried.count <= 25 + 2 * 4)
        #expect(Set(found.tried.map(\.angle)).count == found.tried.count)  // nothing simulated twice
        // Brute force: every angle it tried, simulated again independently on its own copy.
        var bestBrute = -Double.infinity
        for t in found.tried {
            var copy = game
            let r = try copy.shoot(angle: t.angle)
            let v = ShotValue.of(r, after: copy)
            #expect(v == t.value, "value of \(t.angle) differs from a fresh simulation")
            bestBrute = max(bestBrute, v)
        }
        #expect(found.value == bestBrute)
        #expect(found.tried.contains { $0.angle == found.angle && $0.value == found.value })
        // And a dense sweep of its own coarse grid never beats what refinement settled on.
        for a in agent.coarseAngles(limit: game.rules.maxAim) {
            #expect(GreedyAgent.value(of: a, on: game) <= found.value)
        }
    }

    @Test func underNoiseItMaximisesTheMeanOverTheNoiseOffsets() throws {
        let game = try GameState(level: smallLevel(), seed: 3)
        let agent = GreedyAgent(candidates: 13, refineRounds: 1, refineCandidates: 3, noiseSamples: 5, screen: 0)
        let sigma = 0.05
        let found = agent.search(game, sigma: sigma)
        let offsets = agent.noiseOffsets
        for t in found.tried {
            let mean = offsets.map { z in
                GreedyAgent.value(of: min(max(t.angle + sigma * z, -1.5), 1.5), on: game)
            }.reduce(0, +) / Double(offsets.count)
            #expect(abs(mean - t.value) <= 1e-9 * max(1, abs(mean)))
            #expect(t.value <= found.value)
        }
    }

    @Test func screeningValuesTheKeptCandidatesExactlyAndSimulatesLess() throws {
        let game = try GameState(level: bundled("upside-down"), seed: 2)
        let full = GreedyAgent(candidates: 16, refineRounds: 1, refineCandidates: 4, screen: 0)
        var screened = full
        screened.screen = 4
        let sigma = 0.02
        let a = full.searchCounting(game, sigma: sigma), b = screened.searchCounting(game, sigma: sigma)
        // Unscreened: every candidate on all 8 offsets (two refinement angles fall outside the aim range here).
        #expect(a.tried.count == 18 && a.simulations == 18 * 8)
        // Screened: 16 x 2, the best 4 on 6 more, then the refinement's 4 x 2 and its best 2 on 6
        // more, unless a screened shot decided the game (then the whole round gets all 8).
        #expect(b.simulations < a.simulations)
        // Every candidate it kept has exactly the unscreened value (the mean of its 8 shots).
        let fullValues = Dictionary(a.tried.map { ($0.angle, $0.value) }, uniquingKeysWith: { x, _ in x })
        let coarse = Set(full.coarseAngles(limit: game.rules.maxAim))
        for t in b.tried where coarse.contains(t.angle) { #expect(fullValues[t.angle] == t.value) }
        for t in b.tried { #expect(t.value == full.evaluate(game, [t.angle], sigma: sigma)[0]) }
        #expect(b.tried.filter { coarse.contains($0.angle) }.count == 4)
        // Screening is part of the agent's identity; off, it is not mentioned.
        #expect(screened.label == "greedy(candidates=16,refine=1x4,samples=8,screen=4)")
        #expect(full.label == "greedy(candidates=16,refine=1x4,samples=8)")
        // Without noise there is nothing to screen: the same search.
        #expect(screened.search(game).angle == full.search(game).angle)
    }

    @Test func screeningKeepsEveryCandidateWhenAShotDecidesTheGame() throws {
        // One ball left, one orange peg: every shot wins or loses the game.
        let pegs = [Peg(id: 1, kind: .orange, center: Vec2(400, 300))]
        let game = try GameState(level: Level(name: "Last ball", mode: .classic(balls: 1), pegs: pegs), seed: 0)
        var screened = GreedyAgent(candidates: 12, refineRounds: 0, refineCandidates: 0)
        screened.screen = 4
        let r = screened.searchCounting(game, sigma: 0.05)
        #expect(r.simulations == 12 * 8)
        #expect(r.tried.count == 12)
    }

    @Test func threadCountNeverChangesTheChoice() throws {
        let game = try GameState(level: bundled("fortress"), seed: 9)
        let one = GreedyAgent(candidates: 20, refineRounds: 1, refineCandidates: 4, noiseSamples: 3, threads: 1)
        var three = one
        three.threads = 3
        let a = one.search(game, sigma: 0.02), b = three.search(game, sigma: 0.02)
        #expect(a.angle.bitPattern == b.angle.bitPattern)
        #expect(a.tried.map(\.value.bitPattern) == b.tried.map(\.value.bitPattern))
    }

    @Test func normalQuantilesMatchTables() {
        #expect(abs(NormalQuantile.of(0.975) - 1.959963985) < 1e-8)
        #expect(abs(NormalQuantile.of(0.5)) < 1e-15)
        #expect(abs(NormalQuantile.of(0.01) + 2.326347874) < 1e-8)
        #expect(abs(NormalQuantile.of(0.8413447461) - 1) < 1e-8)
        let offsets = GreedyAgent(noiseSamples: 8).noiseOffsets
        #expect(offsets.count == 8)
        for k in 0..<4 { #expect(abs(offsets[k] + offsets[7 - k]) < 1e-12) }  // symmetric
        #expect(offsets == offsets.sorted())
    }
}

@Suite struct EpisodeTests {
    @Test func anEpisodeIsDeterministicForASeedAndSeedsDiffer() throws {
        let level = try bundled("purple-haze")
        let greedy = GreedyAgent(candidates: 12, refineRounds: 1, refineCandidates: 3, noiseSamples: 2)
        for agent in [greedy as any Agent, RandomAgent()] {
            let a = try Episode.play(agent, level: level, seed: 4, sigma: 0.02)
            let b = try Episode.play(agent, level: level, seed: 4, sigma: 0.02)
            #expect(a == b)
            #expect(a.shots == a.shotLog.count && a.shots > 0)
        }
        let r1 = try Episode.play(RandomAgent(), level: level, seed: 1)
        let r2 = try Episode.play(RandomAgent(), level: level, seed: 2)
        #expect(r1.shotLog.map(\.angle) != r2.shotLog.map(\.angle))
    }

    @Test func aimNoiseIsAddedAndClampedAndAbsentAtSigmaZero() throws {
        let level = try bundled("first-steps")
        let clean = try Episode.play(RandomAgent(), level: level, seed: 7, sigma: 0)
        for s in clean.shotLog { #expect(s.angle == s.chosen) }
        let noisy = try Episode.play(RandomAgent(), level: level, seed: 7, sigma: 0.3)
        // Same seed: the random agent's first choice is the same; the fired angle is not.
        #expect(noisy.shotLog[0].chosen == clean.shotLog[0].chosen)
        #expect(noisy.shotLog[0].angle != noisy.shotLog[0].chosen)
        let wild = try Episode.play(RandomAgent(), level: level, seed: 7, sigma: 1.5)
        #expect(wild.shotLog.allSatisfy { abs($0.angle) <= 1.5 })
        #expect(wild.shotLog.contains { abs($0.angle) == 1.5 })  // clamped, not redrawn
    }

    @Test func classicBookkeepingAddsUp() throws {
        let level = try bundled("springboard")
        let r = try Episode.play(RandomAgent(), level: level, seed: 11)
        #expect(r.orangeCleared == r.shotLog.map(\.orangeCleared).reduce(0, +))
        #expect(r.score == r.shotLog.map(\.points).reduce(0, +))
        // Balls used = shots minus free balls earned.
        #expect(r.ballsUsed == r.shots - r.shotLog.map(\.freeBalls).reduce(0, +))
        #expect(r.won == (r.orangeCleared == r.orangeTotal))
    }

    @Test func greedyClearsMoreOrangeThanRandom() throws {
        let level = try bundled("upside-down")
        let greedy = GreedyAgent(candidates: 24, refineRounds: 1, refineCandidates: 4, noiseSamples: 1)
        var g = 0.0, r = 0.0
        for seed in 0..<6 as Range<UInt64> {
            g += try Episode.play(greedy, level: level, seed: seed, sigma: 0.02).orangeFraction
            r += try Episode.play(RandomAgent(), level: level, seed: seed, sigma: 0.02).orangeFraction
        }
        #expect(g > r + 0.6)  // over 6 games: greedy at least 0.1 a game better on average
    }
}
