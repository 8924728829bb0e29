import ArgumentParser
import PeggleCommandLine
import PeggleGame
import PeggleLevel

// The closed choices of the package as option values: argument-parser lists their raw values in
// the help and refuses any other text with its own message (exit code 2, as all bad input).

extension GameModeKind: ExpressibleByArgument {}
extension Power: ExpressibleByArgument {}

/// The options of commands that play scripted shots on a level (`play`, `render`).
struct ScriptedShots: ParsableArguments {
    @Argument(help: "A level file (JSON).")
    var level: String

    @Option(parsing: .unconditional, help: "Comma-separated aim angles in radians, e.g. 0.1,-0.35.")
    var angles: CommaList<Double>?

    @Option(help: "Seed for the game's random events (purple roaming).")
    var seed: UInt64 = 0

    /// The validated level and angles.
    func load(rules: Rules) throws -> (Level, [Double]) {
        (try Files.loadLevel(level, rules: rules), try angles.map { try Parse.angles($0, rules: rules) } ?? [])
    }
}
