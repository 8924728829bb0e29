import ArgumentParser
import Foundation
import PeggleGame
import PeggleGenerator
import PeggleLevel
import PeggleLevelFiles
import PeggleStore

extension LevelDistribution: ExpressibleByArgument {}
extension LevelTemplate: ExpressibleByArgument {}

/// `peggle level generate --count N --seed S --out DIR`: levels from seeds (LevelGenerator).
struct LevelGenerate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate levels from seeds into a folder.",
        discussion: "Level k of N comes from seed S + k, so a corpus is named by its first seed, count and distribution. "
            + "Files are named DISTRIBUTION-SEED-TEMPLATE.json, levels 'Template SEED (distribution)'. "
            + "An existing file or level name in the folder is never replaced: the run is refused before anything "
            + "is written. The files are written to a temporary folder first and moved in when all are written. "
            + "The folder is created if missing (its parent must exist). "
            + "docs/levels.md describes the templates and what the distributions change.")

    // Unconditional, so "--count -3" is read as a (refused) value, not as an option.
    @Option(parsing: .unconditional, help: "How many levels (1 to 100000).")
    var count: Int

    @Option(parsing: .unconditional, help: "Seed of the first level (0 or more); the others take the next seeds.")
    var seed: UInt64

    @Option(help: "easy or hard (as Procgen's distribution_mode; hard by default, as there).")
    var distribution = LevelDistribution.hard

    @Option(help: ArgumentHelp("One template for every level (default: each seed draws one).",
                               valueName: LevelTemplate.allCases.map(\.rawValue).joined(separator: "|")))
    var template: LevelTemplate?

    @Option(help: "The folder to write into (created if missing).")
    var out: String

    static let maxCount = 100_000

    func run() throws {
        guard (1...Self.maxCount).contains(count) else {
            throw UserError("--count: \(count) is outside 1...\(Self.maxCount)")
        }
        guard seed <= UInt64.max - UInt64(count - 1) else {
            throw UserError("--seed: \(seed) + \(count) levels passes the largest seed, \(UInt64.max)")
        }
        guard !out.isEmpty else { throw UserError("--out: the folder name is empty") }
        let folder = out
        var isDir: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isDir)
        if exists && !isDir.boolValue { throw UserError("--out: \(folder) is a file, not a folder") }
        let parent = LevelFolder.folder(of: folder)
        if !exists {
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDir) else {
                throw UserError("--out: \(folder): the folder \(parent) does not exist")
            }
            guard isDir.boolValue else { throw UserError("--out: \(folder): \(parent) is a file, not a folder") }
        }

        // Names first (a seed's template and name cost nothing), so a clash stops the run
        // before any level is made; then each level is made and written in turn.
        let planned = (0..<count).map { k -> (seed: UInt64, template: LevelTemplate, file: String, name: String) in
            let s = seed + UInt64(k)
            let t = template ?? LevelGenerator.template(forSeed: s)
            return (s, t, Self.fileName(seed: s, distribution: distribution, template: t),
                    LevelGenerator.name(seed: s, distribution: distribution, template: t))
        }
        if exists {
            let present = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            if let clash = planned.first(where: { present.contains($0.file) }) {
                throw UserError("--out: \(folder) already has \(clash.file); nothing was written (choose another folder or seed)")
            }
            let names = LevelFolder.levelNames(in: folder)
            let wanted = Set(planned.map { $0.name.lowercased() })
            if let clash = names.sorted(by: { $0.key < $1.key }).first(where: { wanted.contains($0.value.lowercased()) }) {
                throw UserError("--out: \(clash.key) already holds a level named '\(clash.value)'; level names must be "
                    + "unique in a folder, so nothing was written")
            }
        }
        var templates: [LevelTemplate: Int] = [:], modes: [GameModeKind: Int] = [:]
        try Self.writeAll(planned.map(\.file), into: folder, exists: exists) { k in
            let level = LevelGenerator.generate(seed: planned[k].seed, distribution: distribution, template: template)
            templates[planned[k].template, default: 0] += 1
            modes[level.mode.kind, default: 0] += 1
            return LevelCodec.encode(level)
        }
        printLine("wrote \(count) \(distribution.rawValue) level\(count == 1 ? "" : "s") to \(folder) "
            + "(seeds \(seed)...\(seed + UInt64(count - 1))): "
            + LevelTemplate.allCases.compactMap { t in templates[t].map { "\(t.rawValue) \($0)" } }.joined(separator: ", ")
            + "; " + GameModeKind.allCases.compactMap { m in modes[m].map { "\(m.rawValue) \($0)" } }.joined(separator: ", "))
    }

    /// The system's reason for a failed file operation ("Permission denied"), else Foundation's.
    static func reason(_ error: Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? Error {
            let posix = underlying as NSError
            if posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))) }
        }
        return ns.localizedDescription
    }

    /// "hard-000042-arcs.json": sorts by seed within a distribution.
    static func fileName(seed: UInt64, distribution: LevelDistribution, template: LevelTemplate) -> String {
        let digits = String(seed)
        return "\(distribution.rawValue)-\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits)-\(template.rawValue).json"
    }

    /// The hidden staging folder's name: `.peggle-generate-PID-START-UUID`, naming the process that
    /// writes it (`ProcessIdentity`: its id and start time), so a later run can tell a folder left
    /// by a killed run from one a live run is filling.
    static let stagePrefix = ".peggle-generate-"

    static func stageName(_ process: ProcessIdentity = .current) -> String {
        "\(stagePrefix)\(process.pid)-\(process.start)-\(UUID().uuidString)"
    }

    /// The process a staging folder's name names, nil for any other name (among them the
    /// `.peggle-generate-UUID` folders of older builds, which name none and are left alone).
    static func stageOwner(_ name: String) -> ProcessIdentity? {
        guard name.hasPrefix(stagePrefix) else { return nil }
        let parts = name.dropFirst(stagePrefix.count).split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let pid = Int32(parts[0]), parts[1].allSatisfy(\.isNumber),
              UUID(uuidString: String(parts[2])) != nil else { return nil }
        return ProcessIdentity(host: ProcessIdentity.current.host, pid: pid, start: String(parts[1]))
    }

    /// Removes the staging folders in `dir` whose process has ended (a run killed with -9 or by
    /// Ctrl-C leaves its folder; this is how it goes). Folders of live runs stay. Best effort: a
    /// folder that cannot be removed stays for the next run.
    static func removeStaleStages(in dir: URL) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: dir.path)) ?? [] {
            guard let owner = stageOwner(name), !owner.isAlive else { continue }
            try? fm.removeItem(at: dir.appendingPathComponent(name))
        }
    }

    /// Writes file k's text (`text(k)`) for every file into a fresh hidden folder beside or inside
    /// `folder`, then moves them in: a new folder is renamed into place whole; into an existing
    /// one the files are moved one by one, and removed again if a move fails. Any failure leaves
    /// no file of this run behind; staging folders left there by killed runs are removed first.
    static func writeAll(_ files: [String], into folder: String, exists: Bool, text: (Int) -> String) throws {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: folder)
        let parent = target.deletingLastPathComponent()
        removeStaleStages(in: exists ? target : parent)
        let stage = (exists ? target : parent).appendingPathComponent(stageName())
        func fail(_ what: String, _ error: Error) -> UserError {
            try? fm.removeItem(at: stage)
            return UserError("--out: \(folder): \(what) (\(Self.reason(error))); nothing was written")
        }
        do {
            try fm.createDirectory(at: stage, withIntermediateDirectories: false)
        } catch {
            throw fail(exists ? "cannot write in this folder" : "cannot create a folder in \(parent.path)", error)
        }
        for (k, file) in files.enumerated() {
            do {
                try Data(text(k).utf8).write(to: stage.appendingPathComponent(file))
            } catch {
                throw fail("cannot write \(file)", error)
            }
        }
        if !exists {
            do {
                try fm.moveItem(at: stage, to: target)
            } catch {
                throw fail("cannot create this folder", error)
            }
            return
        }
        var moved: [String] = []
        for file in files {
            do {
                try fm.moveItem(at: stage.appendingPathComponent(file), to: target.appendingPathComponent(file))
                moved.append(file)
            } catch {
                for m in moved { try? fm.removeItem(at: target.appendingPathComponent(m)) }
                throw fail("cannot move \(file) into place", error)
            }
        }
        try? fm.removeItem(at: stage)
    }
}
