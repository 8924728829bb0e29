import PeggleAgents
import PeggleGame
import PeggleTestSupport
import Testing

/// The one table of built-in agents: how text names each kind, what a name that is not one is
/// told, and that the agents it makes are the defaults every caller (rate, the studio, the level
/// search) rated with before it existed.
@Suite struct AgentFactoryTests {
    func refusal(_ text: String) -> String? {
        do { _ = try AgentSpec(text); return nil } catch { return error.reason }
    }

    @Test func theTableHoldsEveryKindAProgramPlaysInOrder() {
        #expect(AgentFactory.programKinds == [.random, .greedy, .linear, .mlp])
        #expect(AgentFactory.kinds.map(\.syntax) == ["random", "greedy", "linear:FILE", "mlp:FILE"])
        #expect(AgentFactory.syntaxList == "random, greedy, linear:FILE or mlp:FILE")
    }

    /// Each entry once, never `human`, and each makes an agent of its own kind (the kind the store
    /// files its games under).
    @Test func everyEntryMakesAnAgentOfItsKind() throws {
        #expect(Set(AgentFactory.programKinds).count == AgentFactory.kinds.count)
        #expect(!AgentFactory.programKinds.contains(.human))
        let tuning = AgentTuning(loadLinear: { _ in LinearAgent(weights: [Float](repeating: 0, count: AimEncoder.featureCount)) })
        for entry in AgentFactory.kinds {
            // The example files from the repository's root, wherever the tests run.
            let spec = AgentSpec(kind: entry.kind, argument: entry.argument.map { Repository.url($0.example).path })
            #expect(try AgentSpec(spec.text) == spec)
            #expect(try AgentFactory.make(spec, tuning).kind == entry.kind)
        }
    }

    @Test func namesParseAndPrintBack() throws {
        #expect(try AgentSpec("random") == .random)
        #expect(try AgentSpec("greedy") == .greedy)
        #expect(try AgentSpec("linear:Agents/linear.json") == .linear(file: "Agents/linear.json"))
        #expect(try AgentSpec("linear:") == .linear(file: ""))
        // Only a kind that takes an argument splits at the colon; the file may hold one itself.
        #expect(try AgentSpec("linear:a:b.json").argument == "a:b.json")
        for text in ["random", "greedy", "linear:w.json", "linear:"] { #expect(try AgentSpec(text).text == text) }
    }

    @Test func aNameThatIsNoProgramIsRefusedSayingWhy() {
        #expect(refusal("bogus") == "unknown agent 'bogus' (expected \(AgentFactory.syntaxList))")
        #expect(refusal("greedy:x") == "unknown agent 'greedy:x' (expected \(AgentFactory.syntaxList))")
        #expect(refusal("linear") == "linear needs its weights file: linear:FILE (e.g. linear:Agents/linear.json)")
        #expect(refusal("mlp") == "mlp needs its policy file: mlp:FILE (e.g. mlp:Agents/mlp.json)")
        #expect(refusal("human") == "human games are played by people in `peggle studio`, not by a program")
        #expect(throws: AgentSpecError.playedByPeople) { try AgentFactory.make(AgentSpec(kind: .human)) }
        // A kind the store may hold but no entry plays.
        #expect(throws: AgentSpecError.unknown("aardvark")) { try AgentFactory.make(AgentSpec(kind: AgentKind(declaring: "aardvark"))) }
    }

    /// What `rate`, the studio and the level search made by hand before: the same labels, so the
    /// store's agents (and every rating pinned by them) are unchanged.
    @Test func untunedAgentsAreTheDefaults() throws {
        #expect(try AgentFactory.make(.random).label == RandomAgent().label)
        #expect(try AgentFactory.make(.greedy).label == "greedy(candidates=48,refine=2x8,samples=8,screen=4)")
        let greedy = try #require(try AgentFactory.make(.greedy) as? GreedyAgent)
        #expect(greedy.threads == 1)
    }

    @Test func tuningReachesTheAgentsItTunes() throws {
        let tuned = AgentTuning(greedy: GreedyAgent(candidates: 12, refineRounds: 1, refineCandidates: 4), threads: 3)
        let greedy = try #require(try AgentFactory.make(.greedy, tuned) as? GreedyAgent)
        #expect(greedy.threads == 3 && greedy.label == "greedy(candidates=12,refine=1x4,samples=8,screen=4)")
        #expect(try AgentFactory.make(.random, tuned).label == "random")
        // A linear agent's file is read by the tuning's loader; the default reads the file.
        let weights = [Float](repeating: 0.5, count: AimEncoder.featureCount)
        let loaded = AgentTuning(loadLinear: { path in
            guard path == "w.json" else { throw AgentSpecError(reason: "no \(path)") }
            return LinearAgent(weights: weights)
        })
        #expect(try AgentFactory.make(.linear(file: "w.json"), loaded).label == LinearAgent(weights: weights).label)
        #expect(throws: PolicyFileError.self) { try AgentFactory.make(.linear(file: "/nonexistent/w.json")) }
        // A network policy's file is read by the factory itself, whatever the tuning.
        #expect(throws: PolicyFileError(path: "/nonexistent/m.json", message: "no such file")) {
            try AgentFactory.make(AgentSpec(kind: .mlp, argument: "/nonexistent/m.json"), tuned)
        }
    }
}
