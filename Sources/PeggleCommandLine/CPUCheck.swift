import CPeggleCPU
import Foundation

/// Whether this CPU runs a build tuned for AVX2, BMI2 and FMA (Package.swift's `tuned`). A tuned
/// binary on a CPU without them dies of SIGILL at its first such instruction; the executables ask
/// `refusal` first (their `main` is not tuned, and Swift initialises the tuned modules' globals
/// lazily, so nothing tuned has run yet) and print it instead.
package enum CPUCheck {
    /// The instruction sets a tuned build uses, in the order messages name them.
    package static let tunedFor: [(name: String, bit: UInt32)] =
        [("AVX2", UInt32(PEGGLE_CPU_AVX2)), ("BMI2", UInt32(PEGGLE_CPU_BMI2)), ("FMA", UInt32(PEGGLE_CPU_FMA))]

    /// This CPU's bits among `tunedFor`.
    package static var features: UInt32 { UInt32(peggle_cpu_features()) }

    /// The message for a CPU with `have` (bits of `tunedFor`), or nil when it has them all.
    package static func refusal(have: UInt32) -> String? {
        let missing = tunedFor.filter { have & $0.bit == 0 }.map(\.name)
        guard !missing.isEmpty else { return nil }
        let list = missing.count == 1 ? missing[0] : missing.dropLast().joined(separator: ", ") + " and " + missing.last!
        return "error: this build is tuned for CPUs with AVX2, BMI2 and FMA (Package.swift's -target-cpu haswell), "
            + "and this CPU lacks \(list). Build it on this machine, or for any x86-64 CPU with PEGGLE_GENERIC=1 "
            + "(the wheel carries such an engine: docs/distribution.md)."
    }

    /// Prints `refusal` for this CPU and exits with status 2 (bad input's), if there is one.
    package static func exitUnlessTunedCPU() {
        guard let refusal = refusal(have: features) else { return }
        FileHandle.standardError.write(Data((refusal + "\n").utf8))
        exit(2)
    }
}
