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

    @Option(help: "Classic: balls to start with.")
    var balls = GameMode.defaultBalls

    @Option(help: "Beat the score: points to reach.")
    var targetScore = GameMode.defaultTargetScore

    @Option(help: "Beat the score: game seconds allowed.")
    var timeLimit = GameMode.defaultTimeLimit

    @Option(help: "Dodge: clean shots needed.")
    var shots = GameMode.defaultShots

    @Option(help: "The power green pegs fire.")
    var power = Power.none

    func run() throws {
        let gameMode: GameMode = switch mode {
        case .classic: .classic(balls: balls)
        case .beatTheScore: .beatTheScore(targetScore: targetScore, timeLimit: timeLimit)
        case .dodge: .dodge(shots: shots)
        }
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
}
