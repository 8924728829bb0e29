import ArgumentParser
import PeggleCommandLine

/// `peggle level ...`: the level designer's commands.
struct LevelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "level",
        abstract: "Check, inspect, create, edit, generate and tune level files; draw a gallery of them.",
        subcommands: [LevelValidate.self, LevelInfo.self, LevelNew.self, LevelEdit.self, LevelGenerate.self, LevelTuneCommand.self,
                      LevelGallery.self])
}
