import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleServe
import PeggleTestSupport
import PeggleUtilities
import Testing

@Suite("Serve protocol")
struct ServeProtocolTests {
    /// A session whose levels come from the repository's Levels folder.
    static func session(memoryBudget: Int = ServeSession.defaultMemoryBudget) -> ServeSession {
        ServeSession(
            loadLevel: { path in
                guard let data = FileManager.default.contents(atPath: Repository.url(path).path) else {
                    throw ServeTestError(message: "\(path): no such file")
                }
                return try LevelCodec.decode(data)
            },
            renderSVG: { state, shots in "<svg><!-- \(state.level.name), \(shots.count) shots --></svg>" },
            memoryBudget: memoryBudget)
    }

    static func reply(_ s: ServeSession, _ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(s.handle(line).utf8)) as? [String: Any])
    }

    static func errorCode(_ r: [String: Any]) -> String? {
        guard r["ok"] as? Bool == false else { return nil }
        return (r["error"] as? [String: Any])?["code"] as? String
    }

    static let make = #"{"id": 1, "cmd": "make", "levels": ["Levels/first-steps.json", "Levels/upside-down.json"], "num_envs": 3, "max_objects": 40, "max_shots": 4}"#

    @Test func helloNamesTheProtocolAndEngine() throws {
        let h = try #require(JSONSerialization.jsonObject(with: Data(ServeSession.hello.utf8)) as? [String: Any])
        #expect(h["protocol"] as? Int == 1)
        #expect((h["engine"] as? String)?.hasPrefix("peggle-gym ") == true)
    }

    @Test func makeResetStepRoundTrip() throws {
        let s = Self.session()
        let made = try Self.reply(s, Self.make)
        #expect(made["ok"] as? Bool == true)
        #expect(made["id"] as? Int == 1)
        #expect(made["num_envs"] as? Int == 3)
        let obsSpace = try #require(made["observation_space"] as? [String: Any])
        #expect(obsSpace["dtype"] as? String == "float32")
        #expect(obsSpace["shape"] as? [Int] == [17 + 40 * 17])
        let reset = try Self.reply(s, #"{"id": "r", "cmd": "reset", "seed": 4}"#)
        #expect(reset["id"] as? String == "r")
        let obs = try #require(reset["obs"] as? [[Double]])
        #expect(obs.count == 3 && obs.allSatisfy { $0.count == 697 })
        #expect((reset["infos"] as? [Any])?.count == 3)
        let step = try Self.reply(s, #"{"cmd": "step", "actions": [0.1, -0.2, 0.3]}"#)
        #expect((step["rewards"] as? [Double])?.count == 3)
        #expect((step["terminated"] as? [Bool])?.count == 3)
        let infos = try #require(step["infos"] as? [[String: Any]])
        #expect(infos.allSatisfy { $0["angle"] != nil && $0["hits"] is [String: Any] })
    }

    /// JSON arrays and base64 float32 carry the same observations, bit for bit.
    @Test func base64MatchesJSON() throws {
        func observations(_ encoding: String) throws -> [Float] {
            let s = Self.session()
            _ = try Self.reply(s, Self.make.replacingOccurrences(of: "\"id\": 1,", with: "\"obs_encoding\": \"\(encoding)\","))
            _ = try Self.reply(s, #"{"cmd": "reset", "seed": 11}"#)
            let step = try Self.reply(s, #"{"cmd": "step", "actions": [0.5, 0.0, -0.5]}"#)
            if encoding == "json" { return (step["obs"] as! [[Double]]).flatMap { $0.map(Float.init) } }
            let data = try #require(Data(base64Encoded: step["obs_b64"] as! String))
            #expect(step["obs_shape"] as? [Int] == [3, 697])
            return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        #expect(try observations("json") == observations("b64f32"))
    }

    /// Floats from a frame's bytes (little-endian float32).
    static func floats(_ bytes: some Collection<UInt8>) -> [Float] {
        Array(bytes).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// The f32 frame carries the same observations as base64 and JSON, bit for bit, and its
    /// length is what the line says: obs_bytes from obs_shape, frame_bytes the whole frame.
    @Test func frameMatchesBase64AndJSON() throws {
        func run(_ encoding: String) throws -> (obs: [[UInt32]], final: [UInt32]) {
            let s = Self.session()
            let made = try Self.reply(s, #"{"cmd": "make", "levels": ["Levels/first-steps.json"], "num_envs": 3, "max_objects": 40, "max_shots": 2, "autoreset": "same_step", "obs_encoding": "\#(encoding)"}"#)
            #expect(made["obs_encoding"] as? String == encoding)
            var all: [[UInt32]] = []
            var final: [UInt32] = []
            // Reset, then two steps: environment 0 wins on the first, all end by the second, so
            // the replies carry final observations too.
            for request in [#"{"cmd": "reset", "seed": 1}"#, #"{"cmd": "step", "actions": [-0.41833333333333333, 0.6, 0.6]}"#,
                            #"{"cmd": "step", "actions": [0.6, 0.6, 0.6]}"#] {
                let (line, frame) = s.handleWithFrame(request)
                let r = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                try #require(r["ok"] as? Bool == true, "\(line)")
                #expect(r["obs_shape"] as? [Int] == [3, 697])
                let hasFinal = r["final_mask"] != nil
                var obs: [Float], fin: [Float] = []
                switch encoding {
                case "f32":
                    #expect(r["obs"] == nil && r["obs_b64"] == nil)
                    #expect(r["obs_bytes"] as? Int == 3 * 697 * 4)
                    #expect(r["frame_bytes"] as? Int == (hasFinal ? 2 : 1) * 3 * 697 * 4)
                    #expect(frame.count == r["frame_bytes"] as? Int)
                    obs = Self.floats(frame.prefix(3 * 697 * 4))
                    if hasFinal {
                        #expect(r["final_obs_bytes"] as? Int == 3 * 697 * 4)
                        #expect(r["final_obs_shape"] as? [Int] == [3, 697])
                        fin = Self.floats(frame.dropFirst(3 * 697 * 4))
                    }
                case "b64f32":
                    #expect(frame.isEmpty && r["frame_bytes"] == nil)
                    obs = Self.floats(try #require(Data(base64Encoded: r["obs_b64"] as! String)))
                    if hasFinal { fin = Self.floats(try #require(Data(base64Encoded: r["final_obs_b64"] as! String))) }
                default:
                    #expect(frame.isEmpty && r["frame_bytes"] == nil)
                    obs = (r["obs"] as! [[Double]]).flatMap { $0.map(Float.init) }
                    if hasFinal { fin = (r["final_obs"] as! [[Double]]).flatMap { $0.map(Float.init) } }
                }
                #expect(obs.count == 3 * 697)
                all.append(obs.map(\.bitPattern))
                final += fin.map(\.bitPattern)
            }
            return (all, final)
        }
        let f32 = try run("f32"), b64 = try run("b64f32"), json = try run("json")
        #expect(f32.final.count == 2 * 3 * 697, "both steps should carry final observations")
        #expect(f32.obs == b64.obs && f32.final == b64.final)
        #expect(f32.obs == json.obs && f32.final == json.final)
    }

    /// With f32, error replies and replies without observations are plain lines; restore's
    /// observations come in a frame; the session keeps serving after garbage.
    @Test func frameOnlyWithObservations() throws {
        let s = Self.session()
        let make = Self.make.replacingOccurrences(of: "\"id\": 1,", with: "\"obs_encoding\": \"f32\",")
        #expect(s.handleWithFrame(make).frame.isEmpty)
        #expect(s.handleWithFrame(#"{"cmd": "reset", "seed": 5}"#).frame.count == 3 * 697 * 4)
        let snap = try #require(try Self.reply(s, #"{"cmd": "snapshot"}"#)["snapshot"] as? Int)
        let stepped = s.handleWithFrame(#"{"cmd": "step", "actions": [0.1, 0.2, 0.3]}"#)
        for bad in ["garbage", #"{"cmd": "step", "actions": [0, 0]}"#, #"{"cmd": "fly"}"#, #"{"cmd": "spaces"}"#,
                    #"{"cmd": "render", "format": "ansi"}"#] {
            let (line, frame) = s.handleWithFrame(bad)
            #expect(frame.isEmpty, "\(bad)")
            #expect(!line.contains("frame_bytes"), "\(bad)")
        }
        let restored = s.handleWithFrame(#"{"cmd": "restore", "snapshot": \#(snap)}"#)
        #expect(restored.line.contains(#""frame_bytes":8364"#))
        #expect(restored.frame.count == 3 * 697 * 4)
        let again = s.handleWithFrame(#"{"cmd": "step", "actions": [0.1, 0.2, 0.3]}"#)
        #expect(again.frame == stepped.frame)
        #expect(Self.errorCode(try Self.reply(s, #"{"cmd": "make", "level": "Levels/first-steps.json", "obs_encoding": "f64"}"#)) == "bad_request")
    }

    /// The loop hands each reply's frame to the writer with its line, in order.
    @Test func loopPassesFrames() throws {
        var input = [Self.make.replacingOccurrences(of: "\"id\": 1,", with: "\"obs_encoding\": \"f32\","),
                     #"{"id": 2, "cmd": "reset", "seed": 1}"#, "junk", #"{"id": 3, "cmd": "step", "actions": [0, 0, 0]}"#,
                     #"{"id": 4, "cmd": "step", "actions": [0]}"#, #"{"id": 5, "cmd": "step", "actions": [0.5, 0.5, 0.5]}"#]
        var out: [(id: Int?, frameBytes: Int?, frame: Int)] = []
        ServeSession.run(Self.session(), readLine: { input.isEmpty ? nil : input.removeFirst() },
                         write: { line, frame in
                             let o = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
                             out.append((o?["id"] as? Int, o?["frame_bytes"] as? Int, frame.reduce(0) { $0 + $1.count * 4 }))
                             return true
                         })
        #expect(out.map(\.id) == [nil, nil, 2, nil, 3, 4, 5])
        #expect(out.map(\.frame) == [0, 0, 8364, 0, 8364, 0, 8364])
        #expect(out.allSatisfy { ($0.frameBytes ?? 0) == $0.frame })
    }

    /// Bad requests get an error reply with a code, and the session keeps serving.
    @Test(arguments: [
        ("this is not json", "bad_json"),
        ("[1, 2, 3]", "bad_json"),
        (#"{"cmd": 5}"#, "bad_request"),
        (#"{"cmd": "fly"}"#, "unknown_command"),
        (#"{"cmd": "step", "actions": [0, 0]}"#, "bad_action"),
        (#"{"cmd": "step", "actions": [0, 0, 1.5]}"#, "bad_action"),
        (#"{"cmd": "step", "actions": [0, "NaN", 0]}"#, "bad_action"),
        (#"{"cmd": "step", "actions": [0, true, 0]}"#, "bad_action"),
        (#"{"cmd": "step"}"#, "bad_request"),
        (#"{"cmd": "reset", "seed": -1}"#, "bad_request"),
        (#"{"cmd": "reset", "reset_mask": [true]}"#, "bad_request"),
        (#"{"cmd": "render", "env": 7}"#, "bad_request"),
        (#"{"cmd": "restore", "snapshot": 99}"#, "no_snapshot"),
        (#"{"cmd": "make", "levels": ["Levels/none.json"]}"#, "level_error"),
        (#"{"cmd": "make", "levels": ["Levels/first-steps.json"], "encoder": "photo"}"#, "bad_request"),
        (#"{"cmd": "make", "levels": ["Levels/first-steps.json"], "num_envs": 0}"#, "bad_request"),
        (#"{"cmd": "make", "levels": ["Levels/bench-grid.json"], "max_objects": 50}"#, "level_error"),
        (#"{"cmd": "make", "level": "Levels/first-steps.json", "colour": "red"}"#, "bad_request"),
    ])
    func badRequests(line: String, code: String) throws {
        let s = Self.session()
        _ = try Self.reply(s, Self.make)
        _ = try Self.reply(s, #"{"cmd": "reset", "seed": 1}"#)
        #expect(Self.errorCode(try Self.reply(s, line)) == code, "\(line)")
        // Still serving, and the failed request changed nothing.
        let step = try Self.reply(s, #"{"cmd": "step", "actions": [0.1, 0.1, 0.1]}"#)
        #expect(step["ok"] as? Bool == true)
    }

    @Test func orderOfCommandsIsChecked() throws {
        let s = Self.session()
        #expect(Self.errorCode(try Self.reply(s, #"{"cmd": "reset"}"#)) == "not_made")
        #expect(Self.errorCode(try Self.reply(s, #"{"cmd": "spaces"}"#)) == "not_made")
        _ = try Self.reply(s, Self.make)
        #expect(Self.errorCode(try Self.reply(s, #"{"cmd": "step", "actions": [0, 0, 0]}"#)) == "not_reset")
        #expect(Self.errorCode(try Self.reply(s, #"{"cmd": "render"}"#)) == "not_reset")
    }

    @Test func missingLevelNamesTheFile() throws {
        let r = try Self.reply(Self.session(), #"{"cmd": "make", "levels": ["Levels/none.json"]}"#)
        #expect(((r["error"] as? [String: Any])?["message"] as? String)?.contains("Levels/none.json") == true)
    }

    @Test func snapshotRestoreReplays() throws {
        let s = Self.session()
        _ = try Self.reply(s, Self.make)
        _ = try Self.reply(s, #"{"cmd": "reset", "seed": 2}"#)
        let snap = try Self.reply(s, #"{"cmd": "snapshot"}"#)
        let id = try #require(snap["snapshot"] as? Int)
        let first = try Self.reply(s, #"{"cmd": "step", "actions": [0.2, 0.4, -0.6]}"#)
        let restored = try Self.reply(s, #"{"cmd": "restore", "snapshot": \#(id)}"#)
        #expect(restored["ok"] as? Bool == true)
        let again = try Self.reply(s, #"{"cmd": "step", "actions": [0.2, 0.4, -0.6]}"#)
        #expect(first["obs"] as? [[Double]] == again["obs"] as? [[Double]])
        #expect(first["rewards"] as? [Double] == again["rewards"] as? [Double])
        #expect(try Self.reply(s, #"{"cmd": "drop_snapshot", "snapshot": \#(id)}"#)["ok"] as? Bool == true)
        #expect(Self.errorCode(try Self.reply(s, #"{"cmd": "restore", "snapshot": \#(id)}"#)) == "no_snapshot")
    }

    @Test func renderSVGAndText() throws {
        let s = Self.session()
        _ = try Self.reply(s, Self.make)
        _ = try Self.reply(s, #"{"cmd": "reset", "seed": 2}"#)
        let svg = try Self.reply(s, #"{"cmd": "render", "env": 1}"#)
        #expect((svg["svg"] as? String)?.hasPrefix("<svg") == true)
        let text = try Self.reply(s, #"{"cmd": "render", "env": 0, "format": "ansi"}"#)
        let t = try #require(text["text"] as? String)
        #expect(t.contains("V") && t.contains("O"))  // cannon and orange pegs
        #expect(t.split(separator: "\n").count == 33)  // border, 30 rows, border, status
    }

    /// The loop: hello first, a reply per line in order (pipelined), blank lines skipped, and it
    /// stops at end of input or after close.
    @Test func loopRepliesInOrder() throws {
        var input = [Self.make, "", #"{"id": 2, "cmd": "reset", "seed": 1}"#, "junk", #"{"id": 3, "cmd": "spaces"}"#,
                     #"{"id": 4, "cmd": "close"}"#, #"{"id": 5, "cmd": "spaces"}"#]
        var out: [String] = []
        ServeSession.run(Self.session(), readLine: { input.isEmpty ? nil : input.removeFirst() },
                         write: { line, frame in
                             #expect(frame.isEmpty, "json replies have no frame")
                             out.append(String(decoding: line, as: UTF8.self))
                             return true
                         })
        #expect(out.count == 6)  // hello + make, reset, junk, spaces, close; nothing after close
        let ids = out.dropFirst().map { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? Int }
        #expect(ids == [1, 2, nil, 3, 4])
        // A client that goes away ends the loop at once.
        var calls = 0
        ServeSession.run(Self.session(), readLine: { calls += 1; return Self.make }, write: { _, _ in false })
        #expect(calls == 0)
    }
}

struct ServeTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

@Suite("Serve protocol: numbers")
struct ServeNumberTests {
    @Test func theWholeSeedRangeIsAccepted() throws {
        let s = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(s, ServeProtocolTests.make)
        for seed in ["0", "9223372036854775807", "4611686018427387904"] {
            let r = try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": \#(seed)}"#)
            #expect(r["ok"] as? Bool == true, "seed \(seed)")
        }
        for bad in ["9223372036854775808", "1.5", "-3", "\"7\""] {
            #expect(ServeProtocolTests.errorCode(try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": \#(bad)}"#)) == "bad_request", "seed \(bad)")
        }
    }

    /// Actions are read exactly: the shot's angle in the reply (read back exactly too) is the
    /// one the same action gives in process, for doubles that Foundation's JSON reader rounds.
    @Test func actionsAreReadExactly() throws {
        struct Reply: Decodable {
            struct Info: Decodable { var angle: Double? }
            var infos: [Info]
        }
        let s = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(s, #"{"cmd": "make", "levels": ["Levels/first-steps.json"], "max_objects": 40}"#)
        var env = try PeggleEnv(config: config([try bundled("first-steps")]))
        var g = SeededGenerator(seed: 11)
        var misread = 0
        for _ in 0..<40 {
            let a = g.nextUnit() * 2 - 1
            let text = "\(a)"
            // What a reader that rounds would have aimed at, to show this case matters.
            let rounded = (try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8)) as? [NSNumber])?[0].doubleValue
            if rounded != a { misread += 1 }
            _ = try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": 3}"#)
            let line = s.handle(#"{"cmd": "step", "actions": [\#(text)]}"#)
            let angle = try #require(try JSONDecoder().decode(Reply.self, from: Data(line.utf8)).infos[0].angle, "\(line)")
            _ = try env.reset(seed: 3)
            let local = try env.step(a)
            #expect(angle == local.info.shot?.angle, "action \(text)")
            #expect(angle == a * Rules().maxAim)
        }
        #expect(misread > 0, "no action in the sample was one Foundation's reader rounds; the test shows nothing")
    }

    /// The columns layout holds exactly the rows layout's infos: for every environment, the keys
    /// its mask marks, with the row's values, and no others (final infos and masked resets too).
    @Test func infoColumnsHoldTheRows() throws {
        func transpose(_ columns: [String: Any], _ i: Int) -> [String: Any]? {
            var row: [String: Any] = [:]
            for (key, values) in columns where !key.hasPrefix("_") {
                let mask = try? #require(columns["_" + key] as? [Bool])
                guard mask?[i] == true else { continue }
                if let nested = values as? [String: Any] { row[key] = transpose(nested, i) } else { row[key] = (values as! [Any])[i] }
            }
            return row.isEmpty ? nil : row
        }
        let make = #"{"cmd": "make", "levels": ["Levels/purple-haze.json"], "num_envs": 3, "max_objects": 128, "max_shots": 2, "autoreset": "same_step", "trajectory": true"#
        let rows = ServeProtocolTests.session(), columns = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(rows, make + "}")
        let made = try ServeProtocolTests.reply(columns, make + #", "info_layout": "columns"}"#)
        #expect(made["info_layout"] as? String == "columns")
        var finals = 0
        for request in [#"{"cmd": "reset", "seed": 5}"#, #"{"cmd": "step", "actions": [0.1, -0.3, 0.5]}"#,
                        #"{"cmd": "step", "actions": [0.2, 0.0, -0.6]}"#, #"{"cmd": "reset", "reset_mask": [false, true, false]}"#,
                        #"{"cmd": "step", "actions": [-0.1, 0.3, 0.9]}"#] {
            let r = try ServeProtocolTests.reply(rows, request), c = try ServeProtocolTests.reply(columns, request)
            for key in ["infos", "final_infos"] {
                guard let rowList = r[key] as? [Any] else {
                    #expect(c[key] == nil)
                    continue
                }
                if key == "final_infos" { finals += 1 }
                let cols = try #require(c[key] as? [String: Any], "\(request): \(key) is not an object")
                for (i, row) in rowList.enumerated() {
                    let rebuilt = transpose(cols, i)
                    if row is NSNull {
                        #expect(rebuilt == nil, "\(request) \(key) env \(i)")
                    } else {
                        let want = try #require(row as? [String: Any])
                        #expect(rebuilt.map { NSDictionary(dictionary: $0) } == NSDictionary(dictionary: want), "\(request) \(key) env \(i)")
                    }
                }
            }
        }
        #expect(finals > 0, "no step ended an episode; final infos went unchecked")
        let bad = ServeProtocolTests.session()
        let refused = try ServeProtocolTests.reply(bad, #"{"cmd": "make", "level": "Levels/first-steps.json", "info_layout": "cols"}"#)
        #expect(ServeProtocolTests.errorCode(refused) == "bad_request")
        #expect(((refused["error"] as? [String: Any])?["message"] as? String)?.contains("\"cols\"") == true)
    }

    /// In same-step mode the rows of final_obs that final_mask leaves out are zeros.
    @Test func unmaskedFinalRowsAreZero() throws {
        let s = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(s, #"{"cmd": "make", "levels": ["Levels/first-steps.json"], "num_envs": 3, "max_objects": 40, "max_shots": 2, "autoreset": "same_step"}"#)
        _ = try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": 1}"#)
        // Environment 0 wins First Steps with one shot at action -0.41833333333333333 and ends on
        // the first step; the others end when truncated on the second. On the second step
        // environment 0's row must no longer hold its first episode's end.
        let first = try ServeProtocolTests.reply(s, #"{"cmd": "step", "actions": [-0.41833333333333333, 0.6, 0.6]}"#)
        try #require(first["final_mask"] as? [Bool] == [true, false, false], "environment 0 should win at once")
        let second = try ServeProtocolTests.reply(s, #"{"cmd": "step", "actions": [0.6, 0.6, 0.6]}"#)
        let mask = try #require(second["final_mask"] as? [Bool])
        let rows = try #require(second["final_obs"] as? [[Double]])
        #expect(mask == [false, true, true])
        #expect(rows[0].allSatisfy { $0 == 0 })
        #expect(!rows[1].allSatisfy { $0 == 0 })
    }
}
