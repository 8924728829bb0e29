import PeggleGame

/// The order in which ratings and reports list agent kinds: the program kinds the caller names,
/// in its order (the command line and the studio pass PeggleAgents' `AgentFactory.programKinds`),
/// then any other kind that played, by name, then `human`. This module rates whatever kinds
/// played, so the order comes from the caller rather than from a list of its own.
public struct KindOrder: Sendable, Equatable {
    /// The program kinds, first to last.
    public var programKinds: [AgentKind]

    public init(_ programKinds: [AgentKind] = []) {
        self.programKinds = programKinds
    }

    /// Where `kind` sorts: the listed kinds by position, then unlisted kinds by name, `human` last.
    private func key(_ kind: AgentKind) -> (group: Int, position: Int, name: String) {
        if kind == .human { return (2, 0, "") }
        if let i = programKinds.firstIndex(of: kind) { return (0, i, "") }
        return (1, 0, kind.rawValue)
    }

    /// Whether `a` comes before `b`.
    public func precedes(_ a: AgentKind, _ b: AgentKind) -> Bool { key(a) < key(b) }

    /// `kinds` once each, in this order.
    public func sorted(_ kinds: some Sequence<AgentKind>) -> [AgentKind] { Set(kinds).sorted(by: precedes) }

    /// The program kinds (every kind but `human`) that played any of `ratings`, in this order:
    /// difficulty.csv's column groups.
    public func programKinds(playing ratings: [LevelRating]) -> [AgentKind] {
        sorted(ratings.lazy.flatMap(\.agents).map(\.agentKind).filter { $0 != .human })
    }
}
