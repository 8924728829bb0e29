import ArgumentParser
import Foundation
import PeggleGame
import PegglePhysics

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

        @Option(name: [.short, .long], help: "Write the edited level here instead of over FILE.")
        var output: String?

        /// Loads the level, applies `change`, and saves; returns the message to print.
        func edit(_ change: (inout Level) throws -> String) throws {
            var level = try Files.decodeLevel(file)
            let did: String
            do {
                did = try change(&level)
            } catch let e as EditError {
                throw UserError("\(file): refused: \(e.message)")
            }
            var path = output ?? file
            var note = ""
            if level.readOnly && output == nil {
                level.readOnly = false
                let dir = Files.folder(of: file)
                level.name = uniqueName(level.name + " (copy)", in: dir, except: nil)
                path = (dir as NSString).appendingPathComponent(Files.slug(level.name) + ".json")
                note = " (\(file) is read-only; saved the edit as a copy)"
            } else if path != file {
                level.readOnly = false
                let unique = uniqueName(level.name, in: Files.folder(of: path), except: path)
                if unique != level.name {
                    note = " (renamed '\(level.name)' to '\(unique)': names are unique per folder)"
                    level.name = unique
                }
            }
            try Files.write(LevelCodec.encode(level), to: path)
            printLine("\(did) in \(path)\(note)")
        }

        /// `base`, or `base 2`, `base 3`... whichever no other level in `dir` is named.
        func uniqueName(_ base: String, in dir: String, except: String?) -> String {
            let taken = Set(Files.levelNames(in: dir).filter { $0.key != except }.values.map { $0.lowercased() })
            var name = base, n = 2
            while taken.contains(name.lowercased()) {
                name = "\(base) \(n)"
                n += 1
            }
            return name
        }
    }

    /// Which object: by id or by a point inside it.
    struct Selector: ParsableArguments {
        @Option(help: "Id of the object.")
        var id: Int?

        @Option(help: "Pick the object under the point x,y (board units).")
        var at: String?

        func resolve(_ level: Level) throws -> Int {
            switch (id, at) {
            case let (id?, nil):
                return id
            case let (nil, text?):
                let p = try Parse.point(text, option: "--at")
                guard let o = level.object(at: p) else {
                    throw UserError("--at: no object at (\(text))")
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

        @Option(help: "Centre x,y (board units).")
        var at: String

        @Option(help: "Radius of a round peg (default 12).")
        var radius: Double?

        @Option(help: "Width,height: makes a peg a brick; required for blocks.")
        var size: String?

        @Option(help: "Rotation in radians (bricks and blocks).")
        var rotation: Double = 0

        @Option(help: "Block springiness, 0...1.")
        var springiness: Double = 0

        func run() throws {
            let center = try Parse.point(at, option: "--at")
            let size = try self.size.map { try Parse.pair($0, option: "--size") }
            try target.edit { level in
                switch (peg, block) {
                case let (kindName?, nil):
                    guard let kind = PegKind(rawValue: kindName) else {
                        throw UserError("--peg: unknown kind '\(kindName)' (expected one of: \(PegKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    let shape: PegShape = size.map { .brick(width: $0.0, height: $0.1, rotation: rotation) }
                        ?? .circle(radius: radius ?? 12)
                    let id = try level.add(Peg(id: 0, kind: kind, center: center, shape: shape))
                    return "added \(kind.rawValue) peg \(id) at (\(at))"
                case let (nil, shapeName?):
                    guard let shape = BlockShape(rawValue: shapeName) else {
                        throw UserError("--block: unknown shape '\(shapeName)' (expected rectangle or triangle)")
                    }
                    guard let size else { throw UserError("--size W,H is required for a block") }
                    let id = try level.add(Block(id: 0, shape: shape, center: center, width: size.0, height: size.1,
                                                 rotation: rotation, springiness: springiness))
                    return "added \(shape.rawValue) block \(id) at (\(at))"
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

        @Option(help: "New centre x,y.")
        var to: String

        func run() throws {
            let p = try Parse.point(to, option: "--to")
            try target.edit { level in
                let id = try selector.resolve(level)
                try level.move(id: id, to: p)
                return "moved \(level.label(of: level.object(withId: id)!)) to (\(to))"
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

        @Option(help: "New radius (round pegs).")
        var radius: Double?

        @Option(help: "New width,height (bricks and blocks).")
        var size: String?

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

        @Option(help: "New rotation, radians.")
        var angle: Double?

        @Option(help: "Turn by this many radians.")
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
