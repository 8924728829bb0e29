import PeggleGame
import PeggleLevel
import PeggleUtilities

/// A small feed-forward ranking network over the `aim` encoder's rows, the network of
/// `peggle_gym.policies.AimPolicy` (PPO's shot ranker): every row (one aim bin) goes through the
/// same dense layers (`rows`); the board is the rows' latents pooled (`pool`: mean and max over
/// the bins) through `board`; each row's latent is then mixed with the board's
/// (`activation(mix(row) + board)`); `score` turns each row into one number. Without a board the
/// rows' latents go straight to `score`. Everything is float32, as the policy trained.
///
/// Every dense layer is one `cblas_sgemm` over the board's distinct rows (`BLAS.scores`, OpenBLAS
/// on one thread), so a network's output is a function of its input alone, on any thread (gemm
/// never splits the sum of one dot product), and equal rows score equal bits.
public struct MLPNetwork: Sendable, Equatable {
    /// What follows a layer's affine map.
    public enum Activation: String, Sendable, CaseIterable {
        case relu, identity
    }

    /// How the rows' latents are summarised into the board's: the mean or the maximum of each
    /// latent over the bins.
    public enum Pool: String, Sendable, CaseIterable {
        case mean, max
    }

    /// `y = activation(W x + b)`, W `outputs x inputs` row-major (PyTorch's `Linear.weight`).
    public struct Layer: Sendable, Equatable {
        public let inputs: Int
        public let outputs: Int
        public let activation: Activation
        /// `outputs * inputs` values, row o holding output o's weights.
        public let weights: [Float]
        /// One per output.
        public let biases: [Float]

        public init(inputs: Int, outputs: Int, activation: Activation, weights: [Float], biases: [Float]) {
            precondition(inputs >= 1 && outputs >= 1 && weights.count == inputs * outputs && biases.count == outputs,
                         "a \(inputs) x \(outputs) layer needs \(inputs * outputs) weights and \(outputs) biases")
            self.inputs = inputs
            self.outputs = outputs
            self.activation = activation
            self.weights = weights
            self.biases = biases
        }

        /// How the structure text writes it: "20x64:relu".
        var text: String { "\(inputs)x\(outputs):\(activation.rawValue)" }

        /// `x W^T + b` for `n` rows of `inputs`, without the activation: one `cblas_sgemm`,
        /// `(n x inputs) · (inputs x outputs)`, then the biases (after the product, as PyTorch's
        /// addmm adds them: sum first, bias second).
        func affine(_ x: [Float], rows n: Int) -> [Float] {
            var out = [Float](repeating: 0, count: n * outputs)
            x.withUnsafeBufferPointer { xp in
                weights.withUnsafeBufferPointer { w in
                    out.withUnsafeMutableBufferPointer { o in
                        BLAS.scores(features: xp, rows: n, width: inputs, weights: w, members: outputs, into: o)
                    }
                }
            }
            for r in 0..<n {
                for j in 0..<outputs { out[r * outputs + j] += biases[j] }
            }
            return out
        }

        func activate(_ x: inout [Float]) {
            switch activation {
            case .identity: break
            case .relu:
                // `max(0, x)` would keep a NaN; a NaN score never wins either way (`bestBin`).
                for i in x.indices where x[i] < 0 { x[i] = 0 }
            }
        }

        /// `activation(x W^T + b)` for `n` rows.
        func apply(_ x: [Float], rows n: Int) -> [Float] {
            var out = affine(x, rows: n)
            activate(&out)
            return out
        }
    }

    /// Applied to every row, in order; the first takes a row's inputs (`inputs`).
    public let rows: [Layer]
    /// The board's summary of the rows' latents, in order (concatenated); empty: no board.
    public let pool: [Pool]
    /// Applied to the pooled vector, in order; the last has `mix.outputs` outputs.
    public let board: [Layer]
    /// Each row's latent after `rows`, plus the board's, before `mix.activation`; nil exactly
    /// when there is no board.
    public let mix: Layer?
    /// One output: the row's score.
    public let score: Layer

    /// Checks the shapes chain for rows of `inputs` numbers (`problem` says why not; a file's
    /// loader reports it).
    public init(rows: [Layer], pool: [Pool] = [], board: [Layer] = [], mix: Layer? = nil, score: Layer,
                inputs: Int = AimEncoder.featureCount) {
        self.rows = rows
        self.pool = pool
        self.board = board
        self.mix = mix
        self.score = score
        if let problem = Self.problem(rows: rows, pool: pool, board: board, mix: mix, score: score, inputs: inputs) {
            preconditionFailure(problem)
        }
    }

    /// A row's inputs: the first layer's.
    public var inputs: Int { rows[0].inputs }

    /// Why these layers do not make a ranking network over rows of `inputs` numbers (the
    /// `aim` encoder's features, then any `RowExtra`s), as "field: problem" with the
    /// document's field names; nil when they do.
    static func problem(rows: [Layer], pool: [Pool], board: [Layer], mix: Layer?, score: Layer,
                        inputs: Int = AimEncoder.featureCount) -> String? {
        guard let first = rows.first else { return "network.rows: empty (at least one layer)" }
        if first.inputs != inputs {
            let extra = inputs - AimEncoder.featureCount
            return "network.rows[0].inputs: \(first.inputs), but the '\(AimEncoder.name)' encoder's rows have \(AimEncoder.featureCount) features"
                + (extra > 0 ? " and row_extras add \(extra)" : "")
        }
        for (k, pair) in zip(rows, rows.dropFirst()).enumerated() where pair.1.inputs != pair.0.outputs {
            return "network.rows[\(k + 1)].inputs: \(pair.1.inputs), but network.rows[\(k)] has \(pair.0.outputs) outputs"
        }
        let latent = rows.last!.outputs
        var scored = latent
        switch (pool.isEmpty, mix) {
        case (true, nil):
            if !board.isEmpty { return "network.board: layers without a pool" }
        case (true, .some):
            return "network.mix: given without network.board (the mix adds the board's latent to each row's)"
        case (false, nil):
            return "network.mix: missing (with a board, each row's latent is mixed with the board's)"
        case let (false, mix?):
            if Set(pool).count != pool.count { return "network.board.pool: [\(pool.map(\.rawValue).joined(separator: ", "))] names one twice" }
            guard let b0 = board.first else { return "network.board.layers: empty (at least one layer)" }
            if b0.inputs != pool.count * latent {
                return "network.board.layers[0].inputs: \(b0.inputs), but the pool gives \(pool.count) x \(latent) = \(pool.count * latent)"
            }
            for (k, pair) in zip(board, board.dropFirst()).enumerated() where pair.1.inputs != pair.0.outputs {
                return "network.board.layers[\(k + 1)].inputs: \(pair.1.inputs), but network.board.layers[\(k)] has \(pair.0.outputs) outputs"
            }
            if mix.inputs != latent { return "network.mix.inputs: \(mix.inputs), but network.rows end with \(latent) outputs" }
            if board.last!.outputs != mix.outputs {
                return "network.mix.outputs: \(mix.outputs), but the board's last layer has \(board.last!.outputs) outputs (they are added)"
            }
            scored = mix.outputs
        }
        if score.inputs != scored { return "network.score.inputs: \(score.inputs), but the row latents it scores have \(scored)" }
        if score.outputs != 1 { return "network.score.outputs: \(score.outputs) (a row's score is one number)" }
        return nil
    }

    /// Every layer in the document's order: rows, board, mix, score.
    var layers: [Layer] { rows + board + (mix.map { [$0] } ?? []) + [score] }

    /// The structure as text, hashed with the parameters (`weightsHash`), so two networks with
    /// the same numbers in another arrangement are different agents:
    /// "rows=20x64:relu,64x64:relu;pool=mean,max;board=128x64:relu;mix=64x64:relu;score=64x1:identity".
    public var structure: String {
        var parts = ["rows=" + rows.map(\.text).joined(separator: ",")]
        if let mix {
            parts.append("pool=" + pool.map(\.rawValue).joined(separator: ","))
            parts.append("board=" + board.map(\.text).joined(separator: ","))
            parts.append("mix=" + mix.text)
        }
        parts.append("score=" + score.text)
        return parts.joined(separator: ";")
    }

    /// Numbers in the network.
    public var parameterCount: Int { layers.reduce(0) { $0 + $1.weights.count + $1.biases.count } }

    /// FNV-1a of the structure and every parameter's float32 bit pattern (layer by layer:
    /// weights row by row, then biases), as 16 hex digits: the network's identity.
    public var weightsHash: String {
        var text = structure + ";"
        var first = true
        for layer in layers {
            for v in layer.weights + layer.biases {
                if !first { text += "," }
                text += String(v.bitPattern, radix: 16)
                first = false
            }
        }
        return ContentHash.hex(text)
    }

    /// The score of each of `bins` rows of `inputs` numbers (row-major).
    ///
    /// Each layer is one gemm over the board's distinct rows. Distinct, because OpenBLAS runs
    /// the rows at a block's edge through other kernels, which round differently: two bins with
    /// the same row (mirror aims that both fall clear, say) would get scores a few ulps apart,
    /// and the tie would go to whichever sat in the luckier block (27 of the 60 pairs of equal
    /// rows on MLPAgentTests' boards came out apart that way). A row's latent, its mix and its score
    /// depend on the row and the board alone, so each distinct row is computed once and equal
    /// rows get equal bits: an exact tie goes to the lowest bin, as PyTorch's argmax sends it.
    /// Only the mean pool counts every bin, in bin order.
    public func scores(_ features: UnsafeBufferPointer<Float>, bins: Int) -> [Float] {
        let f = inputs
        precondition(bins >= 1 && features.count >= bins * f, "\(features.count) features for \(bins) rows")
        // `slot[b]`: bin b's distinct row; the distinct rows in order of first appearance.
        var slot = [Int](repeating: 0, count: bins)
        var first: [Int] = []
        for b in 0..<bins {
            if let u = first.firstIndex(where: { a in (0..<f).allSatisfy { features[a * f + $0] == features[b * f + $0] } }) {
                slot[b] = u
            } else {
                slot[b] = first.count
                first.append(b)
            }
        }
        let n = first.count
        var h = [Float]()
        h.reserveCapacity(n * f)
        for b in first { h.append(contentsOf: features[(b * f)..<((b + 1) * f)]) }
        for layer in rows { h = layer.apply(h, rows: n) }
        if let mix {
            let width = rows.last!.outputs
            var pooled: [Float] = []
            pooled.reserveCapacity(pool.count * width)
            for p in pool {
                for j in 0..<width {
                    switch p {
                    case .mean:
                        // Over every bin, in bin order, summed in double, so the mean is the
                        // float32 nearest the true mean rather than one summation order's
                        // float32 rounding.
                        var s = 0.0
                        for b in 0..<bins { s += Double(h[slot[b] * width + j]) }
                        pooled.append(Float(s / Double(bins)))
                    case .max:
                        var m = h[j]
                        for u in 1..<n where h[u * width + j] > m { m = h[u * width + j] }
                        pooled.append(m)
                    }
                }
            }
            for layer in board { pooled = layer.apply(pooled, rows: 1) }
            var z = mix.affine(h, rows: n)
            for u in 0..<n {
                for j in 0..<mix.outputs { z[u * mix.outputs + j] += pooled[j] }
            }
            mix.activate(&z)
            h = z
        }
        let distinct = score.apply(h, rows: n)
        return slot.map { distinct[$0] }
    }

    public func scores(_ features: [Float], bins: Int) -> [Float] {
        features.withUnsafeBufferPointer { scores($0, bins: bins) }
    }
}

/// A number a network reads beside the `aim` encoder's features, appended to every row in this
/// order (a policy file's `row_extras`): what the board's rows cannot say.
public enum RowExtra: String, Sendable, CaseIterable, Codable {
    /// The level's mode as a one-hot over `GameModeKind.allCases` (classic, beat the score,
    /// dodge): the same shot is good in classic and bad in dodge, and a row cannot tell which
    /// game it is in (docs/lab/2026-12-06-imitating-greedy.md: dodge 0.21 without it, 0.81 with).
    case modeOneHot = "mode_one_hot"

    /// Numbers it adds to a row.
    public var width: Int {
        switch self {
        case .modeOneHot: GameModeKind.allCases.count
        }
    }

    /// Its numbers for `game`.
    func values(_ game: GameState) -> [Float] {
        switch self {
        case .modeOneHot:
            let kind = game.level.mode.kind
            return GameModeKind.allCases.map { $0 == kind ? 1 : 0 }
        }
    }
}

/// A search around a network (a policy file's `search`): the network proposes its `bins`
/// best-scoring bins, each is fired on copies of the game at greedy's `samples` stratified aim
/// offsets (scaled by the episode's sigma; one shot when sigma is 0) and valued by greedy's
/// `ShotValue`, and the best is fired (ties as greedy breaks them: nearest straight down). The
/// network is the prior, the simulation the judge: `bins * samples` simulated shots a decision
/// against greedy's 224 (docs/agents.md).
public struct MLPSearch: Sendable, Equatable, Codable {
    public var bins: Int
    public var samples: Int

    public init(bins: Int, samples: Int) {
        self.bins = bins
        self.samples = samples
    }

    /// "8x4", as `parameters` and the structure text write it.
    public var text: String { "\(bins)x\(samples)" }
}

/// A learned policy played natively (`mlp:FILE`): the `aim` encoder's rows of the board (each
/// with the file's `RowExtra`s appended), scored by an `MLPNetwork` exported from Python
/// (`python -m peggle_gym.export`); the best-scoring bin wins (the lowest on a tie, as PyTorch's
/// argmax) and the agent fires at that bin's angle, as the environment's discrete action fires at
/// row b's angle. With a `search`, the best few bins are simulated and the best shot wins.
/// No jitter and no random draw either way: the same game gives the same aim, which is what the
/// policy did in Python (its deterministic action) and what lets a rater compute a level's first
/// choice once.
public struct MLPAgent: WeightedAgent {
    public let encoder: AimEncoder
    public let network: MLPNetwork
    /// Appended to every row after the encoder's features, in order.
    public let extras: [RowExtra]
    /// Simulate the network's best bins before firing; nil: fire its best bin.
    public let search: MLPSearch?
    /// `network.weightsHash`, computed once.
    public let weightsHash: String

    public init(network: MLPNetwork, encoder: AimEncoder = AimEncoder(bins: 31), extras: [RowExtra] = [],
                search: MLPSearch? = nil) {
        precondition(network.inputs == AimEncoder.featureCount + extras.reduce(0) { $0 + $1.width },
                     "a network over rows of \(network.inputs) numbers for the aim features and \(extras)")
        precondition(search.map { $0.bins >= 1 && $0.bins <= encoder.bins && $0.samples >= 1 } ?? true)
        self.network = network
        self.encoder = encoder
        self.extras = extras
        self.search = search
        weightsHash = network.weightsHash
    }

    public var kind: AgentKind { .mlp }

    public var parameters: [String: String] {
        var p = ["encoder": "\(AimEncoder.name)-v\(AimEncoder.version)", "bins": String(encoder.bins), "weights": weightsHash]
        // Both change what the agent decides, so they are part of its identity when present.
        if !extras.isEmpty { p["extras"] = extras.map(\.rawValue).joined(separator: ",") }
        if let search { p["search"] = search.text }
        return p
    }

    public var choiceIgnoresRandomStream: Bool { true }

    /// The network's rows for `game`: the encoder's features of each bin, then the extras.
    public func inputs(_ game: GameState) -> [Float] {
        let board = encoder.encode(game)
        guard !extras.isEmpty else { return board }
        let tail = extras.flatMap { $0.values(game) }, f = AimEncoder.featureCount
        var x: [Float] = []
        x.reserveCapacity(encoder.bins * network.inputs)
        for b in 0..<encoder.bins {
            x.append(contentsOf: board[(b * f)..<((b + 1) * f)])
            x.append(contentsOf: tail)
        }
        return x
    }

    /// The chosen bin for `encoder.bins` rows of `network.inputs` numbers (without extras: the
    /// environment's `aim` observation).
    public func bin(features: UnsafeBufferPointer<Float>) -> Int {
        let s = network.scores(features, bins: encoder.bins)
        return s.withUnsafeBufferPointer { LinearAgent.bestBin($0, bins: encoder.bins, stride: 1, column: 0) }
    }

    public func bin(features: [Float]) -> Int { features.withUnsafeBufferPointer { bin(features: $0) } }

    /// The `count` best-scoring bins, best first (ties to the lower bin, as the argmax; a NaN
    /// score last).
    public static func topBins(_ scores: [Float], count: Int) -> [Int] {
        let order = scores.indices.sorted { a, b in
            let x = scores[a].isNaN ? -Float.infinity : scores[a], y = scores[b].isNaN ? -Float.infinity : scores[b]
            return x != y ? x > y : a < b
        }
        return Array(order.prefix(count))
    }

    public func choose(_ game: GameState, context: ShotContext, rng: inout SeededGenerator) -> Double {
        let limit = game.rules.maxAim
        func aim(_ b: Int) -> Double { min(max(encoder.angle(bin: b), -limit), limit) }
        let x = inputs(game)
        guard let search else { return aim(bin(features: x)) }
        let angles = Self.topBins(network.scores(x, bins: encoder.bins), count: search.bins).map(aim)
        // Greedy's own valuation: its stratified offsets and `ShotValue`, every proposal on
        // every offset (no screening: the network has screened already).
        let judge = GreedyAgent(noiseSamples: search.samples, screen: 0)
        let values = judge.evaluate(game, angles, sigma: context.sigma)
        return GreedyAgent.best(Array(zip(angles, values))).angle
    }
}
