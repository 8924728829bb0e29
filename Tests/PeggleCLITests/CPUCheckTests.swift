import Foundation
import PeggleCommandLine
import Testing

/// A tuned build on a CPU without AVX2, BMI2 or FMA names what is missing (issue 50: it died of
/// SIGILL before). No CPU here lacks them, so the message is checked for each combination and the
/// CPUID bits against the kernel's.
@Suite struct CPUCheckTests {
    @Test func theRefusalNamesEveryMissingInstructionSet() {
        let all = CPUCheck.tunedFor.reduce(UInt32(0)) { $0 | $1.bit }
        #expect(CPUCheck.refusal(have: all) == nil)
        let tail = " Build it on this machine, or for any x86-64 CPU with PEGGLE_GENERIC=1 (the wheel carries such an engine: docs/distribution.md)."
        let head = "error: this build is tuned for CPUs with AVX2, BMI2 and FMA (Package.swift's -target-cpu haswell), and this CPU lacks "
        #expect(CPUCheck.refusal(have: all & ~1) == head + "AVX2." + tail)
        #expect(CPUCheck.refusal(have: 1) == head + "BMI2 and FMA." + tail)
        #expect(CPUCheck.refusal(have: 0) == head + "AVX2, BMI2 and FMA." + tail)
        #expect(CPUCheck.refusal(have: 1 | 2) == head + "FMA." + tail)
    }

    @Test func cpuidAgreesWithTheKernelsFlags() throws {
        let text = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = Set(text.split { " \t\n".contains($0) }.map(String.init))
        let expected = CPUCheck.tunedFor.reduce(UInt32(0)) { $0 | (flags.contains($1.name.lowercased()) ? $1.bit : 0) }
        #expect(CPUCheck.features == expected)
    }
}
