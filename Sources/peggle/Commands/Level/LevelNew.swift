import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleLevel
import PeggleLevelFiles

/// `peggle level new NAME`
struct LevelNew: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create an empty level file.",
        discussion: "The name must be unique among the levels in the output folder. Add pegs with `peggle level edit add`.")

    @Argument(help: "The level's name.")
    var name: String

    @Option(name: [.short, .long], help: ArgumentHelp("Output .json file (default: NAME as a file name in the current folder, "
        + "with -2, -3... if that file exists)."))
    var output: String?

    @Option(help: "The game mode.")
    var mode = GameModeKind.classic

    // One repeatable option for every mode field, so a new field needs no option of its own.
    @Option(name: .customLong("field"), help: ArgumentHelp(
        "A field of the mode, NAME=VALUE (repeatable; a field not given takes its default): "
            + GameModeKind.allCases.map { kind in
                "\(kind.rawValue): " + kind.fields.map { "\($0.name) \($0.rangeText) (\($0.help), default \($0.defaultValue.text))" }
                    .joined(separator: ", ")
            }.joined(separator: "; ") + ".",
        valueName: "name=value"))
    var fields: [String] = []

    @Option(help: "The power green pegs fire.")
    var power = Power.none

    func run() throws {
        let gameMode = try Self.mode(mode, fields)
        let level = Level(name: name, mode: gameMode, power: power)
        // An empty level is valid except for its missing pegs; check everything else now.
        if let issue = level.validate().first(where: { $0.path != "pegs" }) { throw UserError(issue.description) }
        let path: String
        if let output {
            try LevelEdit.Target.checkLevelOutput(output)
            if FileManager.default.fileExists(atPath: output) {
                throw UserError("\(output): already exists; choose another --output")
            }
            path = output
        } else {
            // The file is named after the level; a name that makes the same file name as another
            // ("level.json" for names without letters) gets the next free one, level-2.json...
            path = LevelFolder.freeLevelPath(for: name, in: ".")
        }
        let dir = LevelFolder.folder(of: path)
        if let clash = LevelFolder.levelNames(in: dir).first(where: { $0.value.lowercased() == name.lowercased() }) {
            throw UserError("\(path): a level named '\(name)' already exists in \(clash.key); level names must be unique")
        }
        try Files.write(LevelCodec.encode(level), to: path)
        printLine("created \(path): '\(name)', \(gameMode.summary), power \(power.rawValue)")
    }

    /// `kind`'s mode with the `--field` values (NAME=VALUE), each a field of that kind given once
    /// and a number of its domain; the ranges are validation's (the level format's messages).
    static func mode(_ kind: GameModeKind, _ fields: [String]) throws -> GameMode {
        var values: [String: ModeFieldValue] = [:]
        for text in fields {
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let names = kind.fields.map(\.name).joined(separator: ", ")
            guard parts.count == 2 else { throw UserError("--field '\(text)': expected NAME=VALUE (\(kind.rawValue)'s fields: \(names))") }
            guard let field = kind.field(parts[0]) else {
                throw UserError("--field '\(text)': \(kind.rawValue) has no field '\(parts[0])' (its fields: \(names))")
            }
            guard values[field.name] == nil else { throw UserError("--field \(field.name) is given twice") }
            guard let value = field.value(parsing: parts[1]) else {
                throw UserError("--field '\(text)': '\(parts[1])' is not a \(field.domainName)")
            }
            values[field.name] = value
        }
        return ModeField.mode(kind, values)
    }
}
