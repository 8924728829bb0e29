import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame

@main
package struct Peggle: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "peggle",
        abstract: "Peggle Gym: play, render and edit Peggle levels; serve the environment; train agents; rate how hard levels are.",
        version: PeggleGym.version,
        subcommands: [LevelCommand.self, Play.self, Render.self, Serve.self, Train.self, Rate.self, Estimate.self, Report.self,
                      DbCommand.self, Studio.self])

    package init() {}

    static func main() {
        #if PEGGLE_TUNED
        CPUCheck.exitUnlessTunedCPU()
        #endif
        // The benchmarks are the lab's executable, not the product's (docs/performance.md).
        if CommandLine.arguments.dropFirst().first == "bench" {
            FileHandle.standardError.write(Data("error: the benchmarks moved to their own executable: swift build -c release --product peggle-bench, then .build/release/peggle-bench --help\n".utf8))
            Foundation.exit(2)
        }
        runAsMain()
    }
}
