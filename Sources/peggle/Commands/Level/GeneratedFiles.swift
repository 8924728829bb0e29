import Foundation
import PeggleCommandLine
import PeggleStore

#if canImport(Glibc)
import Glibc
#endif

/// How `peggle level generate` puts its files into a folder so that they appear all at once or
/// not at all, even when the run is killed (`kill -9`) at any point.
///
/// The files are written into a hidden staging folder, `.peggle-generate-PID-START-UUID` (PID and
/// START name the writing process, `ProcessIdentity`), beside a new folder or inside an existing
/// one. A new folder is then renamed into place whole (one atomic rename). Into an existing
/// folder the files must be moved one by one, so the run first writes a manifest into the stage
/// (`manifest`, written whole by a rename: the commit point) listing every file, then moves them.
/// A later run that finds a stage whose process has ended finishes it or cleans it up: without a
/// manifest the stage is removed (nothing of it had reached the folder), with one the rest of its
/// files are moved in and then the stage is removed (every file was written before the manifest).
/// Moves never replace a file (link then unlink, so a name that appeared meanwhile stops them).
enum GeneratedFiles {
    static let stagePrefix = ".peggle-generate-"
    /// The commit record inside a stage: one file name a line.
    static let manifestName = "manifest"

    /// Test hook (`level generate --kill-at`): the point where the run kills itself with SIGKILL,
    /// as `kill -9` from outside would, to test that every phase recovers.
    enum KillPoint: Equatable {
        /// After `n` files are written into the stage (before the manifest).
        case written(Int)
        /// After the manifest is written, before any file is moved.
        case committed
        /// After `n` files are moved into the folder.
        case moved(Int)
        /// After every file is moved, before the stage is removed.
        case finished

        init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            switch (parts.first, parts.count) {
            case ("written", 2): guard let n = Int(parts[1]) else { return nil }; self = .written(n)
            case ("moved", 2): guard let n = Int(parts[1]) else { return nil }; self = .moved(n)
            case ("committed", 1): self = .committed
            case ("finished", 1): self = .finished
            default: return nil
            }
        }
    }

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

    /// Finishes or removes the staging folders in `dir` whose process has ended, and returns the
    /// files the finished ones hold in `dir` (so a rerun of the killed command can tell that its
    /// levels are all there). Folders of live runs stay.
    static func recoverStages(in dir: URL) throws -> Set<String> {
        let fm = FileManager.default
        var finished: Set<String> = []
        for name in ((try? fm.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() {
            guard let owner = stageOwner(name), !owner.isAlive else { continue }
            let stage = dir.appendingPathComponent(name)
            if let manifest = try? String(contentsOf: stage.appendingPathComponent(manifestName), encoding: .utf8) {
                let files = manifest.split(separator: "\n").map(String.init)
                for file in files {
                    try move(file, from: stage, to: dir, recovering: name)
                }
                finished.formUnion(files)
            }
            // Without a manifest nothing of it reached `dir`; with one, everything has now.
            // Best effort: a folder that cannot be removed stays for the next run.
            try? fm.removeItem(at: stage)
        }
        return finished
    }

    /// Moves `file` from `stage` into `dir` without ever replacing a file there: link, then unlink.
    /// A file already in both places (a run killed between the two) is the same file: the stage's
    /// name is dropped. When recovering, one already moved (only in `dir`) is done.
    static func move(_ file: String, from stage: URL, to dir: URL, recovering: String? = nil) throws {
        let source = stage.appendingPathComponent(file).path, target = dir.appendingPathComponent(file).path
        if link(source, target) == 0 {
            unlink(source)
            return
        }
        let code = errno
        if code == ENOENT, recovering != nil, access(target, F_OK) == 0 { return }
        if code == EEXIST, sameFile(source, target) {
            unlink(source)
            return
        }
        let reason = code == EEXIST ? "a file of that name is already there" : String(cString: strerror(code))
        if let stageName = recovering {
            throw UserError("--out: \(dir.path): cannot finish the interrupted run in \(stageName): cannot move \(file) "
                + "into place (\(reason)); move or remove the file, or remove \(stageName), and run again")
        }
        throw MoveError(file: file, reason: reason)
    }

    struct MoveError: Error {
        var file: String
        var reason: String
    }

    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// Writes file k's text (`text(k)`) for every file into a fresh staging folder beside or
    /// inside `folder`, then brings them in as the type's comment describes. Any failure before
    /// the manifest leaves no file of this run behind; after it, a failed move undoes the moves.
    static func writeAll(_ files: [String], into folder: String, exists: Bool, killAt: KillPoint? = nil,
                         text: (Int) -> String) throws {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: folder)
        let parent = target.deletingLastPathComponent()
        let stage = (exists ? target : parent).appendingPathComponent(stageName())
        func fail(_ what: String, _ reason: String) -> UserError {
            try? fm.removeItem(at: stage)
            return UserError("--out: \(folder): \(what) (\(reason)); nothing was written")
        }
        func kill(at point: KillPoint) {
            if killAt == point { raise(SIGKILL) }
        }
        do {
            try fm.createDirectory(at: stage, withIntermediateDirectories: false)
        } catch {
            throw fail(exists ? "cannot write in this folder" : "cannot create a folder in \(parent.path)", Files.reason(error))
        }
        for (k, file) in files.enumerated() {
            do {
                try Data(text(k).utf8).write(to: stage.appendingPathComponent(file))
            } catch {
                throw fail("cannot write \(file)", Files.reason(error))
            }
            kill(at: .written(k + 1))
        }
        if !exists {
            do {
                try fm.moveItem(at: stage, to: target)
            } catch {
                throw fail("cannot create this folder", Files.reason(error))
            }
            return
        }
        do {
            // Written whole, then renamed: a stage holds a complete manifest or none.
            let partial = stage.appendingPathComponent(manifestName + ".partial")
            try Data(files.map { $0 + "\n" }.joined().utf8).write(to: partial)
            try fm.moveItem(at: partial, to: stage.appendingPathComponent(manifestName))
        } catch {
            throw fail("cannot write the stage's manifest", Files.reason(error))
        }
        kill(at: .committed)
        var moved: [String] = []
        for file in files {
            do {
                try move(file, from: stage, to: target)
                moved.append(file)
            } catch {
                // Back out: the stage still holds the rest, so put nothing half in place.
                for m in moved { try? fm.removeItem(at: target.appendingPathComponent(m)) }
                let why = (error as? MoveError)?.reason ?? "\(error)"
                throw fail("cannot move \(file) into place", why)
            }
            kill(at: .moved(moved.count))
        }
        kill(at: .finished)
        try? fm.removeItem(at: stage)
    }

}
