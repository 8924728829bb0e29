import ArgumentParser
import PeggleCommandLine

/// `peggle level ...`: the level designer's commands.
struct LevelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "level",
        abstract: "Check, inspect, create, edit and generate level files; draw a gallery of them.",
        subcommands: [LevelValidate.self, LevelInfo.self, LevelNew.self, LevelEdit.self, LevelGenerate.self, LevelGallery.self])
}
