import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleServe
import PeggleTestSupport
import Testing

/// `spec`: the server says what `make` takes, from the same table its decoder reads, with the
/// defaults `EnvConfig` declares; docs/protocol.md lists the same fields.
@Suite("Serve spec")
struct ServeSpecTests {
    static func spec() throws -> [String: Any] {
        try ServeProtocolTests.reply(ServeProtocolTests.session(), #"{"id": 1, "cmd": "spec"}"#)
    }

    static func options() throws -> [String: [String: Any]] {
        let list = try #require(try spec()["make"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as! String, $0) })
    }

    @Test func listsCommandsErrorCodesAndEveryMakeField() throws {
        let s = try Self.spec()
        #expect(s["ok"] as? Bool == true && s["id"] as? Int == 1)
        #expect(s["protocol"] as? Int == ServeSession.protocolVersion)
        #expect(s["commands"] as? [String] == CommandName.allCases.map(\.rawValue))
        #expect(s["error_codes"] as? [String] == ErrorCode.allCases.map(\.rawValue))
        #expect(s["render_formats"] as? [String] == ["svg", "ansi", "rgb"])
        let names = try #require(s["make"] as? [[String: Any]]).map { $0["name"] as! String }
        #expect(names == ["levels", "level", "level_order", "num_envs", "encoder", "max_objects", "reward", "autoreset",
                          "action", "bins", "max_shots", "threads", "seed", "obs_encoding", "trajectory", "mode",
                          "info_layout", "num_levels", "start_level", "distribution_mode", "templates", "aim_noise",
                          "bucket_start", "cycle_start", "pixel_width", "physics"])
    }

    /// `info` lists every key an info can have, in the replies' order, with its type; clients
    /// (peggle_gym) type their arrays by it instead of restating the keys.
    @Test func listsEveryInfoKeyWithItsType() throws {
        let listed = try #require(try Self.spec()["info"] as? [[String: Any]])
        #expect(listed.map { "\($0["name"] as! String):\($0["type"] as! String)" } == [
            "level:int", "level_name:string", "level_seed:uint64", "score:int", "balls_left:int", "orange_left:int",
            "shots:int", "status:string", "won:bool", "game_seed:uint64", "angle:number", "fired_angle:number",
            "pegs_hit:int", "hits:object", "points:int", "free_balls:int", "caught:int", "trajectory:trajectory"])
        let hits = try #require(listed.first { $0["name"] as? String == "hits" }?["keys"] as? [[String: Any]])
        #expect(hits.map { $0["name"] as! String } == PegKind.allCases.map(\.rawValue))
        #expect(hits.allSatisfy { $0["type"] as? String == "int" && $0["keys"] == nil })
        #expect(listed.filter { $0["keys"] != nil }.count == 1)
    }

    /// Every value a session writes is of its key's declared type: a reset's infos and a shot's,
    /// on procedural levels with trajectories, so every key (nested ones too) is seen.
    @Test func everyInfoValueIsOfItsKeysType() throws {
        let s = ServeProtocolTests.session()
        var seen = Set<String>()
        func check(reset: Bool) throws {
            for slot in try #require(s.vec).slots {
                withUnsafePointer(to: slot.info) { p in
                    for k in ServeSession.infoKeys {
                        guard let v = k.value(p, reset, s) else { continue }
                        #expect(Self.type(of: v) == k.type, "\(k.name)")
                        seen.insert(k.name)
                        for sub in k.keys {
                            guard let value = sub.value(p, reset, s) else { continue }
                            #expect(Self.type(of: value) == sub.type, "\(k.name).\(sub.name)")
                            seen.insert(k.name + "." + sub.name)
                        }
                    }
                }
            }
        }
        for line in [#"{"cmd": "make", "num_levels": 3, "num_envs": 2, "trajectory": true}"#, #"{"cmd": "reset", "seed": 4}"#] {
            #expect(try ServeProtocolTests.reply(s, line)["ok"] as? Bool == true)
        }
        try check(reset: true)
        #expect(try ServeProtocolTests.reply(s, #"{"cmd": "step", "actions": [0.1, -0.3]}"#)["ok"] as? Bool == true)
        try check(reset: false)
        let all = ServeSession.infoKeys.flatMap { k in [k.name] + k.keys.map { k.name + "." + $0.name } }
        #expect(seen == Set(all))
    }

    static func type(of v: InfoValue) -> InfoType {
        switch v {
        case .int: .int
        case .uint: .uint64
        case .number: .number
        case .bool: .bool
        case .string: .string
        case .object: .object
        case .trajectory: .trajectory
        }
    }

    /// The defaults reported are EnvConfig's and VectorConfig's (the only place they are written).
    @Test func defaultsAreTheConfigsOwn() throws {
        let o = try Self.options()
        let config = EnvConfig(levels: []), vector = VectorConfig(), procedural = ProceduralLevels()
        #expect(o["max_shots"]?["default"] as? Int == config.maxShots)
        #expect(o["max_objects"]?["default"] as? Int == config.maxObjects)
        #expect(o["bins"]?["default"] as? Int == config.bins)
        #expect(o["pixel_width"]?["default"] as? Int == config.pixelWidth)
        #expect(o["aim_noise"]?["default"] as? Double == config.aimNoise)
        #expect(o["physics"]?["default"] as? Int == config.rules.physicsVersion.rawValue)
        #expect(o["trajectory"]?["default"] as? Bool == config.recordTrajectory)
        #expect(o["encoder"]?["default"] as? String == config.encoder.rawValue)
        #expect(o["reward"]?["default"] as? String == config.reward.rawValue)
        #expect(o["action"]?["default"] as? String == config.action.rawValue)
        #expect(o["bucket_start"]?["default"] as? String == config.bucketStart.rawValue)
        #expect(o["cycle_start"]?["default"] as? String == config.cycleStart.rawValue)
        #expect(o["level_order"]?["default"] as? String == config.order.rawValue)
        #expect(o["num_envs"]?["default"] as? Int == vector.count)
        #expect(o["threads"]?["default"] as? Int == vector.threads)
        #expect(o["seed"]?["default"] as? Int == Int(vector.seed))
        #expect(o["autoreset"]?["default"] as? String == vector.autoreset.rawValue)
        #expect(o["distribution_mode"]?["default"] as? String == procedural.distribution.rawValue)
        #expect(o["templates"]?["default"] as? [String] == procedural.templates.map(\.rawValue))
        #expect(o["levels"]?["default"] is NSNull)
        // Types, ranges and choices as the decoder checks them.
        #expect(o["max_shots"]?["type"] as? String == "int")
        #expect(o["max_shots"]?["min"] as? Int == 1 && o["max_shots"]?["max"] as? Int == 1_000_000)
        #expect(o["aim_noise"]?["type"] as? String == "number" && o["aim_noise"]?["max"] as? Double == 1)
        #expect(o["encoder"]?["choices"] as? [String] == ["objects", "grid", "pixels", "aim"])
        #expect(o["trajectory"]?["type"] as? String == "bool")
        let modes = try #require(o["mode"]?["modes"] as? [String: [String: Any]])
        #expect(modes["dodge"]?["shots"] as? Int == 5)
        #expect(modes["classic"]?["balls"] as? Int == 10)
        #expect(modes["beat_the_score"]?["target_score"] as? Int == 50_000)
        #expect(o.values.allSatisfy { ($0["help"] as? String)?.isEmpty == false })
    }

    /// The fields that ask for procedural levels are marked (clients read which they are here),
    /// and only those.
    @Test func marksTheProceduralFields() throws {
        let list = try #require(try Self.spec()["make"] as? [[String: Any]])
        let marked = list.filter { $0["procedural"] as? Bool == true }.map { $0["name"] as! String }
        #expect(marked == ["num_levels", "start_level", "distribution_mode", "templates"])
        #expect(list.allSatisfy { $0["procedural"] == nil || $0["procedural"] as? Bool == true })
        // Each of them alone asks for procedural levels, and none goes with level files.
        for name in marked {
            let value = name == "templates" ? #"["rows"]"# : name == "distribution_mode" ? #""easy""# : "3"
            let made = try ServeProtocolTests.reply(ServeProtocolTests.session(), #"{"cmd": "make", "\#(name)": \#(value)}"#)
            #expect(made["ok"] as? Bool == true && made["procedural"] != nil, "\(name)")
            let mixed = try ServeProtocolTests.reply(ServeProtocolTests.session(),
                                                     #"{"cmd": "make", "level": "Levels/first-steps.json", "\#(name)": \#(value)}"#)
            #expect(ServeProtocolTests.errorCode(mixed) == "bad_request", "\(name)")
        }
    }

    /// The `make` reply echoes what the request resolved to: the fields given, the defaults of
    /// those not given, and the procedural fields in `procedural`.
    @Test func makeEchoesTheResolvedOptions() throws {
        let made = try ServeProtocolTests.reply(ServeProtocolTests.session(),
                                                #"{"cmd": "make", "num_levels": 7, "num_envs": 2, "aim_noise": 0.25, "obs_encoding": "b64f32"}"#)
        #expect(made["num_envs"] as? Int == 2 && made["aim_noise"] as? Double == 0.25 && made["obs_encoding"] as? String == "b64f32")
        #expect(made["autoreset"] as? String == VectorConfig().autoreset.rawValue)
        #expect(made["info_layout"] as? String == "rows" && made["bucket_start"] as? String == EnvConfig(levels: []).bucketStart.rawValue)
        let procedural = try #require(made["procedural"] as? [String: Any])
        #expect(procedural["num_levels"] as? Int == 7 && procedural["start_level"] as? Int == 0)
        #expect(procedural["distribution_mode"] as? String == ProceduralLevels().distribution.rawValue)
        #expect(procedural["templates"] as? [String] == ProceduralLevels().templates.map(\.rawValue))
        let files = try ServeProtocolTests.reply(ServeProtocolTests.session(), #"{"cmd": "make", "level": "Levels/first-steps.json"}"#)
        #expect(files["procedural"] == nil && files["levels"] as? [String] == ["First Steps"])
    }

    /// docs/protocol.md's make table has one row per field the server takes, and its defaults
    /// are the server's (a doc that disagrees with the code is a bug).
    /// docs/protocol.md's make table: each field's cells (default, meaning).
    static func documentedMakeFields() throws -> [String: [String]] {
        let doc = String(decoding: try Repository.data("docs/protocol.md"), as: UTF8.self)
        let table = try #require(doc.components(separatedBy: "### `make`").dropFirst().first?
            .components(separatedBy: "\n\n").first { $0.contains("| field | default | meaning |") })
        var rows: [String: [String]] = [:]
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Array(cells[2...3])
        }
        return rows
    }

    @Test func theProtocolDocListsTheSameFields() throws {
        let documented = try Self.documentedMakeFields().mapValues { $0[0] }
        let o = try Self.options()
        #expect(Set(documented.keys) == Set(o.keys))
        for (name, option) in o {
            let shown: String
            switch option["type"] as? String {
            case "choice": shown = "`\(option["default"] as! String)`"
            case "bool": shown = option["default"] as! Bool ? "true" : "false"
            case "int": shown = "\(option["default"] as! Int)"
            case "number": shown = LevelCodec.number(option["default"] as! Double)
            default: continue  // no single default (levels, mode, templates): described in words
            }
            #expect(documented[name] == shown, "docs/protocol.md's default of \(name)")
        }
    }

    /// Each closed choice's values, as the server takes them, are in its row of docs/protocol.md's
    /// make table (a value the code added, such as a `distribution_mode`, cannot go unlisted).
    @Test func theProtocolDocListsEveryChoice() throws {
        let meaning = try Self.documentedMakeFields().mapValues { $0[1] }
        var checked = 0
        for (name, option) in try Self.options() {
            guard let choices = option["choices"] as? [String] else { continue }
            let row = try #require(meaning[name], "docs/protocol.md has no row for \(name)")
            let missing = choices.filter { !row.contains("`\($0)`") }
            #expect(missing.isEmpty, "docs/protocol.md's \(name) row does not list \(missing)")
            checked += 1
        }
        #expect(checked >= 8)
        #expect(try #require(Self.options()["distribution_mode"]?["choices"] as? [String]).count == 6)
    }
}
