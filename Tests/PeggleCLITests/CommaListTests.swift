import ArgumentParser
import PeggleAgents
import PeggleCommandLine
import Testing
import peggle

/// The comma-separated option values: split and parsed once, refused by element.
@Suite("CommaList")
struct CommaListTests {
    func list<E>(_ text: String, of: E.Type = E.self) throws -> CommaList<E> {
        try #require(CommaList<E>(argument: text))
    }

    /// The message `values` throws, or nil.
    func refusal(_ body: () throws -> Any) -> String? {
        do { _ = try body(); return nil } catch let e as UserError { return e.lines.joined(separator: "\n") } catch { return "\(error)" }
    }

    @Test func parsesEachElementOnceTrimmingSpaces() throws {
        let numbers = try list(" 0.9, -0.55 ,1e-1", of: Double.self)
        #expect(try numbers.values("--angles") == [0.9, -0.55, 0.1])
        #expect(numbers.items.map(\.text) == ["0.9", "-0.55", "1e-1"])
        #expect(numbers.text == " 0.9, -0.55 ,1e-1")
        #expect(try list("csv,html", of: ReportFormat.self).values("--format") == [.csv, .html])
        #expect(try list("random, greedy,linear:Agents/linear.json", of: AgentSpec.self).values("--agents")
            == [.random, .greedy, .linear(file: "Agents/linear.json")])
        #expect(try list("a.json,,b.json", of: String.self).values("--levels") == ["a.json", "", "b.json"])
        #expect(try list("a.json,,b.json", of: String.self).values("--levels", skippingEmpty: true) == ["a.json", "b.json"])
    }

    @Test func refusesNamingTheOptionTheElementAndWhy() throws {
        #expect(refusal { try list("0.1,abc", of: Double.self).values("--angles") } == "--angles: element 2: 'abc' is not a number")
        #expect(refusal { try list("0.1,,0.2", of: Double.self).values("--angles") } == "--angles: element 2: '' is not a number")
        #expect(refusal { try list("csv,pdf", of: ReportFormat.self).values("--format") }
            == "--format: element 2: 'pdf' is not one of: csv, html")
        #expect(refusal { try list("random,smart", of: AgentSpec.self).values("--agents") }
            == "--agents: element 2: unknown agent 'smart' (expected \(AgentFactory.syntaxList))")
        #expect(refusal { try list("linear", of: AgentSpec.self).values("--agents") }
            == "--agents: element 1: linear needs its weights file: linear:FILE (e.g. linear:Agents/linear.json)")
        // A command words the refusal its own way; the position counts every element.
        #expect(refusal {
            try list("0.1,,x", of: Double.self).values("--angles", skippingEmpty: true) { k, text, reason in "angle \(k) \(reason) [\(text)]" }
        } == "--angles: angle 3 'x' is not a number [x]")
        // The command's own checks refuse elements in the order given, before a later bad one.
        #expect(refusal {
            try list("2,abc", of: Double.self).map("--angles") { k, p, v in
                if v > 1.5 { throw UserError("--angles: angle \(k) \(p) is too wide") }
                return v
            }
        } == "--angles: angle 1 2 is too wide")
    }

    @Test func aDefaultShowsAsTyped() {
        #expect(CommaList<ReportFormat>(ReportFormat.allCases).defaultValueDescription == "csv,html")
        #expect(CommaList<AgentSpec>([.random, .greedy, .linear(file: "Agents/linear.json")]).defaultValueDescription
            == "random,greedy,linear:Agents/linear.json")
    }

    @Test func agentSpecsNameTheirKinds() throws {
        #expect(AgentSpec.random.kind == .random && AgentSpec.greedy.kind == .greedy && AgentSpec.linear(file: "w.json").kind == .linear)
        #expect(try AgentSpec.parse(" greedy ") == .greedy)
        #expect(try AgentSpec.parse("linear:") == .linear(file: ""))
        #expect(refusal { try AgentSpec.parse("bogus") } == "--agent: unknown agent 'bogus' (expected \(AgentFactory.syntaxList))")
        // People play `human` games in the studio; no command plays them.
        #expect(refusal { try AgentSpec.parse("human") } == "--agent: human games are played by people in `peggle studio`, not by a program")
    }
}
