import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel

// The `peggle serve` requests, decoded from each line by `JSONDecoder` straight into typed
// values: a field of the wrong type, out of range or unknown is a `bad_request` naming it, for
// every command. `make` has a file of its own (MakeRequest.swift). The hot loop's plain `step`
// line is read into the same typed request without the decoder (StepLine.swift).

/// The protocol's commands, by their wire names.
public enum CommandName: String, Sendable, CaseIterable {
    case make, spaces, reset, step, render, snapshot, restore
    case dropSnapshot = "drop_snapshot"
    case close
    /// What this server accepts: every `make` field, command and error code (docs/protocol.md).
    case spec
    /// The whole state of the environments as bytes, and back (docs/protocol.md, "save_state").
    case saveState = "save_state"
    case loadState = "load_state"

    /// Commands added after protocol version 1's first clients, which its unknown-command message
    /// has never listed (`spec` lists every command).
    static let added: Set<CommandName> = [.spec, .saveState, .loadState]
}

/// One request line: its id and command.
package struct Request: Decodable {
    package var id: RequestID?
    package var command: Command

    package enum Command {
        case make(MakeRequest)
        case spaces
        case reset(ResetRequest)
        case step(StepRequest)
        case render(RenderRequest)
        case snapshot
        case restore(Int)
        case dropSnapshot(Int)
        case close
        case spec
        case saveState
        case loadState([UInt8])
    }

    /// A request whose fields were refused: the failure, and the id to echo with it.
    struct Refused: Error {
        var id: RequestID?
        var failure: EnvError
    }

    init(id: RequestID?, command: Command) {
        self.id = id
        self.command = command
    }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: FieldKey.self)
        do {
            id = try c.decodeIfPresent(RequestID.self, forKey: FieldKey("id"))
        } catch let f as EnvError {
            throw Refused(id: nil, failure: f)
        }
        do {
            guard c.contains(FieldKey("cmd")) else { throw EnvError.badRequest("missing \"cmd\" (a string)") }
            guard case let .string(cmd) = (try? c.decode(JSONScalar.self, forKey: FieldKey("cmd"))) ?? .other else {
                throw EnvError.badRequest("\"cmd\" must be a string")
            }
            guard let name = CommandName(rawValue: cmd) else {
                // The list is protocol version 1's, as clients have seen it; `spec` came later.
                throw EnvError(.unknownCommand, "unknown command \(MessageText.quoted(cmd)) (expected one of: "
                    + CommandName.allCases.filter { !CommandName.added.contains($0) }.map(\.rawValue).joined(separator: ", ") + ")")
            }
            switch name {
            case .make: command = .make(try MakeRequest(from: decoder))
            case .spaces: try Self.bare(decoder, name); command = .spaces
            case .reset: command = .reset(try ResetRequest(from: decoder))
            case .step: command = .step(try StepRequest(from: decoder))
            case .render: command = .render(try RenderRequest(from: decoder))
            case .snapshot: try Self.bare(decoder, name); command = .snapshot
            case .restore: command = .restore(try Self.snapshotNumber(decoder, name))
            case .dropSnapshot: command = .dropSnapshot(try Self.snapshotNumber(decoder, name))
            case .close: try Self.bare(decoder, name); command = .close
            case .spec: try Self.bare(decoder, name); command = .spec
            case .saveState: try Self.bare(decoder, name); command = .saveState
            case .loadState: command = .loadState(try Self.savedState(decoder, name))
            }
        } catch let f as EnvError {
            throw Refused(id: id, failure: f)
        }
    }

    /// A command that takes no fields besides `cmd` and `id`.
    static func bare(_ decoder: Decoder, _ name: CommandName) throws {
        _ = try Fields(decoder, command: name.rawValue, known: [])
    }

    /// `load_state`'s bytes: `"state"`, the base64 text `save_state` replied.
    static func savedState(_ decoder: Decoder, _ name: CommandName) throws -> [UInt8] {
        let f = try Fields(decoder, command: name.rawValue, known: ["state"])
        guard let text = try f.string("state") else {
            throw EnvError.badRequest("\(name.rawValue): give \"state\", the base64 text `save_state` replied")
        }
        guard let bytes = Data(base64Encoded: text) else {
            throw EnvError.badRequest("\(name.rawValue): \"state\" is not base64 text (\(text.utf8.count) characters)")
        }
        return [UInt8](bytes)
    }

    static func snapshotNumber(_ decoder: Decoder, _ name: CommandName) throws -> Int {
        let f = try Fields(decoder, command: name.rawValue, known: ["snapshot"])
        guard let k = try f.int("snapshot", Int.min...Int.max) else {
            throw EnvError.badRequest("\(name.rawValue): give \"snapshot\", the number `snapshot` replied")
        }
        return k
    }

    /// Decodes a request line. Throws `Refused` (a failure and the id to echo) for a line that
    /// is not a JSON object or a request the protocol refuses.
    static func decode(_ line: String) throws(Refused) -> Request {
        // The step as clients send it every step, read without the decoder; any other line, and
        // any step it does not read plainly, goes on to the decoder.
        if let step = StepLine.parse(line) { return step }
        do {
            return try JSONDecoder().decode(Request.self, from: Data(line.utf8))
        } catch let r as Refused {
            throw r
        } catch {
            throw Refused(id: nil, failure: EnvError(.badJSON, "the line is not a JSON object (note: JSON has no NaN or Infinity)"))
        }
    }
}

/// `reset`.
package struct ResetRequest: Decodable {
    var seed: UInt64?
    var mask: [Bool]?
    /// A level index, or a name to look up.
    var level: Level?

    package enum Level { case index(Int), name(String) }

    /// A reset as the native library's caller asks for it.
    package init(seed: UInt64?, mask: [Bool]?, level: Level?) {
        self.seed = seed
        self.mask = mask
        self.level = level
    }

    package init(from decoder: Decoder) throws {
        let f = try Fields(decoder, command: "reset", known: ["seed", "options", "reset_mask"])
        seed = try f.int("seed", 0...Int.max).map(UInt64.init)
        let options = try f.object("options", command: "reset", known: ["level", "reset_mask"])
        let bools: (JSONScalar, Int) throws -> Bool = { s, _ in
            guard case let .bool(b) = s else { throw EnvError.badRequest("reset: \"reset_mask\" must be a list of booleans") }
            return b
        }
        mask = try f.list("reset_mask", bools) ?? options?.list("reset_mask", bools)
        if let options, options.has("level") {
            if case let .string(name) = options.scalar("level") {
                level = .name(name)
            } else {
                level = .index(try options.int("level", 0...Int.max)!)
            }
        }
    }
}

/// `step`: one action per environment (a bare number when there is one environment).
package struct StepRequest: Decodable {
    package var actions: [Double]

    init(actions: [Double]) { self.actions = actions }

    package init(from decoder: Decoder) throws {
        let f = try Fields(decoder, command: "step", known: ["actions"])
        guard f.has("actions") else { throw EnvError.badRequest("step: missing \"actions\"") }
        if let fast = f.doubles("actions") {
            actions = fast
        } else if let one = f.singleDouble("actions") {
            actions = [one]
        } else if let list = try? f.list("actions", { s, i in s }) {
            actions = try list.enumerated().map { i, s in try Self.action(s, i) }
        } else {
            actions = [try Self.action(f.scalar("actions"), 0)]
        }
    }

    /// Action `i`'s number, or a refusal naming it.
    static func action(_ s: JSONScalar, _ i: Int) throws -> Double {
        if let d = s.number { return d }
        if case .beyondDouble = s { throw EnvError(.badAction, "step: action \(i) is \(JSONScalar.beyondDoubleText)") }
        throw EnvError(.badAction, "step: action \(i) is not a number")
    }
}

/// What `render` draws.
public enum RenderFormat: String, Sendable, CaseIterable {
    /// The board and the latest shot as an SVG document.
    case svg
    /// The board as 80 x 30 characters and a status line.
    case ansi
    /// The board as RGB pixels, base64 (the only format that takes a width).
    case rgb
}

/// `render`.
package struct RenderRequest: Decodable {
    var env = 0
    var format = RenderFormat.svg
    var width: Int?

    package init(from decoder: Decoder) throws {
        let f = try Fields(decoder, command: "render", known: ["env", "format", "width"])
        env = try f.int("env", 0...Int.max) ?? env
        if let name = try f.string("format") {
            guard let chosen = RenderFormat(rawValue: name) else {
                throw EnvError.badRequest("render: format \(MessageText.quoted(name)) is not "
                    + MessageText.oneOf(RenderFormat.allCases.map(\.rawValue)))
            }
            format = chosen
        }
        if f.has("width") && format != .rgb {
            let shown = f.scalar("width").number.map { LevelCodec.number($0) } ?? "given"
            throw EnvError.badRequest("render: \"width\" is \(shown), but only format rgb takes a width")
        }
        width = try f.int("width", ServeSession.rgbWidths)
    }
}
