import Foundation
import PeggleLevel
import PeggleLevelFiles
import PegglePhysics

package enum Files {
    /// The system's reason for a failed file operation ("Permission denied"), else Foundation's.
    package static func reason(_ error: Error) -> String { LevelFolder.reason(error) }

    /// The level files that arguments name: files as given, folders expanded to their level files
    /// (`LevelFolder.levelFiles`: `*.json`, hidden ones left out, in byte order of the names). A
    /// folder without one is an error naming it.
    package static func levelFiles(_ arguments: [String], excluding: Set<String> = []) throws -> [String] {
        do {
            return try LevelFolder.levelFiles(arguments, excluding: excluding)
        } catch {
            throw UserError(error.description)
        }
    }

    /// Reads and validates a level file (`LevelFile.load`); every problem names the file, the object and the field.
    package static func loadLevel(_ path: String, rules: Rules = Rules(), validate: Bool = true) throws -> Level {
        do {
            return try LevelFile.load(path, rules: rules, validate: validate)
        } catch {
            throw UserError(lines: error.lines)
        }
    }

    /// Reads a level file without the semantic checks (`LevelFile.decode`).
    package static func decodeLevel(_ path: String) throws -> Level {
        do {
            return try LevelFile.decode(path)
        } catch {
            throw UserError(lines: error.lines)
        }
    }

    /// Writes `text` to `path` atomically (a temporary file renamed into place), so a failed run
    /// never leaves a partial file behind.
    package static func write(_ text: String, to path: String) throws {
        try checkOutput(path)
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw UserError("\(path): cannot be written (\(error.localizedDescription))")
        }
    }

    /// Refuses an output path that cannot take a file: a folder, or a file in a folder that does
    /// not exist. Commands call it before their work, so bad input fails fast and writes nothing.
    package static func checkOutput(_ path: String) throws {
        guard !path.isEmpty else { throw UserError("the output file name is empty") }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw UserError("\(path): is a folder; give a file name inside it")
        }
        let dir = LevelFolder.folder(of: path)
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
            throw UserError("\(path): the folder \(dir) does not exist")
        }
    }
}

package enum Parse {
    /// A list of aim angles in radians, "0.1,-0.3": each must be a number within the aim range.
    package static func angles(_ list: CommaList<Double>, option: String = "--angles", rules: Rules) throws -> [Double] {
        try list.map(option, message: { k, _, reason in "angle \(k) \(reason) (give radians, e.g. \(option) 0.1,-0.35)" }) { k, p, v in
            guard v.isFinite else { throw UserError("\(option): angle \(k) '\(p)' is not a finite number") }
            guard abs(v) <= rules.maxAim else {
                throw UserError("\(option): angle \(k) \(p) is outside -\(rules.maxAim)...\(rules.maxAim) radians")
            }
            return v
        }
    }

    /// A list of aim-noise levels in radians, "0,0.02": each a finite number in 0...1.5; repeats dropped.
    package static func sigmas(_ list: CommaList<Double>, option: String) throws -> [Double] {
        func notANumber(_ p: String) -> String { "'\(p)' is not a number (radians, e.g. 0,0.02)" }
        let values = try list.map(option, message: { _, p, _ in notANumber(p) }) { _, p, v in
            guard v.isFinite else { throw UserError("\(option): " + notANumber(p)) }
            guard v >= 0 else { throw UserError("\(option): \(p) is negative; aim noise is a standard deviation in radians, 0 or more") }
            guard v <= 1.5 else { throw UserError("\(option): \(p) is more than 1.5 radians, the whole aim range") }
            return v
        }
        var out: [Double] = []
        for v in values where !out.contains(v) { out.append(v) }
        return out
    }

    /// A point "x,y" in board units.
    package static func point(_ list: CommaList<Double>, option: String) throws -> Vec2 {
        let (a, b) = try pair(list, option: option)
        return Vec2(a, b)
    }

    /// Two finite numbers "a,b" (elements with nothing between their commas are ignored).
    package static func pair(_ list: CommaList<Double>, option: String) throws -> (Double, Double) {
        guard let v = try? list.values(option, skippingEmpty: true), v.count == 2, v[0].isFinite, v[1].isFinite else {
            throw UserError("\(option): '\(list.text)' is not two numbers like 120,340")
        }
        return (v[0], v[1])
    }

    /// A finite number.
    package static func number(_ text: String, option: String) throws -> Double {
        guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v.isFinite else {
            throw UserError("\(option): '\(text)' is not a finite number")
        }
        return v
    }
}

package enum JSON {
    /// Compact JSON text of a JSON-compatible value, keys sorted so output is byte-stable. JSON has
    /// no NaN or infinity: such a number is an error naming its key, never a crash or bad output.
    package static func text(_ value: Any) throws -> String {
        if let key = nonFinite(value) { throw UserError("cannot write JSON: \(key) is not a finite number") }
        do {
            let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw UserError("cannot write JSON: \(error)")
        }
    }

    /// The path of the first number in `value` that is not finite ("[2].sigma50"), nil if none.
    package static func nonFinite(_ value: Any, at path: String = "") -> String? {
        switch value {
        case let d as Double: return d.isFinite ? nil : (path.isEmpty ? "the value" : path) + " (\(d))"
        case let f as Float: return f.isFinite ? nil : (path.isEmpty ? "the value" : path) + " (\(f))"
        case let a as [Any]: return a.indices.lazy.compactMap { nonFinite(a[$0], at: path + "[\($0)]") }.first
        case let o as [String: Any]:
            return o.keys.sorted().lazy.compactMap { nonFinite(o[$0]!, at: path.isEmpty ? $0 : path + "." + $0) }.first
        default: return nil
        }
    }
}

/// This process's command line as a rating run stores it: arguments with spaces quoted.
package func commandLineText() -> String {
    CommandLine.arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
}

package func printLine(_ s: String) {
    FileHandle.standardOutput.write(Data((s + "\n").utf8))
}

