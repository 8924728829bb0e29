import Foundation
import PeggleGame
import PeggleLevel

/// The JSON document of a learned network policy (`Agents/mlp.json`, what
/// `python -m peggle_gym.export` writes): the observation it reads (the `aim` encoder, its bins
/// and its features by name, in order), the network (layer sizes, activations, weights, biases)
/// and its hash. docs/agents.md describes every field. Numbers are read as float32 (each the
/// float32 nearest the number written; the exporter writes the shortest text that reads back as
/// the trained value, and `weights_hash` checks that it did).
public struct MLPDocument: Sendable, Equatable, Codable {
    /// Format 2 adds `row_extras` and `search`; a file without them is written as format 1, so
    /// a build that reads only format 1 refuses exactly the files it would misplay.
    public static let currentFormat = 2
    /// The formats this build reads.
    public static let formats = 1...currentFormat

    public struct Layer: Sendable, Equatable, Codable {
        public var inputs: Int
        public var outputs: Int
        /// "relu" or "identity" (`MLPNetwork.Activation`).
        public var activation: String
        /// `outputs` rows of `inputs` numbers (PyTorch's `Linear.weight`).
        public var weights: [[Double]]
        public var biases: [Double]

        public init(_ layer: MLPNetwork.Layer) {
            inputs = layer.inputs
            outputs = layer.outputs
            activation = layer.activation.rawValue
            weights = (0..<layer.outputs).map { o in layer.weights[(o * layer.inputs)..<((o + 1) * layer.inputs)].map { Double($0) } }
            biases = layer.biases.map { Double($0) }
        }
    }

    public struct Board: Sendable, Equatable, Codable {
        /// "mean" and/or "max" (`MLPNetwork.Pool`), concatenated in this order.
        public var pool: [String]
        public var layers: [Layer]
    }

    public struct Network: Sendable, Equatable, Codable {
        public var rows: [Layer]
        public var board: Board?
        public var mix: Layer?
        public var score: Layer
    }

    struct Header: Decodable {
        var format: Int
        var kind: String
    }

    public var format: Int
    public var kind: String
    /// The observation the network reads: the `aim` encoder's settings and feature names.
    public var encoder: PolicyDocument.EncoderInfo
    /// `RowExtra` names appended to every row, in order (format 2; absent: none).
    public var rowExtras: [String]?
    /// `MLPSearch` (format 2; absent: the network's best bin is fired).
    public var search: MLPSearch?
    public var network: Network
    /// `MLPNetwork.weightsHash` of the network as read (16 hex digits).
    public var weightsHash: String

    enum CodingKeys: String, CodingKey {
        case format, kind, encoder, network, search
        case rowExtras = "row_extras"
        case weightsHash = "weights_hash"
    }

    /// The document of `agent` (tests and tools; the exporter writes the same fields from Python,
    /// plus a `source` object for people that no reader interprets).
    public init(_ agent: MLPAgent) {
        format = agent.extras.isEmpty && agent.search == nil ? 1 : Self.currentFormat
        kind = AgentKind.mlp.rawValue
        encoder = PolicyDocument.EncoderInfo(agent.encoder)
        rowExtras = agent.extras.isEmpty ? nil : agent.extras.map(\.rawValue)
        search = agent.search
        let n = agent.network
        network = Network(rows: n.rows.map(Layer.init),
                          board: n.mix == nil ? nil : Board(pool: n.pool.map(\.rawValue), layers: n.board.map(Layer.init)),
                          mix: n.mix.map(Layer.init), score: Layer(n.score))
        weightsHash = agent.weightsHash
    }

    /// Canonical JSON text (sorted keys, one trailing newline).
    public var json: String {
        get throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
        }
    }

    /// Parses and checks a document and builds its agent; `path` names the file in errors, each
    /// of which names the field and the value at fault.
    public static func agent(_ data: Data, path: String) throws(PolicyFileError) -> MLPAgent {
        func fail(_ m: String) -> PolicyFileError { PolicyFileError(path: path, message: m) }
        guard (try? JSONSerialization.jsonObject(with: data)) != nil else {
            throw fail("not valid JSON (a network policy file is one JSON object; see docs/agents.md)")
        }
        func decode<T: Decodable>(_ type: T.Type) throws(PolicyFileError) -> T {
            do { return try JSONDecoder().decode(type, from: data) } catch let e as DecodingError {
                throw fail(PolicyDocument.describe(e))
            } catch {
                throw fail("cannot be read as a network policy: \(error)")
            }
        }
        // Format and kind first, so another version or a linear policy's file is named as such
        // rather than by the first field it lacks.
        let header = try decode(Header.self)
        if !formats.contains(header.format) {
            throw fail("format: \(header.format) is not supported (this build reads formats \(formats.lowerBound) to \(formats.upperBound))")
        }
        if header.kind != AgentKind.mlp.rawValue {
            let reader = header.kind == AgentKind.linear.rawValue ? "linear:FILE" : "no agent of this build"
            throw fail("kind: '\(header.kind)' is not a network policy (such a file is read by \(reader))")
        }
        let doc = try decode(MLPDocument.self)
        let encoder = try checkedEncoder(doc.encoder, fail)
        if doc.format == 1, doc.rowExtras != nil || doc.search != nil {
            throw fail("format: 1, but \(doc.rowExtras != nil ? "row_extras" : "search") needs format 2 (a format-1 reader would ignore it)")
        }
        var extras: [RowExtra] = []
        for (k, name) in (doc.rowExtras ?? []).enumerated() {
            guard let e = RowExtra(rawValue: name) else {
                throw fail("row_extras[\(k)]: '\(name)' (expected \(RowExtra.allCases.map(\.rawValue).joined(separator: " or ")))")
            }
            if extras.contains(e) { throw fail("row_extras[\(k)]: '\(name)' is named twice") }
            extras.append(e)
        }
        if let s = doc.search {
            if !(1...encoder.bins).contains(s.bins) { throw fail("search.bins: \(s.bins) (must be 1 to encoder.bins, \(encoder.bins))") }
            if !GreedyAgent.noiseSamplesRange.contains(s.samples) {
                throw fail("search.samples: \(s.samples) (must be \(GreedyAgent.noiseSamplesRange.lowerBound) to \(GreedyAgent.noiseSamplesRange.upperBound))")
            }
        }
        let inputs = AimEncoder.featureCount + extras.reduce(0) { $0 + $1.width }
        let n = doc.network
        func layer(_ l: Layer, _ field: String) throws(PolicyFileError) -> MLPNetwork.Layer { try checkedLayer(l, field, fail) }
        var rows: [MLPNetwork.Layer] = []
        for (k, l) in n.rows.enumerated() { rows.append(try layer(l, "network.rows[\(k)]")) }
        var pool: [MLPNetwork.Pool] = [], board: [MLPNetwork.Layer] = []
        if let b = n.board {
            if b.pool.isEmpty { throw fail("network.board.pool: empty (mean, max or both)") }
            for (k, name) in b.pool.enumerated() {
                guard let p = MLPNetwork.Pool(rawValue: name) else {
                    throw fail("network.board.pool[\(k)]: '\(name)' (expected \(MLPNetwork.Pool.allCases.map(\.rawValue).joined(separator: " or ")))")
                }
                pool.append(p)
            }
            for (k, l) in b.layers.enumerated() { board.append(try layer(l, "network.board.layers[\(k)]")) }
        }
        let mix: MLPNetwork.Layer? = if let m = n.mix { try layer(m, "network.mix") } else { nil }
        let score = try layer(n.score, "network.score")
        if n.board != nil && board.isEmpty { throw fail("network.board.layers: empty (at least one layer)") }
        if let problem = MLPNetwork.problem(rows: rows, pool: pool, board: board, mix: mix, score: score, inputs: inputs) {
            throw fail(problem)
        }
        let agent = MLPAgent(network: MLPNetwork(rows: rows, pool: pool, board: board, mix: mix, score: score, inputs: inputs),
                             encoder: encoder, extras: extras, search: doc.search)
        if doc.weightsHash != agent.weightsHash {
            throw fail("weights_hash: '\(doc.weightsHash)', but the network as read hashes to '\(agent.weightsHash)' "
                       + "(a number changed, or was written with too few digits to read back as its float32 value)")
        }
        return agent
    }

    /// The encoder `e` describes, if this build's `aim` encoder has its version and features.
    static func checkedEncoder(_ e: PolicyDocument.EncoderInfo, _ fail: (String) -> PolicyFileError) throws(PolicyFileError) -> AimEncoder {
        if e.name != AimEncoder.name || e.version != AimEncoder.version {
            throw fail("encoder: '\(e.name)' version \(e.version); this build reads '\(AimEncoder.name)' version \(AimEncoder.version)")
        }
        let names = AimEncoder.featureNames
        if e.features.count != names.count {
            throw fail("encoder.features: \(e.features.count) names, but the '\(AimEncoder.name)' v\(AimEncoder.version) encoder has "
                       + "\(names.count) (\(names.joined(separator: ", ")))")
        }
        if let k = names.indices.first(where: { e.features[$0] != names[$0] }) {
            throw fail("encoder.features[\(k)]: '\(e.features[k])', but feature \(k) of the '\(AimEncoder.name)' v\(AimEncoder.version) "
                       + "encoder is '\(names[k])' (the network was made for other features, or another order)")
        }
        if e.bins < 2 || e.bins > 10_000 { throw fail("encoder.bins: \(e.bins) (must be 2 to 10000)") }
        if !(e.maxAim > 0 && e.maxAim <= Rules().maxAim) { throw fail("encoder.max_aim: \(e.maxAim) (must be in (0, \(Rules().maxAim)] radians)") }
        if e.maxContacts < 1 || e.maxContacts > 100 { throw fail("encoder.max_contacts: \(e.maxContacts) (must be 1 to 100)") }
        return AimEncoder(bins: e.bins, maxAim: e.maxAim, maxContacts: e.maxContacts)
    }

    /// Largest `inputs` or `outputs` of a layer: a small network, and a bound on what a
    /// hand-edited size makes the loader allocate.
    static let maxWidth = 4096

    static func checkedLayer(_ l: Layer, _ field: String, _ fail: (String) -> PolicyFileError) throws(PolicyFileError) -> MLPNetwork.Layer {
        for (name, size) in [("inputs", l.inputs), ("outputs", l.outputs)] where size < 1 || size > maxWidth {
            throw fail("\(field).\(name): \(size) (must be 1 to \(maxWidth))")
        }
        guard let activation = MLPNetwork.Activation(rawValue: l.activation) else {
            throw fail("\(field).activation: '\(l.activation)' (expected \(MLPNetwork.Activation.allCases.map(\.rawValue).joined(separator: " or ")))")
        }
        if l.weights.count != l.outputs { throw fail("\(field).weights: \(l.weights.count) rows, but outputs is \(l.outputs)") }
        if let o = l.weights.indices.first(where: { l.weights[$0].count != l.inputs }) {
            throw fail("\(field).weights[\(o)]: \(l.weights[o].count) numbers, but inputs is \(l.inputs)")
        }
        if l.biases.count != l.outputs { throw fail("\(field).biases: \(l.biases.count) numbers, but outputs is \(l.outputs)") }
        func float(_ v: Double, _ at: String) throws(PolicyFileError) -> Float {
            let f = Float(v)
            guard f.isFinite else { throw fail("\(at): \(v) is outside float32's range") }
            return f
        }
        var weights: [Float] = []
        weights.reserveCapacity(l.inputs * l.outputs)
        for (o, row) in l.weights.enumerated() {
            for (i, v) in row.enumerated() { weights.append(try float(v, "\(field).weights[\(o)][\(i)]")) }
        }
        var biases: [Float] = []
        for (o, v) in l.biases.enumerated() { biases.append(try float(v, "\(field).biases[\(o)]")) }
        return MLPNetwork.Layer(inputs: l.inputs, outputs: l.outputs, activation: activation, weights: weights, biases: biases)
    }
}

extension MLPAgent {
    /// Reads a network policy file (for `peggle play --agent mlp:FILE` and the like); every
    /// problem is a `PolicyFileError` naming the file.
    public static func load(path: String) throws(PolicyFileError) -> MLPAgent {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw PolicyFileError(path: path, message: "no such file")
        }
        guard !isDir.boolValue else { throw PolicyFileError(path: path, message: "is a directory, not a policy file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PolicyFileError(path: path, message: "cannot be read")
        }
        return try MLPDocument.agent(data, path: path)
    }
}
