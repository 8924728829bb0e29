import ArgumentParser
import Foundation
import PeggleGame

@main
struct Peggle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peggle",
        abstract: "Peggle Gym: play, render, edit and benchmark Peggle levels; train agents; rate how hard levels are.",
        version: PeggleGym.version,
        subcommands: [LevelCommand.self, Play.self, Render.self, Serve.self, Bench.self, Train.self, Rate.self, Estimate.self, Report.self,
                      DbCommand.self, Studio.self])

    /// Bad input exits with code 2 and one clear message on standard error. Argument-syntax
    /// errors (an unknown option, a missing value, a value that is not one of an option's
    /// choices) are bad input too: swift-argument-parser's own message, and code 2 instead of its
    /// 64. Help and version requests keep theirs.
    static func main() {
        do {
            var arguments = Array(CommandLine.arguments.dropFirst())
            // `peggle bench --vector ...` and the other mode flags still run, for one release.
            if let old = try Bench.legacy(arguments) {
                for w in old.warnings { FileHandle.standardError.write(Data("warning: \(w)\n".utf8)) }
                arguments = old.arguments
            }
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error as UserError {
            FileHandle.standardError.write(Data(error.lines.map { "error: \($0)\n" }.joined().utf8))
            Foundation.exit(2)
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
