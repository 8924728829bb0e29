import PeggleEstimate
import PeggleGame
import PeggleLevel

/// `POST /api/estimate`: the instant estimate of `peggle estimate` (PeggleEstimate's built-in
/// model) for the level the page holds. Its own endpoint rather than part of the edit reply: an
/// edit stays as fast as the editor, and the page asks again after every accepted edit, keeping
/// only the reply to its latest request (a stale reply never overwrites a newer one).
public struct EstimateRequest: Decodable, Sendable {
    public var level: String
}

extension StudioAPI {
    /// sigma50 predicted without playing a game, radians, with its 95% predictive interval and
    /// the tier of the prediction: the numbers `peggle estimate --json` prints for the same level.
    public struct Estimated: Sendable, Encodable, Equatable {
        public var sigma50: Double
        public var low: Double, high: Double
        /// A `Tier` raw value ("very hard", "hard", "medium", "easy").
        public var tier: String
        /// The level lies outside what the estimate was fitted on: the interval is widened and the
        /// page says "rate it" (`Sigma50Estimate.outOfDistribution`).
        public var outOfDistribution: Bool
        /// Distance to the nearest fitted level (`Sigma50Estimate.distance`).
        public var distance: Double?
        /// What the page says when the estimate is a guess (`Sigma50Estimate.guessing`), else nil.
        public var note: String?
    }

    /// Loads the built-in model (about 0.1 s: its 980 fitted rows decoded and their reach
    /// computed) off the request path, so the page's first estimate does not wait for it.
    static func loadEstimateModel() {
        Task.detached(priority: .utility) { _ = EstimateModel.builtIn }
    }

    /// The estimate of a valid level; a level that cannot be played yet is refused (422) with its
    /// first problem, as Play and Rate refuse it.
    public func estimate(_ request: EstimateRequest) throws(StudioError) -> Estimated {
        let level = try Self.level(request.level)
        let prepared: PreparedLevel
        do { prepared = try PreparedLevel(level, rules: rules) } catch {
            throw .refused("the level cannot be estimated yet: \(error)")
        }
        let e = Sigma50Estimate(prepared, model: EstimateModel.builtIn)
        return Estimated(sigma50: e.sigma50, low: e.low, high: e.high, tier: e.tier.rawValue,
                         outOfDistribution: e.outOfDistribution, distance: e.distance,
                         note: e.outOfDistribution ? Sigma50Estimate.guessing : nil)
    }
}
