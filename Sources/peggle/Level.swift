import ArgumentParser

/// `peggle level ...`: the level designer's commands.
struct LevelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "level",
        abstract: "Check, inspect, create and edit level files.",
        subcommands: [LevelValidate.self, LevelInfo.self, LevelNew.self, LevelEdit.self])
}
