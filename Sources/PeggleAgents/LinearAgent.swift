import PeggleGame
import PeggleUtilities

/// A linear policy over the `aim` encoder's features: every aim bin b gets the score
/// `φ_b · w` (one weight vector shared by all bins), the best bin wins (the lowest on a tie),
/// and the aim is that bin's angle plus a uniform jitter of up to `jitter` half bin widths
/// either side, drawn from the agent's generator. The jitter keeps a shot that changed nothing
/// (it missed what the trace promised) from being repeated exactly for the rest of the game.
public struct LinearAgent: WeightedAgent {
    public let encoder: AimEncoder
    /// One weight per feature (`AimEncoder.featureNames` order).
    public let weights: [Float]
    /// Jitter as a fraction of half a bin's width, in [0, 1].
    public let jitter: Double

    public init(weights: [Float], encoder: AimEncoder = AimEncoder(), jitter: Double = 0.5) {
        precondition(weights.count == AimEncoder.featureCount, "\(weights.count) weights for \(AimEncoder.featureCount) features")
        precondition(jitter >= 0 && jitter <= 1)
        self.encoder = encoder
        self.weights = weights
        self.jitter = jitter
    }

    public var kind: AgentKind { .linear }

    public var parameters: [String: String] {
        ["encoder": "\(AimEncoder.name)-v\(AimEncoder.version)", "bins": String(encoder.bins),
         "jitter": String(jitter), "weights": weightsHash]
    }

    /// FNV-1a of the weights' float32 bit patterns (as hex text), 16 hex digits: the identity of
    /// a trained policy.
    public var weightsHash: String { Self.hash(weights) }

    static func hash(_ weights: [Float]) -> String {
        ContentHash.hex(weights.map { String($0.bitPattern, radix: 16) }.joined(separator: ","))
    }

    public func choose(_ game: GameState, context: ShotContext, rng: inout SeededGenerator) -> Double {
        let bins = encoder.bins, width = AimEncoder.featureCount
        var features = [Float](repeating: 0, count: encoder.size)
        var scores = [Float](repeating: 0, count: bins)
        features.withUnsafeMutableBufferPointer { encoder.encode(game, into: $0) }
        features.withUnsafeBufferPointer { f in
            weights.withUnsafeBufferPointer { w in
                scores.withUnsafeMutableBufferPointer { s in
                    BLAS.scores(features: f, rows: bins, width: width, weights: w, members: 1, into: s)
                }
            }
        }
        let best = scores.withUnsafeBufferPointer { Self.bestBin($0, bins: bins, stride: 1, column: 0) }
        return aim(bin: best, maxAim: game.rules.maxAim, rng: &rng)
    }

    /// The bin with the highest score in column `column` of a row-major `bins x stride` block;
    /// the first one on a tie. NaN never wins.
    @inline(__always)
    static func bestBin(_ scores: UnsafeBufferPointer<Float>, bins: Int, stride: Int, column: Int) -> Int {
        var best = 0
        var top = -Float.infinity
        for b in 0..<bins {
            let s = scores[b * stride + column]
            if s > top { top = s; best = b }
        }
        return best
    }

    /// The aim for bin `b`: its angle plus jitter, within `±maxAim` radians. Always draws one
    /// number, so the agent's stream advances the same way whatever the jitter.
    func aim(bin b: Int, maxAim: Double, rng: inout SeededGenerator) -> Double {
        let u = rng.nextUnit() * 2 - 1
        let a = encoder.angle(bin: b) + u * jitter * encoder.binWidth / 2
        return min(max(a, -maxAim), maxAim)
    }
}
