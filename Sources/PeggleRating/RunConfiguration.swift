import Foundation
import PeggleDifficulty
import PeggleLevel

extension PriorKind: Codable {}

/// A rating run's settings as the `run` row keeps them (its `configuration` column, JSON with
/// sorted keys): written by `RatingRun`, read back by `RecordedPriors`. Keys are snake_case, as
/// every stored run has had them; what older runs did not write is optional.
public struct RunConfiguration: Codable, Sendable, Equatable {
    public struct Adaptive: Codable, Sendable, Equatable {
        public var batchSize: Int
        public var budget: Int
        public var precision: Double
        public var placement: String
        /// Absent in runs from before priors were a choice: they measured with the flat prior.
        public var prior: PriorKind?
        public var stop: String?
        /// The population prior's version, when the prior uses it.
        public var priorVersion: String?

        package init(batchSize: Int, budget: Int, precision: Double, placement: String, prior: PriorKind? = nil,
                     stop: String? = nil, priorVersion: String? = nil) {
            self.batchSize = batchSize
            self.budget = budget
            self.precision = precision
            self.placement = placement
            self.prior = prior
            self.stop = stop
            self.priorVersion = priorVersion
        }

        enum CodingKeys: String, CodingKey {
            case batchSize = "batch_size", budget, precision, placement, prior, stop, priorVersion = "prior_version"
        }
    }

    public struct Level: Codable, Sendable, Equatable {
        /// The name the run was given (the file).
        public var file: String
        public var hash: String
        /// The level's x50 prior, when the run measured with `population+estimate`: the estimate
        /// the run used, kept so a later model does not change how its games are read.
        public var x50Prior: RecordedX50?

        package init(file: String, hash: String, x50Prior: RecordedX50? = nil) {
            self.file = file
            self.hash = hash
            self.x50Prior = x50Prior
        }

        enum CodingKeys: String, CodingKey { case file, hash, x50Prior = "x50_prior" }
    }

    /// `X50Prior` as stored.
    public struct RecordedX50: Codable, Sendable, Equatable {
        public var mean: Double
        public var sd: Double

        package init(mean: Double, sd: Double) {
            self.mean = mean
            self.sd = sd
        }
    }

    public var method: String
    public var agents: [String]
    public var skillKind: String
    public var games: Int
    public var sigmas: [Double]?
    public var adaptive: Adaptive?
    public var firstSeed: UInt64
    public var maxShots: Int
    public var levels: [Level]
    /// The physics version when it is not version 1 (absent: version 1, as every run before
    /// version 2 existed; so version 1's runs keep the text they always had).
    public var physics: Int?

    enum CodingKeys: String, CodingKey {
        case method, agents, skillKind = "skill_kind", games, sigmas, adaptive, firstSeed = "first_seed",
             maxShots = "max_shots", levels, physics
    }

    /// The configuration of a run of `config` over `levels`, each with the x50 prior it measures with.
    init(_ c: RatingConfig, levels: [(name: String, hash: String, x50: X50Prior?)]) {
        method = c.method.rawValue
        agents = c.agents.map(\.label)
        skillKind = c.skillKind.rawValue
        games = c.games
        sigmas = c.method == .grid ? c.sigmas : nil
        adaptive = c.method == .adaptive
            ? Adaptive(batchSize: c.adaptive.batchSize, budget: c.adaptive.budget, precision: c.adaptive.precision,
                       placement: c.adaptive.placement.rawValue, prior: c.adaptive.prior, stop: c.adaptive.stop.rawValue,
                       priorVersion: c.adaptive.prior == .flat ? nil : SkillPrior.populationVersion)
            : nil
        firstSeed = c.firstSeed
        maxShots = c.maxShots
        physics = c.rules.physicsVersion == .standard ? nil : c.rules.physicsVersion.rawValue
        self.levels = levels.map { Level(file: $0.name, hash: $0.hash, x50Prior: $0.x50.map { RecordedX50(mean: $0.mean, sd: $0.sd) }) }
    }

    /// The JSON the `run` row keeps: sorted keys, slashes unescaped.
    /// Throws `EncodingError` for a number JSON cannot hold (NaN or infinity).
    public var json: String {
        get throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        }
    }

    /// The configuration stored as `json`; nil when it is not one this type reads (a run from
    /// before the rating library kept its settings this way).
    public static func decode(_ json: String) -> RunConfiguration? {
        try? JSONDecoder().decode(RunConfiguration.self, from: Data(json.utf8))
    }
}
