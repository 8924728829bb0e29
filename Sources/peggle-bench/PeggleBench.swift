import ArgumentParser
import PeggleCommandLine
import PeggleGame

/// `peggle-bench <workload>`: the lab's executable, apart from the product's `peggle` (the wheel
/// ships only `peggle`). One subcommand per benchmark, each in its own file, each writing typed
/// rows through `BenchOutput`. Adding a benchmark is a file and a line in `benchmarks`.
@main
struct PeggleBench: ParsableCommand {
    /// Every benchmark, in the order the help lists them (Box2D's `benchmarks[]` plays this role).
    static var benchmarks: [any ParsableCommand.Type] {
        [BenchPhysics.self, BenchVector.self, BenchServe.self, BenchGreedy.self, BenchRender.self, BenchRating.self,
         BenchGenerate.self, BenchCalibration.self, BenchFreeFlight.self, BenchTOI.self, BenchTOIGames.self, BenchTOIFuzz.self,
         BenchEstimate.self, BenchTOIFidelity.self]
    }

    static let configuration = CommandConfiguration(
        commandName: "peggle-bench",
        abstract: "Measure how fast the simulator, the environments, the agents, the renderers, the rater and the generator run.",
        discussion: "Build with `swift build -c release` before measuring, and run from the repository's root (the workloads "
            + "play Levels/...); docs/performance.md has today's figure of each workload and the command that measured it. "
            + "`peggle-bench` alone runs `physics`.",
        version: PeggleGym.version,
        subcommands: benchmarks,
        defaultSubcommand: BenchPhysics.self)

    static func main() {
        #if PEGGLE_TUNED
        CPUCheck.exitUnlessTunedCPU()
        #endif
        runAsMain()
    }
}
