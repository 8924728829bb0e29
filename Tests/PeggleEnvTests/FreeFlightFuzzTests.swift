import Foundation
import PeggleGame
import PeggleGenerator
import PeggleLab
import PeggleLevel
import Testing

/// The free-flight checker on generated levels: every distribution, template and power, with
/// confusement (turning boards) and zombie pegs added, random aims and bucket phases. Every
/// sweep the bound skips is run in full too and must find nothing, and every shot is played
/// again with the bound off and must be the same bit for bit. PEGGLE_FUZZ_LEVELS raises the
/// number of levels (each plays `shotsPerLevel` shots); `peggle-bench freeflight` is the
/// million-shot run.
@Suite("Free-flight fuzz")
struct FreeFlightFuzzTests {
    static let shotsPerLevel = 12

    @Test("no skipped sweep hides a contact, and every shot is the shot without the bound")
    func fuzz() throws {
        let levels = ProcessInfo.processInfo.environment["PEGGLE_FUZZ_LEVELS"].flatMap { Int($0) } ?? 72
        var total = Benchmarks.FreeFlightFuzz()
        for i in 0..<levels {
            let r = try Benchmarks.freeFlightFuzz(level: LevelGenerator.coverageVariant(i), rules: Rules(), seed: UInt64(i),
                                                  shots: Self.shotsPerLevel, compare: true)
            #expect(r.misses == 0 && r.mismatches == 0, "variant \(i): \(r)")
            total = total + r
        }
        #expect(total.shots == levels * Self.shotsPerLevel)
        #expect(total.misses == 0)
        #expect(total.mismatches == 0)
        // The bound must be doing its job: most sweeps of a shot are free flight.
        #expect(total.skipped > total.steps / 3, "\(total)")
    }
}
