import PeggleGame

/// An agent as text names it ("random", "greedy", "linear:FILE", "mlp:FILE"): its kind, and for a
/// kind that takes one, the argument after the colon (a linear agent's weights file, a network
/// policy's file). The command line,
/// the studio, the level search and the bench all name and make agents through this and
/// `AgentFactory`, so a kind is declared once, in `AgentFactory.kinds`.
public struct AgentSpec: Hashable, Sendable {
    public var kind: AgentKind
    /// What follows the colon, for a kind whose entry takes an argument; nil otherwise.
    public var argument: String?

    public init(kind: AgentKind, argument: String? = nil) {
        self.kind = kind
        self.argument = argument
    }

    public static let random = AgentSpec(kind: .random)
    public static let greedy = AgentSpec(kind: .greedy)
    public static func linear(file: String) -> AgentSpec { AgentSpec(kind: .linear, argument: file) }

    /// The text that names it ("linear:Agents/linear.json").
    public var text: String { argument.map { kind.rawValue + ":" + $0 } ?? kind.rawValue }

    /// The agent `text` names (already trimmed), or why it names none.
    public init(_ text: String) throws(AgentSpecError) {
        if let colon = text.firstIndex(of: ":"), let entry = AgentFactory.entry(String(text[..<colon])), entry.argument != nil {
            self.init(kind: entry.kind, argument: String(text[text.index(after: colon)...]))
            return
        }
        if let entry = AgentFactory.entry(text) {
            if let argument = entry.argument {
                throw AgentSpecError(reason: "\(text) needs \(argument.noun): \(entry.syntax) (e.g. \(text):\(argument.example))")
            }
            self.init(kind: entry.kind)
        } else if text == AgentKind.human.rawValue {
            throw AgentSpecError.playedByPeople
        } else {
            throw AgentSpecError.unknown(text)
        }
    }
}

/// Why a text names no agent: a phrase about the text ("unknown agent 'x' (expected ...)").
public struct AgentSpecError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }

    /// `human`: a kind no program plays.
    package static let playedByPeople = AgentSpecError(
        reason: "\(AgentKind.human.rawValue) games are played by people in `peggle studio`, not by a program")

    /// A name no entry of `AgentFactory.kinds` has; the message lists the kinds there are.
    package static func unknown(_ name: String) -> AgentSpecError {
        AgentSpecError(reason: "unknown agent '\(name)' (expected \(AgentFactory.syntaxList))")
    }
}

/// What tunes the built-in agents beyond their names: the greedy agent's search (its
/// parameters; the threads are `threads`), the threads a search runs on, and how a linear
/// agent's weights file is read (the command line reads the policy built into the binary when
/// the default file is absent).
public struct AgentTuning: Sendable {
    public var greedy: GreedyAgent
    public var threads: Int
    public var loadLinear: @Sendable (String) throws -> LinearAgent

    public init(greedy: GreedyAgent = GreedyAgent(), threads: Int = 1,
                loadLinear: @escaping @Sendable (String) throws -> LinearAgent = { path in try LinearAgent.load(path: path) }) {
        self.greedy = greedy
        self.threads = threads
        self.loadLinear = loadLinear
    }
}

/// The kinds a program plays that nothing outside the agents names (`greedy` is PeggleGame's,
/// where the rating's default skill agent needs it).
extension AgentKind {
    public static let random = AgentKind(declaring: "random")
    public static let linear = AgentKind(declaring: "linear")
    public static let mlp = AgentKind(declaring: "mlp")
}

/// The built-in agents: one entry per kind a program plays, with how text names it and how it
/// is made. Its order is the canonical order of the program kinds (help, messages, and the
/// reports' agent columns: `programKinds`). A new kind is its agent type, its `AgentKind`
/// declaration above and one entry here (docs/architecture.md, "What a new kind costs").
public enum AgentFactory {
    /// One kind a program plays.
    public struct Entry: Sendable {
        /// What a kind takes after its colon: the path of a file the agent is made from (a
        /// distributed rating copies it to each node, asking `peggle rate --dry-run --json` which
        /// files the agents read; a kind taking anything else would say so here).
        public struct Argument: Sendable {
            /// How `syntax` shows it ("FILE").
            public var placeholder: String
            /// What it is, for the message when it is missing ("its weights file").
            public var noun: String
            /// An example value ("Agents/linear.json").
            public var example: String
        }

        public var kind: AgentKind
        /// nil: the kind is named alone.
        public var argument: Argument?
        /// Makes the agent from the spec's argument (non-nil when `argument` is) and the tuning.
        var make: @Sendable (String?, AgentTuning) throws -> any Agent

        /// How the kind is written: "linear:FILE", "greedy".
        public var syntax: String { argument.map { kind.rawValue + ":" + $0.placeholder } ?? kind.rawValue }
    }

    public static let kinds: [Entry] = [
        Entry(kind: .random, argument: nil) { _, _ in RandomAgent() },
        Entry(kind: .greedy, argument: nil) { _, tuning in
            var greedy = tuning.greedy
            greedy.threads = tuning.threads
            return greedy
        },
        Entry(kind: .linear, argument: .init(placeholder: "FILE", noun: "its weights file", example: "Agents/linear.json")) { file, tuning in
            try tuning.loadLinear(file ?? "")
        },
        Entry(kind: .mlp, argument: .init(placeholder: "FILE", noun: "its policy file", example: "Agents/mlp.json")) { file, _ in
            try MLPAgent.load(path: file ?? "")
        },
    ]

    /// The kinds a program plays, in the table's order: what the command line and the studio
    /// hand the rating and the reports as their kind order (`KindOrder`).
    public static let programKinds: [AgentKind] = kinds.map(\.kind)

    /// The entry of the kind named `name`, if a program plays it.
    public static func entry(_ name: String) -> Entry? { kinds.first { $0.kind.rawValue == name } }

    /// Every kind as written, for help and messages: "random, greedy, linear:FILE or mlp:FILE".
    public static var syntaxList: String {
        let all = kinds.map(\.syntax)
        return all.count == 1 ? all[0] : all.dropLast().joined(separator: ", ") + " or " + all.last!
    }

    /// The agent `spec` names, tuned by `tuning`. Throws what reading its argument throws (a
    /// linear agent's weights file), or `AgentSpecError` for a kind no program plays.
    public static func make(_ spec: AgentSpec, _ tuning: AgentTuning = AgentTuning()) throws -> any Agent {
        guard let entry = kinds.first(where: { $0.kind == spec.kind }) else {
            throw spec.kind == .human ? AgentSpecError.playedByPeople : AgentSpecError.unknown(spec.kind.rawValue)
        }
        return try entry.make(entry.argument == nil ? nil : spec.argument ?? "", tuning)
    }
}
