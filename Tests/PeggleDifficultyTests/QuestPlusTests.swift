import Foundation
import PeggleDifficulty
import PeggleTestSupport
import Testing

/// The external check of `QuestPlus`: Watson's (2017) Example 1 and 2 and his threshold-and-slope
/// run, as the Python `questplus` package's own tests pin them. The fixture is written by
/// python/tools/questplus_fixtures.py (which checks the package reproduces its tests' sequences).
@Suite struct QuestPlusTests {
    struct Fixture: Decodable {
        struct Run: Decodable {
            struct Trial: Decodable {
                var stimulus: Int
                var correct: Bool
                var expectedEntropy: Double
                var runnerUpGap: Double
            }
            var name: String
            var guess: Double
            var threshold: [Double]
            var slope: [Double]
            var lapse: [Double]
            var stimuli: [Double]
            var trials: [Trial]
            var mode: [String: Double]
            var mean: [String: Double]
        }
        var runs: [Run]
    }

    static let fixture: Fixture = {
        let data = try! Repository.data("Tests/Fixtures/questplus/watson2017.json")
        return try! JSONDecoder().decode(Fixture.self, from: data)
    }()

    struct Cell { var threshold, slope, lapse: Double }

    /// Watson's Weibull in dB: P(correct) = 1 - lapse - (1 - guess - lapse) exp(-10^(slope (x - t) / 20)).
    static func model(_ run: Fixture.Run) -> (QuestPlusModel, [Cell]) {
        // Threshold-major, then slope, then lapse: numpy's C order, so the mode's first-of-equals agrees.
        let cells = run.threshold.flatMap { t in run.slope.flatMap { b in run.lapse.map { Cell(threshold: t, slope: b, lapse: $0) } } }
        let model = QuestPlusModel(stimuli: run.stimuli, cells: cells, outcomes: 2) { x, c in
            let p = 1 - c.lapse - (1 - run.guess - c.lapse) * exp(-pow(10, c.slope * (x - c.threshold) / 20))
            return [p, 1 - p]
        }
        return (model, cells)
    }

    /// Every stimulus QUEST+ chooses, every minimal expected entropy, and the final mode and mean.
    /// Tolerance: the entropies and means are sums over up to 820 cells that numpy adds pairwise
    /// and this code in order, so their last bits differ; 1e-12 relative (some 4,500 ulps) is
    /// rounding only, and smaller than every gap between a choice and its runner-up but two.
    /// Those two (Example 2, trials 95 and 96: stimulus 0 against -1, 8e-15 apart, as the fixture
    /// records) are a genuine difference of the posterior's far tail, and this code picks 0 too.
    @Test(arguments: ["example1", "implementation", "example2"])
    func reproducesWatsonsSequence(_ name: String) throws {
        let run = try #require(Self.fixture.runs.first { $0.name == name })
        let (model, cells) = Self.model(run)
        var q = QuestPlus(model: model)
        var chosen: [Int] = []
        for trial in run.trials {
            let entropies = q.expectedEntropies()
            let s = q.nextStimulus()
            chosen.append(Int(run.stimuli[s]))
            #expect(abs(entropies[s] - trial.expectedEntropy) <= 1e-12 * trial.expectedEntropy, "\(name) trial \(chosen.count)")
            // The stimulus given is Watson's (the fixture was checked against it), so a wrong choice
            // does not derail the rest of the comparison.
            let given = try #require(run.stimuli.firstIndex(of: Double(trial.stimulus)))
            q.update(stimulus: given, outcome: trial.correct ? 0 : 1)
        }
        #expect(chosen == run.trials.map(\.stimulus))
        let mode = cells[q.mode]
        #expect([mode.threshold, mode.slope, mode.lapse] == [run.mode["threshold"], run.mode["slope"], run.mode["lapse"]])
        for (key, value) in [("threshold", { (c: Cell) in c.threshold }), ("slope", { $0.slope }), ("lapse", { $0.lapse })] {
            let expected = try #require(run.mean[key])
            #expect(abs(q.mean { value(cells[$0]) } - expected) <= 1e-12 * abs(expected), "\(name) mean \(key)")
        }
    }

    /// Watson's figures, written out: Example 1 settles on threshold -20 dB; Example 2 on -20, slope
    /// 5, lapse 0.04 (the package's tests assert the same modes).
    @Test func theFixtureHoldsWatsonsAnswers() {
        let runs = Dictionary(uniqueKeysWithValues: Self.fixture.runs.map { ($0.name, $0) })
        #expect(runs["example1"]?.trials.count == 32 && runs["example1"]?.mode["threshold"] == -20)
        #expect(runs["implementation"]?.trials.count == 64 && runs["implementation"]?.mode["slope"] == 3)
        #expect(runs["example2"]?.trials.count == 128 && runs["example2"]?.mode == ["threshold": -20, "slope": 5, "lapse": 0.04])
    }

    /// The fast path for a marginal of consecutive blocks with two outcomes gives the general
    /// sums up to rounding (1e-13 relative), with and without a cutoff.
    @Test func theBlockPathAgreesWithTheGeneralSums() {
        // Threshold x slope cells, the threshold marginal: Example 2's function on a coarser grid.
        let cells = stride(from: -40.0, through: 0, by: 2).flatMap { t in [2.0, 3.5, 5].map { (t, $0) } }
        let model = QuestPlusModel(stimuli: Array(stride(from: -40.0, through: 0, by: 1)), cells: cells, outcomes: 2,
                                   group: { c in Int((c.0 + 40) / 2) }) { x, c in
            let p = 1 - 0.02 - (1 - 0.5 - 0.02) * exp(-pow(10, c.1 * (x - c.0) / 20))
            return [p, 1 - p]
        }
        #expect(model.blockSize == 3)
        var q = QuestPlus(model: model)
        for (s, o) in [(22, 0), (18, 0), (15, 1), (20, 0), (19, 1), (21, 0)] {
            q.update(stimulus: s, outcome: o)
            for cutoff in [0, 1e-6] {
                let fast = q.blockEntropies(candidates: nil, cutoff: cutoff, size: 3)
                let general = q.generalEntropies(candidates: nil, cutoff: cutoff)
                #expect(zip(fast, general).allSatisfy { abs($0 - $1) <= 1e-13 * abs($1) }, "\(fast) \(general)")
            }
        }
    }

    /// A marginal's entropy: with every cell in one group there is nothing to learn, so every
    /// stimulus has expected entropy 0; the expected update by the predicted outcome
    /// probabilities keeps the posterior normalised.
    @Test func groupsAndExpectedUpdates() {
        let model = QuestPlusModel(stimuli: [0.2, 0.5, 0.8], cells: [0.3, 0.6], outcomes: 2, group: { _ in 0 }) { s, c in
            let p = s > c ? 0.9 : 0.1
            return [p, 1 - p]
        }
        var q = QuestPlus(model: model)
        #expect(q.expectedEntropies() == [0, 0, 0])
        let predicted = q.outcomeProbabilities(stimulus: 1)
        #expect(abs(predicted[0] - 0.5) < 1e-15 && abs(predicted[1] - 0.5) < 1e-15)
        q.update(stimulus: 1, expected: predicted)
        // At 0.5 the cells predict 0.9 and 0.1: by symmetry the expected update leaves them equal.
        #expect(abs(q.posterior[0] - 0.5) < 1e-15 && abs(q.posterior[1] - 0.5) < 1e-15)
        q.update(stimulus: 1, outcome: 0)
        #expect(abs(q.posterior[0] - 0.9) < 1e-15 && abs(q.posterior[1] - 0.1) < 1e-15)
    }
}
