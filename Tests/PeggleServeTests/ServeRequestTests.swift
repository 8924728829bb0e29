import Foundation
import PeggleEnv
import PeggleGame
import PeggleServe
import Testing

/// Requests are decoded into typed values: a wrong type, range or unknown field is a
/// `bad_request` naming the field, for every command; a session's memory is budgeted; messages
/// never echo unbounded input (issue 13's hostile testing).
@Suite("Serve requests")
struct ServeRequestTests {
    static func error(_ s: ServeSession, _ line: String) throws -> (code: String, message: String, id: Any?) {
        let r = try ServeProtocolTests.reply(s, line)
        let e = try #require(r["error"] as? [String: Any], "no error for \(line): \(r)")
        return (e["code"] as? String ?? "", e["message"] as? String ?? "", r["id"])
    }

    static let level = #""level": "Levels/first-steps.json""#

    @Test("make refuses bad fields, naming them", arguments: [
        (#""bins": "many""#, #"make: "bins" applies to the discrete action only ("action" is "continuous")"#),
        (#""bins": 0"#, #"make: "bins" applies to the discrete action only ("action" is "continuous")"#),
        (#""action": "discrete", "bins": "many""#, #""bins" must be a whole number"#),
        (#""action": "discrete", "bins": 0"#, #""bins" is 0; it must be in 2...100000"#),
        (#""action": "discrete", "bins": 1"#, #""bins" is 1; it must be in 2...100000"#),
        (#""action": "discrete", "bins": 100001"#, #""bins" is 100001; it must be in 2...100000"#),
        (#""mode": {"type": "classic", "balls": 5, "colour": "red"}"#, #"make: unknown field "mode.colour" (known: mode.type, mode.balls)"#),
        (#""mode": {"type": "classic", "shots": 5}"#, #"make: unknown field "mode.shots" (known: mode.type, mode.balls)"#),
        (#""mode": {"type": "beat_the_score", "time_limit": "abc"}"#, #""mode.time_limit" must be a number"#),
        (#""mode": {"type": "beat_the_score", "time_limit": 0.5}"#, #""mode.time_limit" is 0.5; it must be in 1...3600"#),
        (#""mode": {"type": "dodge", "shots": 2.5}"#, #""mode.shots" must be a whole number"#),
        (#""mode": "classic""#, #""mode" must be an object"#),
        (#""mode": {"balls": 3}"#, #""mode" must be an object with a "type""#),
        (#""mode": {"type": "golf"}"#, #"mode type "golf" is not classic, beat_the_score or dodge"#),
        (#""trajectory": "yes""#, #""trajectory" must be true or false"#),
        (#""num_envs": 2.5"#, #""num_envs" must be a whole number"#),
        (#""num_envs": "4""#, #""num_envs" must be a whole number"#),
        (#""threads": 0"#, #""threads" is 0; it must be in 1...256"#),
        (#""seed": 18446744073709551616"#, #""seed" is 18446744073709551616; it must be in 0...9223372036854775807"#),
        (#""encoder": 3"#, #""encoder" must be a string"#),
        (#""reward": "money""#, #""reward" is "money"; expected one of: progress, score, win"#),
        (#""obs_encoding": "f64""#, #""obs_encoding" is "f64"; expected one of: json, b64f32, f32"#),
        (#""levels": "Levels/first-steps.json""#, #""levels" must be a list"#),
        (#""levels": [3]"#, #""levels[0]" must be a string (a level file)"#),
        (#""colour": "red""#, #"make: unknown field "colour" (known: levels, level, level_order, num_envs, encoder, max_objects, reward, autoreset, action, bins, max_shots, threads, seed, obs_encoding, trajectory, mode, info_layout, num_levels, start_level, distribution_mode, templates, aim_noise, bucket_start, cycle_start, pixel_width, physics)"#),
        (#""cycle_start": "last""#, #""cycle_start" is "last"; expected one of: first, seed"#),
        (#""aim_noise": -0.01"#, #""aim_noise" is -0.01; it must be in 0...1"#),
        (#""aim_noise": 1.5"#, #""aim_noise" is 1.5; it must be in 0...1"#),
        (#""aim_noise": "0.02""#, #""aim_noise" must be a number"#),
        (#""aim_noise": 1e400"#, #""aim_noise" is a number beyond ±1.8e308; it must be in 0...1"#),
        (#""num_envs": 1e400"#, #""num_envs" is a number beyond ±1.8e308; it must be in 1...4096"#),
        (#""bucket_start": "left""#, #""bucket_start" is "left"; expected one of: centre, random"#),
        (#""encoder": "picture""#, #""encoder" is "picture"; expected one of: objects, grid, pixels, aim"#),
        (#""pixel_width": 96"#, #"make: "pixel_width" applies to the pixels encoder only ("encoder" is "objects")"#),
        (#""encoder": "pixels", "pixel_width": 47"#, #""pixel_width" is 47; it must be in 48...800"#),
        (#""encoder": "pixels", "pixel_width": 801"#, #""pixel_width" is 801; it must be in 48...800"#),
        (#""encoder": "pixels", "pixel_width": 96.5"#, #""pixel_width" must be a whole number"#),
        (#""physics": 3"#, #""physics" is 3; it must be in 1...2"#),
        (#""physics": 0"#, #""physics" is 0; it must be in 1...2"#),
        (#""physics": "2""#, #""physics" must be a whole number"#),
    ])
    func makeFields(field: String, message: String) throws {
        let s = ServeProtocolTests.session()
        let e = try Self.error(s, #"{"id": 9, "cmd": "make", \#(Self.level), \#(field)}"#)
        #expect(e.code == "bad_request")
        #expect(e.message == message)
        #expect(e.id as? Int == 9)
        // Nothing was made.
        #expect(try Self.error(s, #"{"cmd": "spaces"}"#).code == "not_made")
    }

    @Test("make's procedural-level fields are checked, and mixing them with level files refused", arguments: [
        (#""num_levels": -1"#, #""num_levels" is -1; it must be in 0...9223372036854775807"#),
        (#""start_level": 1.5"#, #""start_level" must be a whole number"#),
        (#""distribution_mode": "extreme""#, #""distribution_mode" is "extreme"; expected one of: easy, hard, tier-easy, tier-medium, tier-hard, tier-very-hard"#),
        (#""templates": []"#, #"make: "templates" must be a non-empty list of templates"#),
        (#""templates": ["arcs", 3]"#, #""templates[1]" must be a string"#),
        (#""templates": ["arcs", "blob"]"#, #""templates[1]" is "blob"; expected one of: arcs, rows, rings, spiral, funnel, bricks, waves, pockets, ramps"#),
        (#""start_level": 9223372036854775807, "num_levels": 2"#,
         #"make: "start_level" + "num_levels" is 9223372036854775809; level seeds must stay below 2^63 (9223372036854775808)"#),
        (#""num_levels": 5, "level_order": "random""#, #"make: "level_order" applies to level files; procedural levels are drawn from their seeds"#),
        (#""num_levels": 5, "level": "Levels/first-steps.json""#,
         #"make: give level files ("levels", "level") or procedural levels ("num_levels"), not both"#),
        (#""distribution_mode": "easy", "max_objects": 100"#,
         "max_objects is 100; generated levels have up to 128 pegs and blocks, so it must be at least 128"),
    ])
    func makeProceduralFields(field: String, message: String) throws {
        let s = ServeProtocolTests.session()
        let e = try Self.error(s, #"{"id": 9, "cmd": "make", \#(field)}"#)
        #expect(e.code == "bad_request")
        #expect(e.message == message)
        #expect(try Self.error(s, #"{"cmd": "spaces"}"#).code == "not_made")
    }

    @Test("an empty level path says so")
    func emptyLevelPath() throws {
        let s = ServeProtocolTests.session()
        #expect(try Self.error(s, #"{"cmd": "make", "level": ""}"#).message == #""level" is an empty string; give a level file"#)
        #expect(try Self.error(s, #"{"cmd": "make", "levels": ["Levels/first-steps.json", ""]}"#).message
            == #""levels[1]" is an empty string; give a level file"#)
    }

    @Test("every command refuses fields it does not know, and fields of the wrong type", arguments: [
        (#"{"cmd": "spaces", "env": 1}"#, #"spaces: unknown field "env" (it takes only "cmd" and "id")"#),
        (#"{"cmd": "reset", "sed": 1}"#, #"reset: unknown field "sed" (known: seed, options, reset_mask)"#),
        (#"{"cmd": "reset", "options": {"levle": 0}}"#, #"reset: unknown field "options.levle" (known: options.level, options.reset_mask)"#),
        (#"{"cmd": "reset", "options": 3}"#, #""options" must be an object"#),
        (#"{"cmd": "reset", "options": {"level": true}}"#, #""options.level" must be a whole number"#),
        (#"{"cmd": "reset", "reset_mask": [true, 1, false]}"#, #"reset: "reset_mask" must be a list of booleans"#),
        (#"{"cmd": "reset", "seed": 18446744073709551616}"#, #""seed" is 18446744073709551616; it must be in 0...9223372036854775807"#),
        (#"{"cmd": "reset", "seed": 1e300}"#, #""seed" is 1e+300; it must be in 0...9223372036854775807"#),
        // Valid JSON beyond a double's range: named, not called "not a JSON object".
        (#"{"cmd": "reset", "seed": 1e400}"#, #""seed" is a number beyond ±1.8e308; it must be in 0...9223372036854775807"#),
        (#"{"cmd": "reset", "seed": -1}"#, #""seed" is -1; it must be in 0...9223372036854775807"#),
        (#"{"cmd": "render", "env": -1e999}"#, #""env" is a number beyond ±1.8e308; it must be in 0...9223372036854775807"#),
        (#"{"cmd": "step", "actions": [0, 0, 0], "action": 1}"#, #"step: unknown field "action" (known: actions)"#),
        (#"{"cmd": "render", "fromat": "ansi"}"#, #"render: unknown field "fromat" (known: env, format, width)"#),
        (#"{"cmd": "render", "env": "0"}"#, #""env" must be a whole number"#),
        (#"{"cmd": "snapshot", "name": "a"}"#, #"snapshot: unknown field "name" (it takes only "cmd" and "id")"#),
        (#"{"cmd": "restore"}"#, #"restore: give "snapshot", the number `snapshot` replied"#),
        (#"{"cmd": "restore", "snapshot": "1"}"#, #""snapshot" must be a whole number"#),
        (#"{"cmd": "drop_snapshot", "snapshot": 1, "all": true}"#, #"drop_snapshot: unknown field "all" (known: snapshot)"#),
        (#"{"cmd": "close", "now": true}"#, #"close: unknown field "now" (it takes only "cmd" and "id")"#),
        (#"{"cmd": "spaces", "id": [1]}"#, #""id" must be a string, a number or a boolean"#),
        (#"{"id": 1}"#, #"missing "cmd" (a string)"#),
    ])
    func otherCommands(line: String, message: String) throws {
        let s = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(s, ServeProtocolTests.make)
        _ = try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": 1}"#)
        let e = try Self.error(s, line)
        #expect(e.code == "bad_request")
        #expect(e.message == message)
        #expect(try ServeProtocolTests.reply(s, #"{"cmd": "step", "actions": [0.1, 0.1, 0.1]}"#)["ok"] as? Bool == true)
    }

    @Test("drop_snapshot and restore before make are not_made")
    func snapshotsBeforeMake() throws {
        let s = ServeProtocolTests.session()
        for line in [#"{"cmd": "drop_snapshot", "snapshot": 1}"#, #"{"cmd": "restore", "snapshot": 1}"#, #"{"cmd": "snapshot"}"#] {
            let e = try Self.error(s, line)
            #expect((e.code, e.message) == ("not_made", "send make first"), "\(line)")
        }
    }

    @Test("actions keep their own codes: a list of numbers, or one number for one environment")
    func actions() throws {
        let s = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(s, ServeProtocolTests.make)
        _ = try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": 1}"#)
        #expect(try Self.error(s, #"{"cmd": "step", "actions": [0, "a", 0]}"#).message == "step: action 1 is not a number")
        #expect(try Self.error(s, #"{"cmd": "step", "actions": {"0": 1}}"#).message == "step: action 0 is not a number")
        #expect(try Self.error(s, #"{"cmd": "step", "actions": [0, 0, 1e400]}"#).message == "step: action 2 is a number beyond ±1.8e308")
        #expect(try Self.error(s, #"{"cmd": "step", "actions": -1e400}"#).message == "step: action 0 is a number beyond ±1.8e308")
        #expect(try Self.error(s, #"{"cmd": "step", "actions": 0.5}"#).message == "got 1 actions for 3 environments")
        #expect(try Self.error(s, #"{"cmd": "step", "actions": [0, 0, 2]}"#).code == "bad_action")
    }

    // MARK: Messages

    @Test("quoted values are cut, so a 10 MB value gives a short error line")
    func longValuesAreCut() throws {
        let s = ServeProtocolTests.session()
        let huge = String(repeating: "p", count: 10_000_000)
        let cut = "\"" + String(repeating: "p", count: 64) + "\u{2026} (10000000 characters)\""
        for (line, message) in [
            (#"{"cmd": "make", "level": "Levels/first-steps.json", "reward": "\#(huge)"}"#,
             "\"reward\" is \(cut); expected one of: progress, score, win"),
            (#"{"cmd": "make", "level": "Levels/first-steps.json", "\#(huge)": 1}"#, "make: unknown field \(cut) (known: levels"),
            (#"{"cmd": "\#(huge)"}"#, "unknown command \(cut) (expected one of: make"),
            (#"{"cmd": "make", "level": "Levels/first-steps.json", "mode": {"type": "\#(huge)"}}"#, "mode type \(cut) is not"),
        ] {
            let line = s.handle(line)
            #expect(line.utf8.count < 600, "a reply of \(line.utf8.count) bytes")
            let e = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["error"] as? [String: Any]
            #expect((e?["message"] as? String)?.hasPrefix(message) == true, "\(e ?? [:])")
        }
    }

    @Test("a whole message is cut to 1,000 characters (a level loader's, say)")
    func longMessagesAreCut() throws {
        let s = ServeSession(loadLevel: { path in throw ServeTestError(message: "\(path): " + String(repeating: "x", count: 5000)) },
                             renderSVG: { _, _ in "" })
        let e = try Self.error(s, #"{"cmd": "make", "level": "a.json"}"#)
        #expect(e.code == "level_error")
        #expect(e.message == "a.json: " + String(repeating: "x", count: 992) + "\u{2026} (5008 characters)")
    }

    // MARK: Memory budget

    @Test("make past the memory budget is refused before anything is built, and the old environments stay")
    func makePastTheBudget() throws {
        let s = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(s, ServeProtocolTests.make)
        // The issue's case: 1,024 environments of 10,000 object slots, 1.9 GB measured.
        let e = try Self.error(s, #"{"cmd": "make", "level": "Levels/first-steps.json", "num_envs": 1024, "max_objects": 10000}"#)
        #expect(e.code == "memory_budget")
        #expect(e.message == "make: 1024 environments of 170017 observation floats would hold about 1355 MiB; this server's "
            + "budget is 1024 MiB (fewer num_envs or max_objects, or start it with a larger --memory-budget)")
        let spaces = try ServeProtocolTests.reply(s, #"{"cmd": "spaces"}"#)
        #expect((spaces["observation_space"] as? [String: Any])?["shape"] as? [Int] == [697])
    }

    @Test("snapshots count against the budget as full copies; dropping one makes room")
    func snapshotsWithinTheBudget() throws {
        var config = EnvConfig(levels: [try bundled("first-steps"), try bundled("upside-down")])
        config.maxObjects = 40
        config.maxShots = 4
        let perCopy = ServeSession.estimatedBytes(config, count: 3)
        // First Steps has 39 objects, Upside Down 32: the larger sizes each game state.
        #expect(perCopy == 3 * (2 * 697 * 4 + 16_384 + 256 * 39) + 2 * (16_384 + 256 * 39))
        // Room for the environments and exactly five snapshots.
        let s = ServeProtocolTests.session(memoryBudget: perCopy * 6 + 100)
        _ = try ServeProtocolTests.reply(s, ServeProtocolTests.make)
        _ = try ServeProtocolTests.reply(s, #"{"cmd": "reset", "seed": 1}"#)
        for k in 1...5 { #expect(try ServeProtocolTests.reply(s, #"{"cmd": "snapshot"}"#)["snapshot"] as? Int == k) }
        let e = try Self.error(s, #"{"cmd": "snapshot"}"#)
        #expect(e.code == "memory_budget")
        #expect(e.message.hasPrefix("snapshot: another copy of 3 environments (about 1 MiB) would bring this session to about"))
        #expect(try ServeProtocolTests.reply(s, #"{"cmd": "drop_snapshot", "snapshot": 2}"#)["ok"] as? Bool == true)
        #expect(try ServeProtocolTests.reply(s, #"{"cmd": "snapshot"}"#)["snapshot"] as? Int == 6)
        // With the default budget of 1 GiB, the issue's 1,000 snapshots of 64 environments (2.1 GB
        // measured) stop well before: at the budget over one copy's estimate, less the live one.
        var big = EnvConfig(levels: [try bundled("first-steps")])
        big.maxShots = 4
        let copy = ServeSession.estimatedBytes(big, count: 64)
        let d = ServeProtocolTests.session()
        _ = try ServeProtocolTests.reply(d, #"{"cmd": "make", "level": "Levels/first-steps.json", "num_envs": 64, "max_shots": 4}"#)
        var kept = 0
        while try ServeProtocolTests.reply(d, #"{"cmd": "snapshot"}"#)["ok"] as? Bool == true { kept += 1 }
        #expect(kept == ServeSession.defaultMemoryBudget / copy - 1)
        #expect(kept == 377)
    }
}
