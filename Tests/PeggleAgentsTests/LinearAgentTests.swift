import Foundation
import PeggleAgents
import PeggleEnv
import PeggleGame
import PeggleLevel
import PegglePhysics
import PeggleTestSupport
import PeggleUtilities
import Testing

/// A bundled level by file name ("first-steps.json").
func bundledLevel(_ file: String) throws -> Level {
    try LevelCodec.decode(Repository.data("Levels/\(file)"))
}

/// One orange peg straight below the cannon: only aims near 0 reach it.
func singleOrangeLevel() -> Level {
    Level(name: "one orange", mode: .classic(balls: 3), pegs: [Peg(id: 1, kind: .orange, center: Vec2(400, 300))])
}

@Suite struct BLASTests {
    @Test func batchScoresEqualAPlainLoop() {
        var rng = SeededGenerator(seed: 11)
        let rows = 137, width = 20, members = 7
        let features = (0..<(rows * width)).map { _ in Float(rng.nextUnit() * 2 - 1) }
        let weights = (0..<(members * width)).map { _ in Float(rng.nextGaussian()) }
        var out = [Float](repeating: .nan, count: rows * members)
        features.withUnsafeBufferPointer { f in
            weights.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { BLAS.scores(features: f, rows: rows, width: width, weights: w, members: members, into: $0) }
            }
        }
        let reference = BLAS.referenceScores(features: features, rows: rows, width: width, weights: weights, members: members)
        for i in out.indices {
            #expect(abs(out[i] - reference[i]) <= 1e-4 * max(1, abs(reference[i])), "entry \(i): \(out[i]) vs \(reference[i])")
        }
    }

    @Test func batchScoresOfEncodedBoardsEqualAPlainLoop() throws {
        let encoder = AimEncoder()
        let game = try GameState(level: try bundledLevel("green-light.json"), seed: 3)
        let features = encoder.encode(game)
        let members = 5, f = AimEncoder.featureCount
        var rng = SeededGenerator(seed: 2)
        let weights = (0..<(members * f)).map { _ in Float(rng.nextGaussian()) }
        var out = [Float](repeating: 0, count: encoder.bins * members)
        features.withUnsafeBufferPointer { fp in
            weights.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { BLAS.scores(features: fp, rows: encoder.bins, width: f, weights: w, members: members, into: $0) }
            }
        }
        let reference = BLAS.referenceScores(features: features, rows: encoder.bins, width: f, weights: weights, members: members)
        #expect(zip(out, reference).allSatisfy { abs($0 - $1) <= 1e-4 * max(1, abs($1)) })
        #expect(Set(out).count > 1)  // the boards differ between bins, so the scores must too
    }
}

@Suite struct AimEncoderTests {
    @Test func featuresAreInTheUnitRangeWithOneFirstContactPerBin() throws {
        let encoder = AimEncoder()
        for file in ["first-steps.json", "fortress.json", "upside-down.json", "spiral.json"] {
            let game = try GameState(level: try bundledLevel(file), seed: 1)
            let x = encoder.encode(game)
            #expect(x.count == encoder.bins * AimEncoder.featureCount)
            #expect(x.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(file)")
            for b in 0..<encoder.bins {
                let firstKinds = x[(b * AimEncoder.featureCount)..<(b * AimEncoder.featureCount + 7)]
                #expect(firstKinds.reduce(0, +) == 1, "\(file) bin \(b): exactly one first-contact one-hot")
            }
        }
    }

    @Test func singleOrangePegIsHitOnlyByAimsNearStraightDown() throws {
        let encoder = AimEncoder()
        let game = try GameState(level: singleOrangeLevel(), seed: 0)
        let x = encoder.encode(game)
        let f = AimEncoder.featureCount
        let hits = (0..<encoder.bins).filter { x[$0 * f] == 1 }
        #expect(hits.contains(encoder.bins / 2))  // straight down (angle 0) hits it
        #expect(!hits.isEmpty && hits.allSatisfy { abs(encoder.angle(bin: $0)) < 0.1 })
        #expect(x[0 * f + 6] == 1)  // the far left bin touches nothing
    }

    /// The trace repeats the physics' steps, so its first contact is the real shot's first peg.
    @Test(arguments: ["first-steps.json", "brick-road.json", "fortress.json", "ghost-story.json", "spiral.json"])
    func predictedFirstPegIsTheRealShotsFirstPeg(file: String) throws {
        let encoder = AimEncoder()
        let game = try GameState(level: try bundledLevel(file), seed: 4)
        let x = encoder.encode(game)
        let f = AimEncoder.featureCount
        var checked = 0, agree = 0
        for b in 0..<encoder.bins {
            let row = Array(x[(b * f)..<((b + 1) * f)])
            guard let k = (0..<5).first(where: { row[$0] == 1 }) else { continue }  // a peg first
            var copy = game
            let r = try copy.shoot(angle: encoder.angle(bin: b), recordTrajectory: true)
            let firstLit = try #require(r.trajectory?.litPegs.first, "\(file) bin \(b): the trace hit a peg, the shot none")
            let kind = game.pegs[firstLit].kind
            let expected: Int = switch kind {
            case .orange: 0
            case .blue: 1
            case .green: 2
            case .purple: 3
            case .zombie, .confusement: 4
            }
            checked += 1
            if expected == k { agree += 1 }
        }
        #expect(checked >= 10)
        // Same kind of first peg on all but at most one grazing bin per level.
        #expect(agree >= checked - 1, "\(file): \(agree) of \(checked) bins agree")
    }
}

@Suite struct LinearAgentTests {
    /// Weights that value only "the first contact is orange".
    var orangeFirst: [Float] {
        var w = [Float](repeating: 0, count: AimEncoder.featureCount)
        w[0] = 1
        return w
    }

    @Test func choosesTheBestScoringBinAndWinsTheOneOrangeLevel() throws {
        let level = singleOrangeLevel()
        let agent = LinearAgent(weights: orangeFirst)
        let r = try Episode.play(agent, level: level, seed: 9)
        #expect(r.won)
        #expect(r.shots == 1)
        // A policy that avoids orange pegs never wins here.
        let avoid = LinearAgent(weights: orangeFirst.map { -$0 })
        #expect(try !Episode.play(avoid, level: level, seed: 9).won)
    }

    @Test func aimsStayInRangeAndAreSeeded() throws {
        let game = try GameState(level: try bundledLevel("spiral.json"), seed: 2)
        var rng = SeededGenerator(seed: 1)
        let weights = (0..<AimEncoder.featureCount).map { _ in Float(rng.nextGaussian()) }
        let agent = LinearAgent(weights: weights)
        let ctx = ShotContext(shots: 0, maxShots: 10)
        var a = SeededGenerator(seed: 5), b = SeededGenerator(seed: 5)
        for _ in 0..<5 {
            let x = agent.choose(game, context: ctx, rng: &a)
            #expect(x == agent.choose(game, context: ctx, rng: &b))
            #expect(abs(x) <= game.rules.maxAim)
        }
    }

    @Test func identityNamesKindEncoderAndWeightsHash() {
        let a = LinearAgent(weights: orangeFirst)
        var other = orangeFirst
        other[3] = 0.5
        let b = LinearAgent(weights: other)
        #expect(a.kind == .linear)
        #expect(a.parameters["encoder"] == "aim-v1")
        #expect(a.parameters["weights"] == a.weightsHash)
        #expect(a.weightsHash.count == 16)
        #expect(a.weightsHash != b.weightsHash)
        #expect(a.label.hasPrefix("linear("))
    }
}

@Suite struct PolicyFileTests {
    func trainedDocument() -> (PolicyDocument, TrainingConfig) {
        var config = TrainingConfig(levels: [singleOrangeLevel()])
        config.iterations = 1
        config.population = 3
        config.episodesPerLevel = 1
        config.curveEpisodesPerLevel = 0
        config.evalEpisodesPerLevel = 1
        var state = Trainer.start(config)
        Trainer.iterate(&state, config)
        let eval = Trainer.finalEvaluation(state, config)
        return (PolicyDocument(config: config, files: ["one.json"], state: state, evaluation: eval), config)
    }

    @Test func savedPolicyLoadsAndPlaysTheSameEpisode() throws {
        let (doc, config) = trainedDocument()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("linear-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("p.json").path
        try (try doc.json).write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try LinearAgent.load(path: path)
        let inMemory = doc.agent
        #expect(inMemory.weights != Trainer.start(config).agent(config).weights)  // trained: moved off the start
        #expect(loaded.weights.map(\.bitPattern) == inMemory.weights.map(\.bitPattern))
        #expect(loaded.weightsHash == doc.weightsHash)
        #expect(loaded.encoder == inMemory.encoder && loaded.jitter == inMemory.jitter)
        for file in ["spiral.json", "last-stand.json"] {
            let level = try bundledLevel(file)
            let a = try Episode.play(loaded, level: level, seed: 21, sigma: 0.02)
            let b = try Episode.play(inMemory, level: level, seed: 21, sigma: 0.02)
            #expect(a == b)
        }
        #expect(try PolicyDocument.decode(Data(try doc.json.utf8), path: path) == doc)
    }

    @Test func anUnfinishedRunLoadsOnlyWhenAskedFor() throws {
        var config = TrainingConfig(levels: [singleOrangeLevel()])
        config.iterations = 2
        config.population = 2
        config.episodesPerLevel = 1
        config.curveEpisodesPerLevel = 0
        var state = Trainer.start(config)
        Trainer.iterate(&state, config)
        let doc = PolicyDocument(config: config, files: ["one.json"], state: state, evaluation: nil)
        #expect(!doc.complete)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("linear-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try (try doc.json).write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: PolicyFileError(path: path, message: "training is not finished (iteration 1 of 2); rerun the same peggle train command to finish it")) {
            try LinearAgent.load(path: path)
        }
        #expect(try LinearAgent.load(path: path, allowIncomplete: true).weights == state.agent(config).weights)
    }

    func decodeError(_ mutate: (inout [String: Any]) -> Void) throws -> String {
        let (doc, _) = trainedDocument()
        var obj = try #require(JSONSerialization.jsonObject(with: Data(try doc.json.utf8)) as? [String: Any])
        mutate(&obj)
        let data = try JSONSerialization.data(withJSONObject: obj)
        do {
            _ = try PolicyDocument.decode(data, path: "w.json")
            return ""
        } catch {
            return error.description
        }
    }

    @Test func refusesAnotherEncoderTheWrongSizeAndCorruptText() throws {
        var message = try decodeError { o in
            var e = o["encoder"] as! [String: Any]
            e["name"] = "objects"
            o["encoder"] = e
        }
        #expect(message.hasPrefix("w.json: ") && message.contains("encoder 'objects'"))
        message = try decodeError { o in o["weights"] = [1.0, 2.0, 3.0] }
        #expect(message.contains("weights: 3 values") && message.contains("\(AimEncoder.featureCount) features"))
        message = try decodeError { o in o.removeValue(forKey: "weights") }
        #expect(message.contains("missing field 'weights'"))
        message = try decodeError { o in o["jitter"] = 2.5 }
        #expect(message.contains("jitter: 2.5"))
        do {
            _ = try PolicyDocument.decode(Data("{\"format\": 1, \"weights\": [".utf8), path: "bad.json")
            Issue.record("corrupt JSON was accepted")
        } catch {
            #expect(error.description == "bad.json: not valid JSON (a linear policy file is one JSON object; see docs/agents.md)")
        }
        #expect(throws: PolicyFileError(path: "/no/such/file.json", message: "no such file")) {
            try LinearAgent.load(path: "/no/such/file.json")
        }
    }
}
