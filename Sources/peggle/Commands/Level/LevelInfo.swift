import ArgumentParser
import PeggleCommandLine
import PeggleGame
import PeggleLevel

/// `peggle level info FILE`
struct LevelInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a level: mode, power, pegs by kind, blocks.")

    @Argument(help: "A level file (JSON).")
    var file: String

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        let level = try Files.loadLevel(file)
        let kinds = PegKind.allCases.map { ($0.rawValue, level.count(of: $0)) }
        let bricks = level.pegs.filter { if case .brick = $0.shape { true } else { false } }.count
        let springy = level.blocks.filter { $0.springiness > 0 }.count
        if json {
            var mode: [String: Any] = ["type": level.mode.name]
            for (field, value) in level.mode.fieldValues {
                switch value {
                case let .whole(v): mode[field.name] = v
                case let .real(v): mode[field.name] = v
                }
            }
            printLine(try JSON.text([
                "file": file, "name": level.name, "mode": mode, "power": level.power.rawValue,
                "read_only": level.readOnly, "pegs": level.pegs.count, "bricks": bricks,
                "blocks": level.blocks.count, "springy_blocks": springy,
                "kinds": Dictionary(uniqueKeysWithValues: kinds),
                "purple_roams": level.purpleRoams,
            ] as [String: Any]))
            return
        }
        printLine("\(level.name)\(level.readOnly ? "  (read-only)" : "")")
        if let a = level.author { printLine("  author:  \(a)") }
        if let d = level.description { printLine("  about:   \(d)") }
        printLine("  mode:    \(level.mode.summary)")
        printLine("  power:   \(level.power.rawValue)")
        printLine("  pegs:    \(level.pegs.count) (\(bricks) bricks): " + kinds.filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", "))
        printLine("  blocks:  \(level.blocks.count) (\(springy) springy)")
    }
}
