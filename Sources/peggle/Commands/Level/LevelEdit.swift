import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleLevel
import PeggleLevelFiles

/// `peggle level edit ...`: one designer operation per call. The file is rewritten only when the
/// edit is accepted; a refused edit exits with code 2 and the reason, and the file is untouched.
/// Bundled levels are read-only: editing one saves a copy with a unique name beside it.
struct LevelEdit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Add, move, remove, resize, rotate or recolour one object of a level.",
        subcommands: [Add.self, Move.self, Remove.self, Resize.self, Rotate.self, Kind.self])

    /// The file being edited and where the result goes.
    struct Target: ParsableArguments {
        @Argument(help: "The level file to edit.")
        var file: String

        @Option(name: [.short, .long], help: ArgumentHelp("Write the edited level here instead of over FILE (a .json file). "
            + "An existing file is replaced only if it holds the same level (same name); never a read-only one."))
        var output: String?

        @Flag(help: "With -o: replace a file that holds a different level (never a read-only one).")
        var replace = false

        /// Loads the level, applies `change`, and saves; returns the message to print.
        func edit(_ change: (inout Level) throws -> String) throws {
            if let output { try Self.checkLevelOutput(output) }
            var level = try Files.decodeLevel(file)
            let did: String
            do {
                did = try change(&level)
            } catch let e as EditError {
                throw UserError("\(file): refused: \(e.message)")
            }
            var path = output ?? file
            var note = ""
            let inPlace = LevelFolder.samePath(path, file)
            if inPlace && level.readOnly {
                // Bundled levels are read-only: the edit goes to a copy beside it, in a file no
                // other file is using, with a name no other level there has.
                level.readOnly = false
                let dir = LevelFolder.folder(of: file)
                level.name = LevelFolder.uniqueName(level.name, tail: " (copy)", in: dir)
                path = LevelFolder.freeLevelPath(for: level.name, in: dir)
                note = " (\(file) is read-only; saved the edit as a copy)"
            } else if inPlace {
                if LevelFolder.isWriteProtected(file) {
                    throw UserError("\(file): the file is read-only (no write permission); write the edit elsewhere with -o")
                }
            } else {
                level.readOnly = false
                let unique = LevelFolder.uniqueName(level.name, in: LevelFolder.folder(of: path), except: path)
                try checkReplacing(path, with: unique)
                if unique != level.name {
                    note = " (renamed '\(level.name)' to '\(unique)': names are unique per folder)"
                    level.name = unique
                }
            }
            // Never write what validation would refuse for a reason the edit could have avoided.
            if let issue = level.textIssues().first { throw UserError("\(path): refused: \(issue)") }
            try Files.write(LevelCodec.encode(level), to: path)
            printLine("\(did) in \(path)\(note)")
        }

        /// An `-o` file name: a .json file (the names of a folder's levels are kept unique among
        /// its .json files, so a level saved under another name would escape that check).
        static func checkLevelOutput(_ path: String) throws {
            guard path.lowercased().hasSuffix(".json") else {
                throw UserError("-o: '\(path)' does not end in .json; level files are .json files")
            }
            try Files.checkOutput(path)
        }

        /// Refuses to replace an existing `path` that is read-only, or (without --replace) holds
        /// something other than the level `name` being written.
        func checkReplacing(_ path: String, with name: String) throws {
            guard FileManager.default.fileExists(atPath: path) else { return }
            if LevelFolder.isWriteProtected(path) {
                throw UserError("-o: \(path) is read-only (no write permission); it was left as it was")
            }
            guard let data = FileManager.default.contents(atPath: path), let existing = try? LevelCodec.decode(data) else {
                if replace { return }
                throw UserError("-o: \(path) exists and is not a level file; add --replace to replace it")
            }
            if existing.readOnly {
                throw UserError("-o: \(path) holds the read-only level '\(existing.name)'; it cannot be replaced "
                    + "(choose another -o file)")
            }
            if existing.name.lowercased() != name.lowercased() && !replace {
                throw UserError("-o: \(path) holds another level, '\(existing.name)'; add --replace to replace it, "
                    + "or choose another -o file")
            }
        }
    }

    /// Which object: by id or by a point inside it.
    struct Selector: ParsableArguments {
        @Option(help: "Id of the object.")
        var id: Int?

        @Option(parsing: .unconditional, help: "Pick the object under the point x,y (board units).")
        var at: CommaList<Double>?

        func resolve(_ level: Level) throws -> Int {
            switch (id, at) {
            case let (id?, nil):
                return id
            case let (nil, point?):
                let p = try Parse.point(point, option: "--at")
                guard let o = level.object(at: p) else {
                    throw UserError("--at: no object at (\(point.text))")
                }
                return level.id(of: o)
            default:
                throw UserError("give exactly one of --id N or --at X,Y to choose the object")
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a peg (--peg KIND) or a block (--block rectangle|triangle).")

        @OptionGroup var target: Target

        @Option(help: "Peg kind: blue, orange, green, purple, zombie, confusement.")
        var peg: String?

        @Option(help: "Block shape: rectangle or triangle.")
        var block: String?

        @Option(parsing: .unconditional, help: "Centre x,y (board units).")
        var at: CommaList<Double>

        @Option(parsing: .unconditional, help: "Radius of a round peg (default 12).")
        var radius: Double?

        @Option(parsing: .unconditional, help: "Width,height: makes a peg a brick; required for blocks.")
        var size: CommaList<Double>?

        @Option(parsing: .unconditional, help: "Rotation in radians (bricks and blocks; default 0).")
        var rotation: Double?

        @Option(parsing: .unconditional, help: "Block springiness, 0...1 (default 0).")
        var springiness: Double?

        func run() throws {
            let center = try Parse.point(at, option: "--at")
            let size = try self.size.map { try Parse.pair($0, option: "--size") }
            try target.edit { level in
                switch (peg, block) {
                case let (kindName?, nil):
                    guard let kind = PegKind(rawValue: kindName) else {
                        throw UserError("--peg: unknown kind '\(kindName)' (expected one of: \(PegKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    // An option that would be ignored is refused: the peg would not be what was asked.
                    if radius != nil && size != nil {
                        throw UserError("give --radius (a round peg) or --size (a brick), not both")
                    }
                    if rotation != nil && size == nil {
                        throw UserError("--rotation applies to bricks (--size W,H), not to round pegs")
                    }
                    if springiness != nil { throw UserError("--springiness applies to blocks, not to pegs") }
                    let shape: PegShape = size.map { .brick(width: $0.0, height: $0.1, rotation: rotation ?? 0) }
                        ?? .circle(radius: radius ?? 12)
                    let id = try level.add(Peg(id: 0, kind: kind, center: center, shape: shape))
                    return "added \(kind.rawValue) peg \(id) at (\(at.text))"
                case let (nil, shapeName?):
                    guard let shape = BlockShape(rawValue: shapeName) else {
                        throw UserError("--block: unknown shape '\(shapeName)' (expected rectangle or triangle)")
                    }
                    guard let size else { throw UserError("--size W,H is required for a block") }
                    if radius != nil { throw UserError("--radius applies to round pegs; a block takes --size W,H") }
                    let id = try level.add(Block(id: 0, shape: shape, center: center, width: size.0, height: size.1,
                                                 rotation: rotation ?? 0, springiness: springiness ?? 0))
                    return "added \(shape.rawValue) block \(id) at (\(at.text))"
                default:
                    throw UserError("give exactly one of --peg KIND or --block SHAPE")
                }
            }
        }
    }

    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Move an object's centre.")

        @OptionGroup var target: Target
        @OptionGroup var selector: Selector

        @Option(parsing: .unconditional, help: "New centre x,y.")
        var to: CommaList<Double>

        func run() throws {
            let p = try Parse.point(to, option: "--to")
            try target.edit { level in
                let id = try selector.resolve(level)
                try level.move(id: id, to: p)
                return "moved \(level.label(of: level.object(withId: id)!)) to (\(to.text))"
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an object.")

        @OptionGroup var target: Target
        @OptionGroup var selector: Selector

        func run() throws {
            try target.edit { level in
                let id = try selector.resolve(level)
                let label = level.object(withId: id).map { level.label(of: $0) } ?? "object \(id)"
                try level.remove(id: id)
                return "removed \(label)"
            }
        }
    }

    struct Resize: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resize an object: --radius for round pegs, --size W,H for bricks and blocks.")

        @OptionGroup var target: Target
        @OptionGroup var selector: Selector

        @Option(parsing: .unconditional, help: "New radius (round pegs).")
        var radius: Double?

        @Option(parsing: .unconditional, help: "New width,height (bricks and blocks).")
        var size: CommaList<Double>?

        func run() throws {
            let size = try self.size.map { try Parse.pair($0, option: "--size") }
            try target.edit { level in
                let id = try selector.resolve(level)
                switch (radius, size) {
                case let (r?, nil): try level.resize(id: id, radius: r)
                case let (nil, s?): try level.resize(id: id, width: s.0, height: s.1)
                default: throw UserError("give exactly one of --radius R or --size W,H")
                }
                return "resized \(level.label(of: level.object(withId: id)!))"
            }
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rotate a brick or block: --angle sets it, --by turns it (radians).")

        @OptionGroup var target: Target
        @OptionGroup var selector: Selector

        @Option(parsing: .unconditional, help: "New rotation, radians.")
        var angle: Double?

        @Option(parsing: .unconditional, help: "Turn by this many radians.")
        var by: Double?

        func run() throws {
            try target.edit { level in
                let id = try selector.resolve(level)
                let current: Double
                switch level.object(withId: id) {
                case let .peg(i)?:
                    if case let .brick(_, _, r) = level.pegs[i].shape { current = r } else { current = 0 }
                case let .block(i)?: current = level.blocks[i].rotation
                case nil: current = 0
                }
                let new: Double
                switch (angle, by) {
                case let (a?, nil): new = a
                case let (nil, d?): new = current + d
                default: throw UserError("give exactly one of --angle A or --by A")
                }
                try level.rotate(id: id, to: new)
                return "rotated \(level.label(of: level.object(withId: id)!)) to \(LevelCodec.number(new)) rad"
            }
        }
    }

    struct Kind: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a peg's kind.")

        @OptionGroup var target: Target
        @OptionGroup var selector: Selector

        @Option(help: "New kind: blue, orange, green, purple, zombie, confusement.")
        var to: String

        func run() throws {
            guard let kind = PegKind(rawValue: to) else {
                throw UserError("--to: unknown kind '\(to)' (expected one of: \(PegKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            try target.edit { level in
                let id = try selector.resolve(level)
                try level.setKind(id: id, to: kind)
                return "peg \(id) is now \(kind.rawValue)"
            }
        }
    }
}
