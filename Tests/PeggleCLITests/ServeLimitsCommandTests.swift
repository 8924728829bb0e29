import Foundation
import Testing

@Suite("peggle serve --memory-budget")
struct ServeLimitsCommandTests {
    @Test("the budget is set in MiB; past it make is refused with memory_budget")
    func budget() throws {
        let r = try CLI.runWithInput(["serve", "--memory-budget", "2"],
                                     input: #"{"id": 1, "cmd": "make", "level": "Levels/first-steps.json", "num_envs": 64}"# + "\n")
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        let error = try #require(reply["error"] as? [String: Any])
        #expect(error["code"] as? String == "memory_budget")
        #expect(error["message"] as? String == "make: 64 environments of 2193 observation floats would hold about 3 MiB; "
            + "this server's budget is 2 MiB (fewer num_envs or max_objects, or start it with a larger --memory-budget)")
    }

    @Test("a budget outside 1...1048576 MiB is refused before serving")
    func badBudget() throws {
        let r = try CLI.runWithInput(["serve", "--memory-budget", "0"], input: "")
        #expect(r.status == 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr == "error: --memory-budget: 0 is outside 1...1048576 MiB\n")
    }
}
