import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleStore
import PeggleStudio
import Synchronization

/// `peggle studio`: the level designer, the game and the rater in a browser (docs/studio.md).
/// The command only parses options and keeps the process alive; the server is `PeggleStudio`.
struct Studio: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Design, play and rate levels in a browser: a local web app (docs/studio.md).",
        discussion: "Prints the URL to open. Levels are read from and saved to --levels (created if missing); "
            + "read-only levels there (the bundled ones) open read-only and save as a copy, as `level edit` does. "
            + "With --db, every game a person finishes in Play is stored there (agent kind human, with the name typed "
            + "on the page), and so is every Rate (as `peggle rate` stores its games); `peggle report --db` then shows "
            + "the ratings, and human games beside sigma50. "
            + "Nothing else is written except by Save. The studio answers its own page only: requests naming another host, "
            + "from another origin, or writing without a JSON body are refused (docs/studio.md, Security). "
            + "Stop with Ctrl-C (or SIGTERM, SIGHUP): the database is closed whole.")

    @Option(help: "The folder of levels to open and save.")
    var levels = "Levels"

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8080

    @Option(help: "Address to listen on. The default serves this machine only.")
    var host = "127.0.0.1"

    @Option(name: .customLong("allow-host"),
            help: ArgumentHelp("Another host name requests may use to reach the studio (repeatable), e.g. this machine's "
                               + "name on the network with --host 0.0.0.0. Requests naming any other host are refused "
                               + "(docs/studio.md, Security).", valueName: "name"))
    var allowHosts: [String] = []

    @Option(help: "Worker threads for a rating (default: the machine's cores).")
    var threads: Int?

    @Option(help: ArgumentHelp("A rating database (created if missing) where finished games of Play are stored as human games. "
                               + "Without it, games are not recorded.", valueName: "file"))
    var db: String?

    func run() throws {
        guard (0...65535).contains(port) else { throw UserError("--port: \(port) is outside 0...65535") }
        if let threads, threads < 1 || threads > 256 { throw UserError("--threads: \(threads) is outside 1...256") }
        for name in allowHosts where !StudioAddress.isHostName(name) {
            throw UserError("--allow-host: '\(name)' is not a host name (a name or an IP address, without a port or scheme)")
        }
        let library: LevelLibrary
        let opened = try Bundled.studioFolder(levels)
        do { library = try LevelLibrary(folder: opened) } catch { throw UserError("--levels: \(error.message)") }
        var store: PeggleStore?
        if let db {
            do { store = try PeggleStore(path: db) } catch { throw UserError("--db: \(error)") }
        }
        // The level list's index is built behind the server: the page answers meanwhile.
        library.index.startBuilding()
        let api = StudioAPI(library: library, store: store)
        let failure = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let threadCount = threads ?? ProcessInfo.processInfo.activeProcessorCount
        let folder = library.folder
        Task {
            do {
                try await StudioServer.run(api: api, host: host, port: port, allowedHosts: allowHosts, threads: threadCount) { url in
                    printLine("Peggle Studio: \(url) (levels in \(folder)\(db.map { "; games recorded in \($0)" } ?? ""); Ctrl-C to stop)")
                }
            } catch {
                failure.withLock { $0 = "\(host):\(port): the studio could not serve (\(error))" }
            }
            done.signal()
        }
        done.wait()
        // Every recorded game is already checkpointed (`StudioAPI.record`); closing the last
        // connection also lets SQLite remove the -wal and -shm files, so the .sqlite file alone
        // is the database.
        if let store {
            do { try store.close() } catch { throw UserError("--db: \(db ?? ""): the database could not be closed (\(error))") }
        }
        if let message = failure.withLock({ $0 }) { throw UserError(message) }
    }
}
