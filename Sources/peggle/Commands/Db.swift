import ArgumentParser
import PeggleCommandLine

/// `peggle db ...`: commands on rating databases.
struct DbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Work on rating databases (merge shards).",
        subcommands: [DbMerge.self])
}
