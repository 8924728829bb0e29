import Foundation
import PeggleLevel

/// A folder of level files, as the designer tools see it (`level new`, `level edit`, `level
/// generate`, the studio): the names of its levels are unique (case-insensitively), a level's file
/// name comes from its name, and read-only levels are copied rather than changed.
public enum LevelFolder {
    /// Whether two paths name the same file (after making them absolute and resolving links).
    public static func samePath(_ a: String, _ b: String) -> Bool {
        func canonical(_ p: String) -> String {
            URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path
        }
        return canonical(a) == canonical(b)
    }

    /// Whether the file's permissions let nobody write it (checked on the mode bits, so it holds
    /// whoever runs the tool, root included).
    public static func isWriteProtected(_ path: String) -> Bool {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else {
            return false
        }
        return mode & 0o222 == 0
    }

    /// Names of the levels in `dir` (its `levelFileNames` that decode), by path; none when it
    /// cannot be read.
    public static func levelNames(in dir: String) -> [String: String] {
        var out: [String: String] = [:]
        for item in (try? levelFileNames(in: dir)) ?? [] {
            let p = (dir as NSString).appendingPathComponent(item)
            if let d = FileManager.default.contents(atPath: p), let l = try? LevelCodec.decode(d) { out[p] = l.name }
        }
        return out
    }

    /// `base` followed by `tail` (" (copy)", " 2"), with `base` shortened (at a character, its
    /// trailing spaces dropped) so the whole stays within the name limit.
    public static func fittedName(_ base: String, tail: String) -> String {
        let room = Level.maxNameLength - tail.unicodeScalars.count
        guard base.unicodeScalars.count > room else { return base + tail }
        var cut = "", used = 0
        for c in base {
            let n = c.unicodeScalars.count
            if used + n > room { break }
            cut.append(c)
            used += n
        }
        while cut.last?.isWhitespace == true { cut.removeLast() }
        return cut + tail
    }

    /// `base + tail`, or `base + tail + " 2"`, `" 3"`..., whichever no level in `dir` other than
    /// the file `except` is named (case-insensitively), within the name limit.
    public static func uniqueName(_ base: String, tail: String = "", in dir: String, except: String? = nil) -> String {
        uniqueName(base, tail: tail, taken: Set(levelNames(in: dir).filter { except == nil || !samePath($0.key, except!) }
            .values.map { $0.lowercased() }))
    }

    /// `base + tail`, or `base + tail + " 2"`, `" 3"`..., whichever is not in `taken` (names in
    /// lower case), within the name limit.
    public static func uniqueName(_ base: String, tail: String = "", taken: Set<String>) -> String {
        var n = 1
        while true {
            let name = fittedName(base, tail: tail + (n == 1 ? "" : " \(n)"))
            if !taken.contains(name.lowercased()) { return name }
            n += 1
        }
    }

    /// A level file name in `dir` made from `name` that no file has yet: `slug.json`, then
    /// `slug-2.json`, `slug-3.json`...
    public static func freeLevelPath(for name: String, in dir: String) -> String {
        let base = slug(name)
        var n = 1
        while true {
            let file = base + (n == 1 ? "" : "-\(n)") + ".json"
            let path = dir == "." ? file : (dir as NSString).appendingPathComponent(file)
            if !FileManager.default.fileExists(atPath: path) { return path }
            n += 1
        }
    }

    /// The folder a path is in ("." for a bare file name). Not NSString's
    /// deletingLastPathComponent: on Linux it crashes on a one-character path ("c").
    public static func folder(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        let dir = p[..<slash]
        return dir.isEmpty ? "/" : String(dir)
    }

    /// A file name made from a level name: lower case, its letters and digits (of any script)
    /// in words joined by '-', at most 120 bytes; "level" when it has none (a name of emoji).
    public static func slug(_ name: String) -> String {
        let parts = name.lowercased().unicodeScalars.split { !CharacterSet.alphanumerics.contains($0) }
        var s = String.UnicodeScalarView()
        var bytes = 0
        for (k, part) in parts.enumerated() {
            for u in (k == 0 ? [] : ["-"]) + Array(part) {
                bytes += String(u).utf8.count
                if bytes > 120 { break }
                s.append(u)
            }
        }
        var text = String(s)
        while text.hasSuffix("-") { text.removeLast() }
        return text.isEmpty ? "level" : text
    }
}
