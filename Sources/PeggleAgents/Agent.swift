import PeggleGame
import PeggleUtilities

/// A player: looks at the game and picks the next aim. Agents hold no per-game state, so one
/// value can play many games on many threads; anything random comes from the `rng` it is handed,
/// which the episode runner seeds, so an agent is deterministic for a seed.
public protocol Agent: Sendable {
    /// Stored with results (its raw value) and the first part of `label`.
    var kind: AgentKind { get }
    /// Everything that changes how it plays, as stable key/value text (the store's agent identity).
    var parameters: [String: String] { get }
    /// Whether `choose` never draws from its `rng`; see the extension's default.
    var choiceIgnoresRandomStream: Bool { get }
    /// The aim for the next shot, radians from straight down (positive toward +x), within
    /// `±game.rules.maxAim`, before any aim noise.
    func choose(_ game: GameState, context: ShotContext, rng: inout SeededGenerator) -> Double
}

extension Agent {
    /// Whether `choose` never draws from its `rng` (and the board alone fixes the choice). The
    /// first shot of every game of a level then has the same choice at a given sigma, which a
    /// rater computes once. False unless an agent says otherwise.
    public var choiceIgnoresRandomStream: Bool { false }

    /// "greedy(candidates=48,refine=2x8,samples=8,screen=4)": kind and sorted parameters, for people and for keys.
    public var label: String { kind.label(parameters: parameters) }
}

extension AgentKind {
    /// An agent's label (`Agent.label`): this kind, then its parameters sorted by key.
    public func label(parameters: [String: String]) -> String {
        parameters.isEmpty ? rawValue : rawValue + "(" + parameters.keys.sorted().map { "\($0)=\(parameters[$0]!)" }.joined(separator: ",") + ")"
    }
}

/// An agent whose play depends on a weights file: the hash is part of its identity in the store.
public protocol WeightedAgent: Agent {
    /// 16 hex digits identifying the weights.
    var weightsHash: String { get }
}

/// What an agent knows besides the board.
public struct ShotContext: Sendable, Equatable {
    /// Shots already taken this episode.
    public var shots: Int
    /// The episode's shot cap (the runner truncates there).
    public var maxShots: Int
    /// The aim noise the runner will add to the choice, radians (standard deviation). A player
    /// knows how precise they are; the greedy agent plans for it.
    public var sigma: Double
    public init(shots: Int, maxShots: Int, sigma: Double = 0) {
        self.shots = shots
        self.maxShots = maxShots
        self.sigma = sigma
    }
}

/// Uniform over the aim range.
public struct RandomAgent: Agent {
    public init() {}
    public var kind: AgentKind { .random }
    public var parameters: [String: String] { [:] }
    public func choose(_ game: GameState, context: ShotContext, rng: inout SeededGenerator) -> Double {
        (rng.nextUnit() * 2 - 1) * game.rules.maxAim
    }
}
