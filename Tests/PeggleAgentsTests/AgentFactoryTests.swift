import PeggleAgents
import PeggleGame
import Testing

/// The one table of built-in agents: how text names each kind, what a name that is not one is
/// told, and that the agents it makes are the defaults every caller (rate, the studio, the level
/// search) rated with before it existed.
@Suite struct AgentFactoryTests {
    func refusal(_ text: String) -> String? {
        do { _ = try AgentSpec(text); return nil } catch { return error.reason }
    }

    @Test func theTableHoldsEveryKindAProgramPlaysInOrder() {
        #expect(AgentFactory.kinds.map(\.kind) == AgentKind.builtIn)
        #expect(AgentFactory.kinds.map(\.syntax) == ["random", "greedy", "linear:FILE"])
        #expect(AgentFactory.syntaxList == "random, greedy or linear:FILE")
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
        #expect(refusal("bogus") == "unknown agent 'bogus' (expected random, greedy or linear:FILE)")
        #expect(refusal("greedy:x") == "unknown agent 'greedy:x' (expected random, greedy or linear:FILE)")
        #expect(refusal("linear") == "linear needs its weights file: linear:FILE (e.g. linear:Agents/linear.json)")
        #expect(refusal("human") == "human games are played by people in `peggle studio`, not by a program")
        #expect(throws: AgentSpecError.self) { try AgentFactory.make(AgentSpec(kind: .human)) }
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
    }
}
