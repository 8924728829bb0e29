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

    @Option(help: "Address to listen on. The default serves this machine only (127.0.0.1); with --share, every interface (0.0.0.0).")
    var host: String?

    @Flag(help: ArgumentHelp("Serve playtesters on the network: prints the designer's link (every right) and the playtesters' "
                             + "link (play and record games only), each with a random token; requests without one are refused "
                             + "(docs/studio.md, Playtests from other machines). Name the link's host with --allow-host."))
    var share = false

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
        let host = self.host ?? (share ? "0.0.0.0" : "127.0.0.1")
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
        let shared = share ? StudioShare() : nil
        let (allowHosts, db) = (allowHosts, db)
        Task {
            do {
                try await StudioServer.run(api: api, host: host, port: port, allowedHosts: allowHosts, threads: threadCount,
                                           share: shared) { url in
                    let place = "levels in \(folder)\(db.map { "; games recorded in \($0)" } ?? "")"
                    guard let shared, let port = URLComponents(string: url)?.port else {
                        printLine("Peggle Studio: \(url) (\(place); Ctrl-C to stop)")
                        return
                    }
                    let links = Self.links(host: host, port: port, allowHosts: allowHosts)
                    printLine("Peggle Studio: http://\(links.designer):\(port)/?token=\(shared.designerToken) "
                        + "(the designer's link: every right; \(place); Ctrl-C to stop)\n"
                        + "Playtesters: http://\(links.playtester):\(port)/?token=\(shared.playtestToken) "
                        + "(play and record games only; anyone holding it may)")
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

    /// The host names the two links of `--share` name: the designer's, this machine's loopback
    /// when the studio listens there (or everywhere), else its address; the playtesters', the
    /// first `--allow-host`, else the address listened on, else this machine's first network
    /// address (a literal address is accepted when listening everywhere: `StudioAddress`).
    static func links(host: String, port: Int, allowHosts: [String]) -> (designer: String, playtester: String) {
        let listen = host.contains(":") ? "[\(host)]" : host
        let everywhere = ["0.0.0.0", "::", ""].contains(host)
        let loopback = host == "localhost" || host == "::1" || host.hasPrefix("127.")
        let designer = everywhere || loopback ? "127.0.0.1" : listen
        let named = allowHosts.first.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 }
        let playtester = named ?? (everywhere ? networkAddress() ?? "127.0.0.1" : listen)
        return (designer, playtester)
    }

    /// This machine's first IPv4 address that is up and not loopback, or nil.
    static func networkAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var next: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = next {
            defer { next = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &ip, &text, socklen_t(INET_ADDRSTRLEN)) != nil else { continue }
            return String(cString: text)
        }
        return nil
    }
}
