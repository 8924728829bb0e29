import PeggleGame
import PeggleLevel

/// A Gymnasium space, reported exactly: dtype, shape and bounds.
public enum Space: Sendable, Equatable, CustomStringConvertible {
    /// `Box(low, high, shape, float32)`: every element in [low, high].
    case box(low: Float, high: Float, shape: [Int])
    /// `Box(0, 255, shape, uint8)`: an image of bytes (the `pixels` encoder). The environment's
    /// buffers and the serve protocol carry the bytes as float32 whole numbers.
    case image(shape: [Int])
    /// `Discrete(n)`: integers 0 ..< n.
    case discrete(n: Int)

    /// As Gymnasium prints it: `Box(-1.0, 1.0, (1,), float32)`, `Discrete(31)`.
    public var description: String {
        func dims(_ shape: [Int]) -> String {
            shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        }
        switch self {
        case let .box(low, high, shape):
            return "Box(\(low), \(high), \(dims(shape)), float32)"
        case let .image(shape):
            return "Box(0, 255, \(dims(shape)), uint8)"
        case let .discrete(n):
            return "Discrete(\(n))"
        }
    }

    /// Number of values in one sample of a box or image (1 for discrete).
    public var size: Int {
        switch self {
        case let .box(_, _, shape), let .image(shape): shape.reduce(1, *)
        case .discrete: 1
        }
    }
}

/// The kinds of action (`EnvConfig.action`), by their protocol names.
public enum ActionKind: String, Sendable, CaseIterable {
    /// One float in [-1, 1] across the aim range.
    case continuous
    /// An aim bin in 0 ..< `EnvConfig.bins`.
    case discrete
}

/// How actions are given.
public enum ActionMode: Sendable, Equatable {
    /// One float in [-1, 1], mapped linearly onto the aim range [-maxAim, maxAim].
    case continuous
    /// An integer bin in 0 ..< bins; bin k aims at -maxAim + 2 maxAim k / (bins - 1).
    case discrete(bins: Int)

    /// The action space.
    public var space: Space {
        switch self {
        case .continuous: .box(low: -1, high: 1, shape: [1])
        case let .discrete(bins): .discrete(n: bins)
        }
    }

    /// The aim angle (radians) for an action value, or nil if the value is not a valid action.
    public func angle(for action: Double, rules: Rules) -> Double? {
        guard action.isFinite else { return nil }
        switch self {
        case .continuous:
            guard action >= -1 && action <= 1 else { return nil }
            return action * rules.maxAim
        case let .discrete(bins):
            guard action == action.rounded(), action >= 0, action < Double(bins) else { return nil }
            return bins == 1 ? 0 : -rules.maxAim + 2 * rules.maxAim * action / Double(bins - 1)
        }
    }
}
