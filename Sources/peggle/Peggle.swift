import ArgumentParser
import Foundation
import PeggleGame

@main
struct Peggle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peggle",
        abstract: "Peggle Gym: play, render, edit and benchmark Peggle levels; train agents; rate how hard levels are.",
        version: PeggleGym.version,
        subcommands: [LevelCommand.self, Play.self, Render.self, Serve.self, Bench.self, Train.self, Rate.self, Report.self,
                      DbCommand.self])

    /// Bad input exits with code 2 and one clear message on standard error; argument-syntax
    /// errors keep swift-argument-parser's own messages and codes.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let error as UserError {
            FileHandle.standardError.write(Data(error.lines.map { "error: \($0)\n" }.joined().utf8))
            Foundation.exit(2)
        } catch {
            exit(withError: error)
        }
    }
}
