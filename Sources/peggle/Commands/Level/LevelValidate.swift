import ArgumentParser
import PeggleCommandLine
import PeggleGame

/// `peggle level validate FILE...`
struct LevelValidate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check level files; exit code 2 if any is invalid.")

    @Argument(help: "Level files (JSON).")
    var files: [String]

    func run() throws {
        var failures: [String] = []
        for path in files {
            do {
                let level = try Files.loadLevel(path)
                printLine("ok      \(path)  \(level.name): \(level.pegs.count) pegs, \(level.blocks.count) blocks, \(level.mode.summary), power \(level.power.rawValue)")
            } catch let e as UserError {
                printLine("invalid \(path)")
                failures += e.lines
            }
        }
        if !failures.isEmpty { throw UserError(lines: failures) }
    }
}
