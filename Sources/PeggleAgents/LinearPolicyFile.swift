import Foundation
import PeggleGame
import PeggleLevel

/// A problem with a weights file, naming the file and what is wrong with it.
public struct PolicyFileError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// The JSON document of a linear policy (`Agents/NAME.json`): the weights, the encoder they
/// belong to, how they were trained (config, levels with content hashes, the optimizer's full
/// state so an unfinished run can resume) and, once complete, their evaluation.
/// docs/agents.md describes every field.
public struct PolicyDocument: Sendable, Equatable, Codable {
    public static let currentFormat = 1

    public struct EncoderInfo: Sendable, Equatable, Codable {
        public var name: String
        public var version: Int
        public var bins: Int
        /// Radians.
        public var maxAim: Double
        public var maxContacts: Int
        public var features: [String]
        enum CodingKeys: String, CodingKey {
            case name, version, bins, features
            case maxAim = "max_aim", maxContacts = "max_contacts"
        }

        public init(_ e: AimEncoder) {
            name = AimEncoder.name
            version = AimEncoder.version
            bins = e.bins
            maxAim = e.maxAim
            maxContacts = e.maxContacts
            features = AimEncoder.featureNames
        }
    }

    public struct LevelInfo: Sendable, Equatable, Codable {
        public var name: String
        /// The path it was read from, as given on the command line.
        public var file: String
        /// `Level.contentHash`: what resuming checks.
        public var hash: String
    }

    /// Everything that fixes a run's results (except how many iterations it runs).
    public struct TrainingInfo: Sendable, Equatable, Codable {
        public var method: String
        public var seed: UInt64
        /// Iterations asked for (the state says how many are done).
        public var iterations: Int
        public var population: Int
        public var episodesPerLevel: Int
        public var eliteFraction: Double
        public var sigma: Double
        public var winBonus: Double
        public var initialStd: Double
        public var extraNoise: Double
        public var noiseDecay: Double
        public var curveEpisodesPerLevel: Int
        public var evalEpisodesPerLevel: Int
        public var maxShots: Int
        public var levels: [LevelInfo]
        enum CodingKeys: String, CodingKey {
            case method, seed, iterations, population, sigma, levels
            case episodesPerLevel = "episodes_per_level", eliteFraction = "elite_fraction", winBonus = "win_bonus"
            case initialStd = "initial_std", extraNoise = "extra_noise", noiseDecay = "noise_decay"
            case curveEpisodesPerLevel = "curve_episodes_per_level", evalEpisodesPerLevel = "eval_episodes_per_level"
            case maxShots = "max_shots"
        }

        public init(_ c: TrainingConfig, files: [String]) {
            method = "cem"
            seed = c.seed
            iterations = c.iterations
            population = c.population
            episodesPerLevel = c.episodesPerLevel
            eliteFraction = c.eliteFraction
            sigma = c.sigma
            winBonus = c.winBonus
            initialStd = c.initialStd
            extraNoise = c.extraNoise
            noiseDecay = c.noiseDecay
            curveEpisodesPerLevel = c.curveEpisodesPerLevel
            evalEpisodesPerLevel = c.evalEpisodesPerLevel
            maxShots = c.maxShots
            levels = zip(c.levels, files).map { LevelInfo(name: $0.name, file: $1, hash: $0.contentHash) }
        }

        /// The fields where `other` differs from this run, as "field: saved X, now Y" (iterations
        /// and level file paths excepted: a run may be extended, and levels are known by content).
        public func differences(from other: TrainingInfo) -> [String] {
            var out: [String] = []
            func check<T: Equatable>(_ name: String, _ a: T, _ b: T) { if a != b { out.append("\(name): saved \(a), now \(b)") } }
            check("method", method, other.method)
            check("seed", seed, other.seed)
            check("population", population, other.population)
            check("episodes", episodesPerLevel, other.episodesPerLevel)
            check("elite_fraction", eliteFraction, other.eliteFraction)
            check("sigma", sigma, other.sigma)
            check("win_bonus", winBonus, other.winBonus)
            check("initial_std", initialStd, other.initialStd)
            check("extra_noise", extraNoise, other.extraNoise)
            check("noise_decay", noiseDecay, other.noiseDecay)
            check("curve_episodes", curveEpisodesPerLevel, other.curveEpisodesPerLevel)
            check("eval_episodes", evalEpisodesPerLevel, other.evalEpisodesPerLevel)
            check("max_shots", maxShots, other.maxShots)
            if levels.map(\.hash) != other.levels.map(\.hash) {
                out.append("levels: saved \(levels.map(\.name).joined(separator: ", ")), now "
                           + "\(other.levels.map(\.name).joined(separator: ", ")) (compared by content hash)")
            }
            return out
        }
    }

    public var format: Int
    public var kind: String
    /// False while training is under way: the weights are the current mean, not a final policy.
    public var complete: Bool
    public var encoder: EncoderInfo
    /// Fraction of half a bin the aim is jittered by.
    public var jitter: Double
    /// One per feature; float32 values written as the doubles they convert to exactly.
    public var weights: [Double]
    public var weightsHash: String
    public var training: TrainingInfo?
    public var state: CEMState?
    public var evaluation: Evaluation?

    enum CodingKeys: String, CodingKey {
        case format, kind, complete, encoder, jitter, weights, training, state, evaluation
        case weightsHash = "weights_hash"
    }

    /// The document of a run in progress (or finished, with its evaluation).
    public init(config: TrainingConfig, files: [String], state: CEMState, evaluation: Evaluation?) {
        let agent = state.agent(config)
        format = Self.currentFormat
        kind = AgentKind.linear.rawValue
        complete = evaluation != nil
        encoder = EncoderInfo(config.encoder)
        jitter = config.jitter
        weights = agent.weights.map { Double($0) }
        weightsHash = agent.weightsHash
        training = TrainingInfo(config, files: files)
        self.state = state
        self.evaluation = evaluation
    }

    /// Canonical JSON text (sorted keys, one trailing newline).
    /// Throws `EncodingError` for a number JSON cannot hold (a weight that diverged to NaN).
    public var json: String {
        get throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
        }
    }

    /// Parses and checks a document; `path` names the file in errors.
    public static func decode(_ data: Data, path: String) throws(PolicyFileError) -> PolicyDocument {
        func fail(_ m: String) -> PolicyFileError { PolicyFileError(path: path, message: m) }
        guard (try? JSONSerialization.jsonObject(with: data)) != nil else {
            throw fail("not valid JSON (a linear policy file is one JSON object; see docs/agents.md)")
        }
        let doc: PolicyDocument
        do { doc = try JSONDecoder().decode(PolicyDocument.self, from: data) } catch let e as DecodingError {
            throw fail(describe(e))
        } catch {
            throw fail("cannot be read as a policy: \(error)")
        }
        if doc.format != currentFormat { throw fail("format \(doc.format) is not supported (this build reads format \(currentFormat))") }
        if doc.kind != AgentKind.linear.rawValue { throw fail("kind '\(doc.kind)' is not a linear policy") }
        let e = doc.encoder
        if e.name != AimEncoder.name || e.version != AimEncoder.version {
            throw fail("weights for encoder '\(e.name)' version \(e.version); this build has encoder '\(AimEncoder.name)' version \(AimEncoder.version)")
        }
        if e.features != AimEncoder.featureNames {
            throw fail("encoder.features do not match the '\(AimEncoder.name)' v\(AimEncoder.version) features (\(AimEncoder.featureNames.joined(separator: ", ")))")
        }
        if e.bins < 2 || e.bins > 10_000 { throw fail("encoder.bins: \(e.bins) (must be 2 to 10000)") }
        if !(e.maxAim > 0 && e.maxAim <= Rules().maxAim) { throw fail("encoder.max_aim: \(e.maxAim) (must be in (0, \(Rules().maxAim)] radians)") }
        if e.maxContacts < 1 || e.maxContacts > 100 { throw fail("encoder.max_contacts: \(e.maxContacts) (must be 1 to 100)") }
        if !(doc.jitter >= 0 && doc.jitter <= 1) { throw fail("jitter: \(doc.jitter) (must be in [0, 1])") }
        if doc.weights.count != AimEncoder.featureCount {
            throw fail("weights: \(doc.weights.count) values, but the '\(AimEncoder.name)' encoder has \(AimEncoder.featureCount) features")
        }
        if let k = doc.weights.firstIndex(where: { !$0.isFinite || Double(Float($0)) != $0 }) {
            throw fail("weights[\(k)]: \(doc.weights[k]) is not a finite float32 value")
        }
        if let s = doc.state {
            if s.mean.count != AimEncoder.featureCount || s.std.count != AimEncoder.featureCount {
                throw fail("state: mean and std need \(AimEncoder.featureCount) values each (have \(s.mean.count) and \(s.std.count))")
            }
            if s.iteration < 0 { throw fail("state.iteration: \(s.iteration) (must be >= 0)") }
        }
        return doc
    }

    static func describe(_ e: DecodingError) -> String {
        func path(_ c: [CodingKey]) -> String {
            c.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch e {
        case let .keyNotFound(key, ctx):
            let at = path(ctx.codingPath + [key])
            return "missing field '\(at)'"
        case let .typeMismatch(type, ctx): return "field '\(path(ctx.codingPath))': expected \(type)"
        case let .valueNotFound(type, ctx): return "field '\(path(ctx.codingPath))': expected \(type), found null"
        case let .dataCorrupted(ctx): return "field '\(path(ctx.codingPath))': \(ctx.debugDescription)"
        @unknown default: return "\(e)"
        }
    }

    /// The agent these weights make.
    public var agent: LinearAgent {
        LinearAgent(weights: weights.map { Float($0) },
                    encoder: AimEncoder(bins: encoder.bins, maxAim: encoder.maxAim, maxContacts: encoder.maxContacts),
                    jitter: jitter)
    }
}

extension LinearAgent {
    /// Reads a trained policy file (for `peggle play --agent linear:FILE` and the like). The
    /// one place this module reads a file: every problem is a `PolicyFileError` naming it.
    /// - Parameter allowIncomplete: accept a file whose training has not finished (its current mean).
    public static func load(path: String, allowIncomplete: Bool = false) throws(PolicyFileError) -> LinearAgent {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw PolicyFileError(path: path, message: "no such file")
        }
        guard !isDir.boolValue else { throw PolicyFileError(path: path, message: "is a directory, not a weights file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PolicyFileError(path: path, message: "cannot be read")
        }
        return try load(data: data, path: path, allowIncomplete: allowIncomplete)
    }

    /// A policy file's contents (a file read already, or one built into a binary); `path` names it
    /// in errors.
    public static func load(data: Data, path: String, allowIncomplete: Bool = false) throws(PolicyFileError) -> LinearAgent {
        let doc = try PolicyDocument.decode(data, path: path)
        if !doc.complete && !allowIncomplete {
            let done = doc.state?.iteration ?? 0, total = doc.training?.iterations ?? 0
            throw PolicyFileError(path: path, message: "training is not finished (iteration \(done) of \(total)); "
                                  + "rerun the same peggle train command to finish it")
        }
        return doc.agent
    }
}
