import Foundation
import PeggleAgents
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleTestSupport
import PeggleUtilities
import Testing

/// A network of `AimPolicy`'s shape (features -> hidden -> hidden per row; mean and max pooled
/// through one layer; the mix; the score) with Gaussian weights of the size PyTorch's
/// initialisation gives, from `seed`.
func randomNetwork(hidden: Int, seed: UInt64, board: Bool = true, inputs: Int = AimEncoder.featureCount) -> MLPNetwork {
    var rng = SeededGenerator(seed: seed)
    func layer(_ i: Int, _ o: Int, _ a: MLPNetwork.Activation) -> MLPNetwork.Layer {
        let s = 1 / Double(i).squareRoot()
        return MLPNetwork.Layer(inputs: i, outputs: o, activation: a,
                                weights: (0..<(i * o)).map { _ in Float(rng.nextGaussian() * s) },
                                biases: (0..<o).map { _ in Float(rng.nextGaussian() * 0.1) })
    }
    let rows = [layer(inputs, hidden, .relu), layer(hidden, hidden, .relu)]
    guard board else { return MLPNetwork(rows: rows, score: layer(hidden, 1, .identity), inputs: inputs) }
    return MLPNetwork(rows: rows, pool: [.mean, .max], board: [layer(2 * hidden, hidden, .relu)],
                      mix: layer(hidden, hidden, .relu), score: layer(hidden, 1, .identity), inputs: inputs)
}

/// What `MLPDocument.agent` says of `agent`'s file changed by `mutate` (a JSON object edited as
/// a dictionary), read as "m.json"; "accepted" when it loads.
func policyFileRefusal(of agent: MLPAgent, _ mutate: (inout [String: Any]) -> Void) throws -> String {
    var obj = try #require(JSONSerialization.jsonObject(with: Data(try MLPDocument(agent).json.utf8)) as? [String: Any])
    mutate(&obj)
    let data = try JSONSerialization.data(withJSONObject: obj)
    do {
        _ = try MLPDocument.agent(data, path: "m.json")
        return "accepted"
    } catch {
        return error.description
    }
}

/// The same network in double, one multiply-add at a time: the reference the BLAS forward pass
/// is held to.
func referenceScores(_ n: MLPNetwork, _ x: [Float], bins: Int) -> [Double] {
    func apply(_ l: MLPNetwork.Layer, _ h: [Double], rows: Int, activate: Bool = true) -> [Double] {
        var out = [Double](repeating: 0, count: rows * l.outputs)
        for r in 0..<rows {
            for o in 0..<l.outputs {
                var s = Double(l.biases[o])
                for i in 0..<l.inputs { s += Double(l.weights[o * l.inputs + i]) * h[r * l.inputs + i] }
                out[r * l.outputs + o] = activate && l.activation == .relu ? max(0, s) : s
            }
        }
        return out
    }
    var h = x.map { Double($0) }
    for l in n.rows { h = apply(l, h, rows: bins) }
    if let mix = n.mix {
        let w = n.rows.last!.outputs
        var pooled: [Double] = []
        for p in n.pool {
            for j in 0..<w {
                let column = (0..<bins).map { h[$0 * w + j] }
                pooled.append(p == .mean ? column.reduce(0, +) / Double(bins) : column.max()!)
            }
        }
        for l in n.board { pooled = apply(l, pooled, rows: 1) }
        var z = apply(mix, h, rows: bins, activate: false)
        for r in 0..<bins {
            for j in 0..<mix.outputs {
                z[r * mix.outputs + j] += pooled[j]
                if mix.activation == .relu { z[r * mix.outputs + j] = max(0, z[r * mix.outputs + j]) }
            }
        }
        h = z
    }
    return apply(n.score, h, rows: bins)
}

/// Boards of whole games: each bundled level's start and the states after a few fixed shots.
func decisionStates(_ files: [String] = ["first-steps.json", "fortress.json", "spiral.json", "green-light.json", "zombie-night.json"]) throws -> [GameState] {
    var out: [GameState] = []
    for file in files {
        var g = try GameState(level: try bundledLevel(file), seed: 3)
        for angle in [0.4, -0.9, 0.05, 1.2] where !g.isOver {
            out.append(g)
            _ = try g.shoot(angle: angle)
        }
    }
    return out
}

@Suite struct MLPNetworkTests {
    /// Small dyadic weights on one-hot features over 32 bins: every intermediate value is exact
    /// in float32, so the scores are pinned exactly, board pooling included.
    @Test func aHandMadeNetworkScoresExactly() throws {
        let f = AimEncoder.featureCount
        var pick = [Float](repeating: 0, count: 2 * f)
        pick[0] = 1          // unit 0: the first contact is orange
        pick[f + 6] = 1      // unit 1: the shot touches nothing
        let network = MLPNetwork(
            rows: [.init(inputs: f, outputs: 2, activation: .relu, weights: pick, biases: [0, 0])],
            pool: [.max, .mean],
            board: [.init(inputs: 4, outputs: 2, activation: .identity, weights: [0, 0, 1, 0, 0, 0, 0, 1], biases: [0, 0])],
            mix: .init(inputs: 2, outputs: 2, activation: .relu, weights: [2, 0, 0, 2], biases: [0, 0]),
            score: .init(inputs: 2, outputs: 1, activation: .identity, weights: [1, -1], biases: [0.25]))
        let encoder = AimEncoder(bins: 32)
        let game = try GameState(level: try bundledLevel("first-steps.json"), seed: 0)
        let x = encoder.encode(game)
        let orange = (0..<32).map { x[$0 * f] }, none = (0..<32).map { x[$0 * f + 6] }
        let co = orange.reduce(0, +), cn = none.reduce(0, +)
        #expect(co >= 1 && cn >= 1 && co + cn < 32)  // all three kinds of row occur
        let scores = network.scores(x, bins: 32)
        for b in 0..<32 {
            // relu(2 e + board) with e one-hot and board = (co/32, cn/32), then (1, -1) and 0.25.
            let expected = max(0, 2 * orange[b] + co / 32) - max(0, 2 * none[b] + cn / 32) + 0.25
            #expect(scores[b] == expected, "bin \(b)")
        }
        let agent = MLPAgent(network: network, encoder: encoder)
        let best = try #require(orange.firstIndex(of: 1))
        #expect(agent.bin(features: x) == best)  // the first of the tied orange bins
        var rng = SeededGenerator(seed: 1)
        #expect(agent.choose(game, context: ShotContext(shots: 0, maxShots: 10), rng: &rng) == encoder.angle(bin: best))
        // It aims where the orange is: one shot clears the one-orange level.
        let played = try Episode.play(agent, level: singleOrangeLevel(), seed: 4)
        #expect(played.won && played.shots == 1)
    }

    @Test(arguments: [(16, true), (64, true), (24, false)])
    func theBLASForwardPassIsThePlainComputation(hidden: Int, board: Bool) throws {
        let network = randomNetwork(hidden: hidden, seed: UInt64(hidden), board: board)
        let encoder = AimEncoder(bins: 31)
        var compared = 0
        for game in try decisionStates() {
            let x = encoder.encode(game)
            let ours = network.scores(x, bins: 31), exact = referenceScores(network, x, bins: 31)
            let scale = max(1, exact.map(abs).max()!)
            for b in 0..<31 { #expect(abs(Double(ours[b]) - exact[b]) <= 1e-5 * scale, "bin \(b): \(ours[b]) vs \(exact[b])") }
            #expect(Set(ours).count > 1)  // the bins' rows differ, so must their scores
            compared += 1
        }
        #expect(compared >= 15)
    }

    /// Equal rows score equal bits wherever they sit among the bins (one gemm over the distinct
    /// rows), so an exact tie goes to the lowest bin, as PyTorch's argmax sends it.
    @Test func equalRowsScoreEqualBitsAndAnExactTieGoesToTheLowestBin() throws {
        let network = randomNetwork(hidden: 64, seed: 11)
        let agent = MLPAgent(network: network)
        let f = AimEncoder.featureCount, bins = 31
        var natural = 0
        for game in try decisionStates() {
            var x = agent.encoder.encode(game)
            // The board's own repeats (mirror aims that both fall clear, say) ...
            let row = { (x: [Float], b: Int) in Array(x[(b * f)..<((b + 1) * f)]) }
            let s0 = network.scores(x, bins: bins)
            for a in 0..<bins {
                for b in (a + 1)..<bins where row(x, a) == row(x, b) {
                    #expect(s0[a].bitPattern == s0[b].bitPattern, "bins \(a) and \(b)")
                    natural += 1
                }
            }
            // ... and the best bin's row copied to later bins, inside and at the end of the board.
            let best = agent.bin(features: x)
            for b in [best + 1, 16, 30] where b > best && b < bins {
                for i in 0..<f { x[b * f + i] = x[best * f + i] }
            }
            let s = network.scores(x, bins: bins)
            for b in [best + 1, 16, 30] where b > best && b < bins { #expect(s[b].bitPattern == s[best].bitPattern, "bin \(b) copies \(best)") }
            let top = s.max()!
            #expect(agent.bin(features: x) == s.firstIndex(of: top)!)
        }
        #expect(natural >= 10)  // real boards repeat rows, so the tie rule matters
        // One row on every bin: every score the same, and bin 0 chosen.
        let game = try GameState(level: try bundledLevel("spiral.json"), seed: 1)
        let one = Array(agent.encoder.encode(game)[(7 * f)..<(8 * f)])
        let flat = Array((0..<bins).map { _ in one }.joined())
        #expect(Set(network.scores(flat, bins: bins).map(\.bitPattern)).count == 1)
        #expect(agent.bin(features: flat) == 0)
    }

    /// The agent is a function of the board: the same choice and the same scores, bit for bit,
    /// whichever thread asks and however many ask at once, and it draws nothing from its stream.
    @Test func theSameBoardGivesTheSameAimOnAnyThread() throws {
        let agent = MLPAgent(network: randomNetwork(hidden: 64, seed: 7))
        #expect(agent.choiceIgnoresRandomStream)
        let states = try decisionStates()
        let context = ShotContext(shots: 0, maxShots: 100, sigma: 0.02)
        let alone: [Double] = states.map { g in
            var rng = SeededGenerator(seed: 5)
            let before = rng
            let aim = agent.choose(g, context: context, rng: &rng)
            #expect(rng == before)
            return aim
        }
        let features = states.map { agent.encoder.encode($0) }
        let scores = features.map { agent.network.scores($0, bins: agent.encoder.bins).map(\.bitPattern) }
        #expect(Set(alone).count > 1)
        for threads in [2, 4, 8] {
            let n = states.count * 4
            let together = Parallel.map(n, threads: threads, chunksPerThread: 1) { k -> Double in
                var rng = SeededGenerator(seed: UInt64(k))
                return agent.choose(states[k % states.count], context: context, rng: &rng)
            }
            #expect(together == (0..<n).map { alone[$0 % states.count] }, "\(threads) threads")
            let again = Parallel.map(n, threads: threads, chunksPerThread: 1) { k in
                agent.network.scores(features[k % states.count], bins: agent.encoder.bins).map(\.bitPattern)
            }
            #expect(again == (0..<n).map { scores[$0 % states.count] }, "\(threads) threads")
        }
        // Every game of a level starts from one board, so a rater's shared first choice is the
        // agent's own first choice in each game.
        let prepared = try PreparedLevel(try bundledLevel("spiral.json"))
        let first = Episode.firstChoice(agent, prepared: prepared, sigma: 0.02)
        for seed: UInt64 in 0..<3 {
            #expect(Episode.play(agent, prepared: prepared, seed: seed, sigma: 0.02, firstChoice: first)
                    == Episode.play(agent, prepared: prepared, seed: seed, sigma: 0.02))
        }
    }

    /// What the environment's `aim` observation holds is what the agent reads: choosing on the
    /// observation's rows is choosing on the game the environment plays (the premise of the
    /// Python agreement test, python/tests/test_export.py).
    @Test func choosingOnTheEnvironmentsObservationIsChoosingOnItsGame() throws {
        let agent = MLPAgent(network: randomNetwork(hidden: 32, seed: 3), encoder: AimEncoder(bins: 21))
        var config = EnvConfig(levels: [try bundledLevel("ghost-story.json"), try bundledLevel("zombie-night.json")])
        config.encoder = .aim
        config.action = .discrete
        config.bins = 21
        config.aimNoise = 0.02
        var env = try PeggleEnv(config: config, seed: 1)
        var steps = 0
        for episode in 0..<4 {
            var (obs, _) = try env.reset(seed: UInt64(episode))
            var done = false
            while !done {
                let b = agent.bin(features: obs)
                var rng = SeededGenerator(seed: 0)
                #expect(agent.choose(try #require(env.game), context: ShotContext(shots: steps, maxShots: 100), rng: &rng)
                        == agent.encoder.angle(bin: b))
                #expect(env.angle(for: Double(b)) == agent.encoder.angle(bin: b))
                let out = try env.step(Double(b))
                obs = out.observation
                done = out.terminated || out.truncated
                steps += 1
            }
        }
        #expect(steps >= 20)
    }
}

@Suite struct MLPAgentIdentityTests {
    @Test func identityNamesKindEncoderBinsAndTheNetworksHash() {
        let a = MLPAgent(network: randomNetwork(hidden: 8, seed: 1))
        let b = MLPAgent(network: randomNetwork(hidden: 8, seed: 2))
        #expect(a.kind == .mlp && a.kind.rawValue == "mlp")
        #expect(a.parameters == ["encoder": "aim-v1", "bins": "31", "weights": a.weightsHash])
        #expect(a.label == "mlp(bins=31,encoder=aim-v1,weights=\(a.weightsHash))")
        #expect(a.weightsHash.count == 16 && a.weightsHash != b.weightsHash)
        // The structure is hashed with the numbers: the same numbers arranged otherwise (here
        // the first layer's activation) are another agent.
        let n = a.network, r0 = n.rows[0]
        let other = MLPNetwork(rows: [.init(inputs: r0.inputs, outputs: r0.outputs, activation: .identity, weights: r0.weights,
                                            biases: r0.biases), n.rows[1]],
                               pool: n.pool, board: n.board, mix: n.mix, score: n.score)
        #expect(MLPAgent(network: other).weightsHash != a.weightsHash)
        #expect(n.structure == "rows=20x8:relu,8x8:relu;pool=mean,max;board=16x8:relu;mix=8x8:relu;score=8x1:identity")
        #expect(n.parameterCount == 20 * 8 + 8 + 8 * 8 + 8 + 16 * 8 + 8 + 8 * 8 + 8 + 8 + 1)
    }

    /// The hash is FNV-1a of text the Python exporter writes the same way (peggle_gym.export's
    /// `weights_hash`): pinned on a network small enough to read.
    @Test func theHashIsPinnedOnATinyNetwork() {
        let f = AimEncoder.featureCount
        var w = [Float](repeating: 0, count: f)
        w[0] = 1.5
        w[1] = -0.0
        let n = MLPNetwork(rows: [.init(inputs: f, outputs: 1, activation: .relu, weights: w, biases: [0.25])],
                           score: .init(inputs: 1, outputs: 1, activation: .identity, weights: [2], biases: [-1]))
        #expect(n.structure == "rows=20x1:relu;score=1x1:identity")
        #expect(n.weightsHash == ContentHash.hex("rows=20x1:relu;score=1x1:identity;3fc00000,80000000," + Array(repeating: "0", count: 18).joined(separator: ",")
                                                 + ",3e800000,40000000,bf800000"))
        // What peggle_gym.export.weights_hash computes for the same network (python/tests/test_export.py pins it too).
        #expect(n.weightsHash == "34bd1b04ac1efbb5")
    }
}

@Suite struct MLPPolicyFileTests {
    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mlp-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aWrittenFileLoadsAsTheSameAgentAndPlaysTheSameGames() throws {
        let agent = MLPAgent(network: randomNetwork(hidden: 16, seed: 9), encoder: AimEncoder(bins: 25))
        let path = try write(try MLPDocument(agent).json)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try MLPAgent.load(path: path)
        #expect(loaded.network == agent.network && loaded.encoder == agent.encoder && loaded.label == agent.label)
        let a = try Episode.play(loaded, level: try bundledLevel("spiral.json"), seed: 2, sigma: 0.02)
        #expect(a == (try Episode.play(agent, level: try bundledLevel("spiral.json"), seed: 2, sigma: 0.02)))
        // A network without a board is a file too.
        let plain = MLPAgent(network: randomNetwork(hidden: 8, seed: 1, board: false))
        let text = try MLPDocument(plain).json
        #expect(!text.contains("\"board\"") && !text.contains("\"mix\""))
        #expect(try MLPDocument.agent(Data(text.utf8), path: "p.json").network == plain.network)
    }

    /// The error for a document changed by `mutate` (a JSON object edited as a dictionary).
    func refusal(_ mutate: (inout [String: Any]) -> Void) throws -> String {
        try policyFileRefusal(of: MLPAgent(network: randomNetwork(hidden: 4, seed: 2)), mutate)
    }

    /// Edits `obj[path...]` in place, through nested dictionaries and arrays.
    func edit(_ obj: inout [String: Any], _ path: [Any], _ change: (inout Any) -> Void) {
        func go(_ value: inout Any, _ rest: ArraySlice<Any>) {
            guard let key = rest.first else { change(&value); return }
            if let k = key as? String, var d = value as? [String: Any] {
                var inner: Any = d[k] as Any
                go(&inner, rest.dropFirst())
                d[k] = inner
                value = d
            } else if let i = key as? Int, var a = value as? [Any] {
                go(&a[i], rest.dropFirst())
                value = a
            }
        }
        var root: Any = obj
        go(&root, path[...])
        obj = root as! [String: Any]
    }

    @Test func badFilesAreRefusedNamingTheFileTheFieldAndTheValue() throws {
        func set(_ path: [Any], _ value: Any) throws -> String {
            try refusal { o in edit(&o, path, { $0 = value }) }
        }
        let names = AimEncoder.featureNames
        #expect(try set(["format"], 3) == "m.json: format: 3 is not supported (this build reads formats 1 to 2)")
        #expect(try set(["search"], ["bins": 2, "samples": 2]) == "m.json: format: 1, but search needs format 2 (a format-1 reader would ignore it)")
        #expect(try set(["kind"], "linear") == "m.json: kind: 'linear' is not a network policy (such a file is read by linear:FILE)")
        #expect(try set(["kind"], "tree") == "m.json: kind: 'tree' is not a network policy (such a file is read by no agent of this build)")
        #expect(try set(["encoder", "name"], "objects") == "m.json: encoder: 'objects' version 1; this build reads 'aim' version 1")
        #expect(try set(["encoder", "version"], 2) == "m.json: encoder: 'aim' version 2; this build reads 'aim' version 1")
        var swapped = names
        swapped.swapAt(3, 4)
        #expect(try set(["encoder", "features"], swapped)
                == "m.json: encoder.features[3]: 'first_special', but feature 3 of the 'aim' v1 encoder is 'first_purple' (the network was made for other features, or another order)")
        #expect(try set(["encoder", "features"], Array(names.dropLast()))
                == "m.json: encoder.features: 19 names, but the 'aim' v1 encoder has 20 (\(names.joined(separator: ", ")))")
        #expect(try set(["encoder", "bins"], 1) == "m.json: encoder.bins: 1 (must be 2 to 10000)")
        #expect(try set(["encoder", "max_aim"], 2.0) == "m.json: encoder.max_aim: 2.0 (must be in (0, 1.5] radians)")
        #expect(try set(["network", "rows", 0, "activation"], "tanh")
                == "m.json: network.rows[0].activation: 'tanh' (expected relu or identity)")
        #expect(try set(["network", "rows", 1, "weights", 2, 3], 1e39)
                == "m.json: network.rows[1].weights[2][3]: 1e+39 is outside float32's range")
        #expect(try set(["network", "rows", 1, "weights", 2, 3], "x") == "m.json: field 'network.rows[1].weights[2][3]': expected Double")
        #expect(try set(["network", "rows", 1, "weights", 2], [1.0]) == "m.json: network.rows[1].weights[2]: 1 numbers, but inputs is 4")
        #expect(try set(["network", "rows", 1, "biases"], [0.0]) == "m.json: network.rows[1].biases: 1 numbers, but outputs is 4")
        #expect(try set(["network", "rows", 0, "outputs"], 5000) == "m.json: network.rows[0].outputs: 5000 (must be 1 to 4096)")
        #expect(try set(["network", "rows"], [Any]()) == "m.json: network.rows: empty (at least one layer)")
        #expect(try set(["network", "board", "pool"], ["mean", "min"])
                == "m.json: network.board.pool[1]: 'min' (expected mean or max)")
        #expect(try set(["network", "board", "pool"], ["max"])
                == "m.json: network.board.layers[0].inputs: 8, but the pool gives 1 x 4 = 4")
        #expect(try refusal { o in edit(&o, ["network"], { n in var d = n as! [String: Any]; d.removeValue(forKey: "mix"); n = d }) }
                == "m.json: network.mix: missing (with a board, each row's latent is mixed with the board's)")
        #expect(try refusal { o in edit(&o, ["network"], { n in var d = n as! [String: Any]; d.removeValue(forKey: "board"); n = d }) }
                == "m.json: network.mix: given without network.board (the mix adds the board's latent to each row's)")
        #expect(try refusal { o in o.removeValue(forKey: "network") } == "m.json: missing field 'network'")
        // A number changed after export: the file no longer hashes to what it says.
        let changed = try set(["network", "score", "biases", 0], 0.5)
        #expect(changed.hasPrefix("m.json: weights_hash: '") && changed.contains("but the network as read hashes to"))
        #expect(try set(["weights_hash"], "0000000000000000").contains("weights_hash: '0000000000000000', but"))
    }

    @Test func aLinearPolicyFileNotJSONAndMissingFilesAreNamed() throws {
        #expect(throws: PolicyFileError(path: "Agents/linear.json", message: "kind: 'linear' is not a network policy (such a file is read by linear:FILE)")) {
            try MLPDocument.agent(Repository.data("Agents/linear.json"), path: "Agents/linear.json")
        }
        #expect(throws: PolicyFileError(path: "bad.json", message: "not valid JSON (a network policy file is one JSON object; see docs/agents.md)")) {
            try MLPDocument.agent(Data("{\"format\": 1, \"network\": [".utf8), path: "bad.json")
        }
        #expect(throws: PolicyFileError(path: "/no/such/mlp.json", message: "no such file")) { try MLPAgent.load(path: "/no/such/mlp.json") }
        let dir = FileManager.default.temporaryDirectory.path
        #expect(throws: PolicyFileError(path: dir, message: "is a directory, not a policy file")) { try MLPAgent.load(path: dir) }
    }
}

/// Format 2: the level's mode appended to every row, and a search that simulates the network's
/// best bins with greedy's valuation.
@Suite struct MLPExtrasAndSearchTests {
    static let width = AimEncoder.featureCount + RowExtra.modeOneHot.width

    @Test func theModeOneHotIsAppendedToEveryRowTheNetworkReads() throws {
        #expect(RowExtra.modeOneHot.width == 3)
        let agent = MLPAgent(network: randomNetwork(hidden: 16, seed: 4, inputs: Self.width), extras: [.modeOneHot])
        let plain = MLPAgent(network: randomNetwork(hidden: 16, seed: 4))
        for (file, hot) in [("first-steps.json", [Float(1), 0, 0]), ("score-rush.json", [0, 1, 0]), ("gauntlet.json", [0, 0, 1])] {
            let game = try GameState(level: try bundledLevel(file), seed: 0)
            let x = agent.inputs(game), board = agent.encoder.encode(game), f = AimEncoder.featureCount
            #expect(x.count == 31 * Self.width)
            for b in [0, 15, 30] {
                #expect(Array(x[(b * Self.width)..<(b * Self.width + f)]) == Array(board[(b * f)..<((b + 1) * f)]), "\(file) bin \(b)")
                #expect(Array(x[(b * Self.width + f)..<((b + 1) * Self.width)]) == hot, "\(file) bin \(b)")
            }
            var rng = SeededGenerator(seed: 0)
            #expect(agent.choose(game, context: ShotContext(shots: 0, maxShots: 100), rng: &rng) == agent.encoder.angle(bin: agent.bin(features: x)))
            #expect(plain.inputs(game) == board)
        }
        #expect(agent.parameters["extras"] == "mode_one_hot" && plain.parameters["extras"] == nil)
    }

    @Test func theSearchFiresTheBestSimulatedOfTheNetworksBestBins() throws {
        let network = randomNetwork(hidden: 16, seed: 11)
        let greedyOnAll = MLPAgent(network: network, search: MLPSearch(bins: 31, samples: 1))
        let one = MLPAgent(network: network, search: MLPSearch(bins: 1, samples: 4))
        let plain = MLPAgent(network: network)
        let context = ShotContext(shots: 0, maxShots: 100, sigma: 0)
        var differs = 0
        for file in ["first-steps.json", "spiral.json", "fortress.json", "gauntlet.json", "score-rush.json"] {
            let game = try GameState(level: try bundledLevel(file), seed: 0)
            var rng = SeededGenerator(seed: 0)
            // One proposal: the network's own choice, whatever the simulation says of it.
            #expect(one.choose(game, context: context, rng: &rng) == plain.choose(game, context: context, rng: &rng))
            // Every bin proposed, at sigma 0: the bin whose shot greedy's ShotValue rates best,
            // the nearest straight down on a tie.
            let angles = (0..<31).map { plain.encoder.angle(bin: $0) }
            let values = angles.map { GreedyAgent.value(of: $0, on: game) }
            let best = values.max()!
            let ties: [Double] = angles.indices.filter { values[$0] == best }.map { angles[$0] }
            let expected = ties.min { (a: Double, b: Double) -> Bool in abs(a) != abs(b) ? abs(a) < abs(b) : a < b }!
            let chosen = greedyOnAll.choose(game, context: context, rng: &rng)
            #expect(chosen == expected, "\(file)")
            if chosen != plain.choose(game, context: context, rng: &rng) { differs += 1 }
        }
        #expect(differs >= 3)  // a random network is a poor judge; the search is not
        #expect(greedyOnAll.parameters["search"] == "31x1")
    }

    @Test func underNoiseEachProposalIsValuedOnGreedysOffsets() throws {
        let network = randomNetwork(hidden: 16, seed: 5)
        let agent = MLPAgent(network: network, search: MLPSearch(bins: 4, samples: 4))
        let game = try GameState(level: try bundledLevel("spiral.json"), seed: 3)
        let top = MLPAgent.topBins(network.scores(agent.inputs(game), bins: 31), count: 4)
        let angles = top.map { agent.encoder.angle(bin: $0) }
        let z = GreedyAgent(noiseSamples: 4).noiseOffsets
        let values = angles.map { a in z.map { GreedyAgent.value(of: min(max(a + 0.05 * $0, -1.5), 1.5), on: game) }.reduce(0, +) / 4 }
        var rng = SeededGenerator(seed: 0)
        #expect(agent.choose(game, context: ShotContext(shots: 0, maxShots: 100, sigma: 0.05), rng: &rng)
                == GreedyAgent.best(Array(zip(angles, values))).angle)
    }

    @Test func topBinsRankByScoreThenBinAndPutNaNLast() {
        #expect(MLPAgent.topBins([0.5, 2, .nan, 2, -1], count: 5) == [1, 3, 0, 4, 2])
        #expect(MLPAgent.topBins([0.5, 2, .nan, 2, -1], count: 2) == [1, 3])
    }

    @Test func aFormat2FileRoundTripsAndItsFieldsAreChecked() throws {
        let agent = MLPAgent(network: randomNetwork(hidden: 8, seed: 6, inputs: Self.width), extras: [.modeOneHot],
                             search: MLPSearch(bins: 8, samples: 4))
        let text = try MLPDocument(agent).json
        #expect(text.contains("\"format\" : 2") && text.contains("\"row_extras\" : [\n    \"mode_one_hot\"\n  ]"))
        let loaded = try MLPDocument.agent(Data(text.utf8), path: "m.json")
        #expect(loaded.network == agent.network && loaded.extras == [.modeOneHot] && loaded.search == MLPSearch(bins: 8, samples: 4))
        #expect(loaded.label == agent.label)
        #expect(try !MLPDocument(MLPAgent(network: randomNetwork(hidden: 8, seed: 6))).json.contains("row_extras"))
        func refusal(_ change: (inout [String: Any]) -> Void) throws -> String { try policyFileRefusal(of: agent, change) }
        #expect(try refusal { $0["row_extras"] = ["mode_one_hot", "level_seed"] }
                == "m.json: row_extras[1]: 'level_seed' (expected mode_one_hot)")
        #expect(try refusal { $0["row_extras"] = ["mode_one_hot", "mode_one_hot"] } == "m.json: row_extras[1]: 'mode_one_hot' is named twice")
        #expect(try refusal { $0["row_extras"] = [String]() }
                == "m.json: network.rows[0].inputs: 23, but the 'aim' encoder's rows have 20 features")
        #expect(try refusal { $0["search"] = ["bins": 0, "samples": 4] } == "m.json: search.bins: 0 (must be 1 to encoder.bins, 31)")
        #expect(try refusal { $0["search"] = ["bins": 32, "samples": 4] } == "m.json: search.bins: 32 (must be 1 to encoder.bins, 31)")
        #expect(try refusal { $0["search"] = ["bins": 8, "samples": 0] } == "m.json: search.samples: 0 (must be 1 to 1000)")
        #expect(try refusal { $0["format"] = 1 } == "m.json: format: 1, but row_extras needs format 2 (a format-1 reader would ignore it)")
        let narrow = MLPAgent(network: randomNetwork(hidden: 8, seed: 6))
        var obj = try #require(JSONSerialization.jsonObject(with: Data(try MLPDocument(narrow).json.utf8)) as? [String: Any])
        obj["format"] = 2
        obj["row_extras"] = ["mode_one_hot"]
        #expect(throws: PolicyFileError(path: "n.json", message: "network.rows[0].inputs: 20, but the 'aim' encoder's rows have 20 features and row_extras add 3")) {
            try MLPDocument.agent(try JSONSerialization.data(withJSONObject: obj), path: "n.json")
        }
    }
}

/// `Agents/mlp.json`: greedy cloned on the aim rows and the level's mode, with its 8x4 search
/// (docs/agents.md, "Network policies", has its commands and figures).
@Suite struct ShippedMLPPolicyTests {
    @Test func theShippedPolicyLoadsAsExported() throws {
        let agent = try MLPAgent.load(path: Repository.url("Agents/mlp.json").path)
        #expect(agent.encoder == AimEncoder(bins: 31))
        #expect(agent.network.structure == "rows=23x64:relu,64x64:relu;pool=mean,max;board=128x64:relu;mix=64x64:relu;score=64x1:identity")
        #expect(agent.network.parameterCount == 18_177)
        #expect(agent.weightsHash == "f4deb3852923a950")
        #expect(agent.extras == [.modeOneHot] && agent.search == MLPSearch(bins: 8, samples: 4))
        #expect(try AgentFactory.make(AgentSpec("mlp:" + Repository.url("Agents/mlp.json").path)).label == agent.label)
    }
}
