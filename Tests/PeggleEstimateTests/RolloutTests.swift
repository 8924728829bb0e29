import Foundation
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleTestSupport
import Testing

/// The rollout features (LevelFeatures versions 4 and 5): short greedy games without noise, and the aim
/// noise a whole game tolerates (`gameSigma`), checked against hand-computed values.
@Suite("The estimate's rollouts")
struct RolloutTests {
    /// One step whose sweep clears an orange only at its own aim, its neighbours 0.06 rad away
    /// missing: the step's cell is (-0.03, 0.03), so a shot clears with probability
    /// erf(0.03 / (sigma sqrt 2)), and two balls are enough on average while that is at least
    /// 1/2: sigma <= 0.03 / (sqrt 2 * erfinv(0.5)) = 0.044478 rad (erfinv(0.5) = 0.476936).
    /// Interpolated between the profile's sigmas (a factor 2^(1/4) apart), so within 2%.
    @Test func theGameToleratesTheNoiseAtWhichItsShotsFitItsBalls() {
        let step = [(offset: -0.06, value: 0.0), (offset: 0, value: 1), (offset: 0.06, value: 0)]
        var r = LevelFeatures.Rollout()
        r.profiles = [step]
        r.clearedPerStep = [1]
        let sigma = LevelFeatures.gameSigma(r, left: 0, balls: 2, fineAims: LevelFeatures.aims)
        #expect(abs(sigma / 0.044478 - 1) < 0.02, "\(sigma)")
        // Two such steps with twice the balls ask the same of each shot.
        r.profiles = [step, step]
        r.clearedPerStep = [1, 1]
        let twice = LevelFeatures.gameSigma(r, left: 0, balls: 4, fineAims: LevelFeatures.aims)
        #expect(abs(twice / sigma - 1) < 1e-12)
        // The oranges the rollout left take the last step's chance each: one step and one left
        // over 4 balls is two steps over 4.
        r.profiles = [step]
        r.clearedPerStep = [1]
        #expect(abs(LevelFeatures.gameSigma(r, left: 1, balls: 4, fineAims: LevelFeatures.aims) / sigma - 1) < 1e-12)
    }

    /// A rollout stuck with an orange left (no aim of the finer sweep clears it) counts that orange
    /// as half an aim of the 49: 98 shots on average, more than 10 balls at any noise, so the
    /// game tolerates the profile's smallest sigma.
    @Test func aStuckRolloutToleratesTheLeastNoise() {
        var r = LevelFeatures.Rollout()
        r.stuck = true
        #expect(LevelFeatures.gameSigma(r, left: 1, balls: 10, fineAims: LevelFeatures.aims) == LevelFeatures.toleranceSigmas[0])
        // With 100 balls, even an aim error as wide as the range finds it in time.
        #expect(LevelFeatures.gameSigma(r, left: 1, balls: 100, fineAims: LevelFeatures.aims) == LevelFeatures.toleranceSigmas.last!)
    }

    /// One orange straight below the cannon: both plans' first shots clear it and win, so each
    /// rollout's pace is one orange in one shot against one orange for each of 10 balls, and its
    /// narrowest window is a run of neighbouring aims of the start's sweep that clear the peg,
    /// 0.06 rad each: a whole number of them, no more than clear it in all.
    @Test func aFirstShotThatWinsEndsTheRollout() throws {
        let p = try PreparedLevel(makeLevel(mode: .classic(balls: 10), pegs: [peg(1, .orange, 400, 300)]))
        let f = Dictionary(uniqueKeysWithValues: zip(LevelFeatures.names, LevelFeatures(p).values))
        let spacing = 2.9 / Double(LevelFeatures.aims - 1)
        var clearing: [Bool] = []
        for k in 0..<LevelFeatures.aims {
            clearing.append(try p.start.outcome(ofShooting: -1.45 + spacing * Double(k)).shot.orangeCleared > 0)
        }
        let clearers = Double(clearing.filter { $0 }.count)
        for plan in ["rollout", "rollout_other"] {
            #expect(f["\(plan)_ln_pace"] == log(10))
            let run = exp(f["\(plan)_ln_width_min"]!) / spacing
            #expect(abs(run - run.rounded()) < 1e-9 && run.rounded() >= 1 && run.rounded() <= clearers, "\(run) of \(clearers)")
            #expect(f["\(plan)_ln_sigma_game"]! > f["\(plan)_ln_width_min"]!)
        }
    }

    /// The pace's shortfall, max(0, 1 - ln pace), in its mode's pair and 0 in the other's. The
    /// orange below the cannon with 10 balls: a pace of ln 10 = 2.30, no shortfall. With 1 ball:
    /// one orange in one shot against one a ball, ln 1 = 0, a shortfall of 1.
    @Test func thePacesShortfallIsItsDistanceBelowOne() throws {
        for (balls, shortfall) in [(10, 0.0), (1, 1.0)] {
            let p = try PreparedLevel(makeLevel(mode: .classic(balls: balls), pegs: [peg(1, .orange, 400, 300)]))
            let f = Dictionary(uniqueKeysWithValues: zip(LevelFeatures.names, LevelFeatures(p).values))
            #expect(f["rollout_ln_pace"] == log(Double(balls)) && f["rollout_other_ln_pace"] == log(Double(balls)))
            #expect(f["classic_rollout_shortfall"] == shortfall && f["classic_rollout_other_shortfall"] == shortfall)
            #expect(f["bts_rollout_shortfall"] == 0 && f["bts_rollout_other_shortfall"] == 0)
        }
    }

    /// Dodge has no rollout: its three features and the shortfalls are 0 for both plans.
    @Test func dodgeHasNoRollout() throws {
        let p = try PreparedLevel(makeLevel(mode: .dodge(shots: 3), pegs: [peg(1, .blue, 400, 300)]))
        let f = Dictionary(uniqueKeysWithValues: zip(LevelFeatures.names, LevelFeatures(p).values))
        for name in LevelFeatures.names where name.hasPrefix("rollout") || name.hasSuffix("shortfall") {
            #expect(f[name] == 0, "\(name)")
        }
    }
}
