import Foundation
import PeggleAgents
import PeggleTestSupport
import Testing

/// The docs and comments name agents by the labels the code really makes.
@Suite struct DocsAgreeTests {
    /// Markdown and Swift files under the docs, the READMEs and Sources, relative to the root.
    static func documents() throws -> [String] {
        var out = ["README.md", "python/README.md"]
        for folder in ["docs", "Sources"] {
            let walker = FileManager.default.enumerator(atPath: Repository.url(folder).path)
            while let item = walker?.nextObject() as? String {
                guard item.hasSuffix(".md") || item.hasSuffix(".swift") else { continue }
                out.append(folder + "/" + item)
            }
        }
        return out.sorted()
    }

    @Test func theGreedyLabelIsWrittenAsTheAgentMakesIt() throws {
        let label = GreedyAgent().label
        #expect(label == "greedy(candidates=48,refine=2x8,samples=8,screen=4)")
        let keys = Set(GreedyAgent().parameters.keys)
        let pattern = try NSRegularExpression(pattern: #"greedy\(([a-z]+=[^,)\s]*(,[a-z]+=[^,)\s]*)*)\)"#)
        var found = 0
        for file in try Self.documents() {
            let text = try String(contentsOf: Repository.url(file), encoding: .utf8)
            for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let inner = String(text[Range(m.range(at: 1), in: text)!])
                let names = Set(inner.split(separator: ",").map { String($0.split(separator: "=")[0]) })
                #expect(names == keys, "\(file): greedy(\(inner)) does not name the agent's parameters \(keys.sorted())")
                found += 1
            }
        }
        #expect(found >= 3, "the label is written in docs/store.md, Agent.swift and Records.swift")
    }
}
