import Foundation
import Hummingbird
import PeggleAgents
import PeggleGame
import PeggleLevel
import PeggleStudio
import PeggleStore
import PeggleTestSupport
import Testing

/// A folder of levels for one test: First Steps (bundled, read-only) and a level of the user's.
final class StudioFolder: @unchecked Sendable {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("studio-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Repository.data("Levels/first-steps.json").write(to: url.appendingPathComponent("first-steps.json"))
        try Data(LevelCodec.encode(StudioFolder.mine).utf8).write(to: url.appendingPathComponent("mine.json"))
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// One orange peg straight below the cannon: every game is won by the first shot straight down.
    static let mine = Level(name: "Mine", mode: .classic(balls: 3), pegs: [Peg(id: 1, kind: .orange, center: .init(400, 200))])

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }
    func text(_ name: String) throws -> String { try String(contentsOfFile: file(name), encoding: .utf8) }
    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
}

extension StudioAddress {
    /// The address the test router's requests name: authority "localhost", so port 80.
    static var testRouter: StudioAddress { StudioAddress(host: "127.0.0.1", port: 80) }
}

/// Runs `test` against the studio's router on `folder`.
func withStudio<T: Sendable>(_ folder: StudioFolder, _ test: @Sendable (RouterClient) async throws -> T) async throws -> T {
    let api = StudioAPI(library: try LevelLibrary(folder: folder.path))
    return try await RouterClient.test(StudioServer.router(api: api, threads: 2, address: .testRouter), test)
}

/// A reply's JSON object. Every key in it, at any depth, must be snake_case, the studio's one
/// casing (`StudioJSON`): so each reply a test reads is checked.
func json(_ body: ByteBuffer, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    try jsonLine(Data(buffer: body), sourceLocation: sourceLocation)
}

/// `json` of one line of a reply (the rating's stream).
func jsonLine(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], sourceLocation: sourceLocation)
    let odd = keysNotInSnakeCase(object)
    #expect(odd.isEmpty, "keys not in snake_case: \(odd)", sourceLocation: sourceLocation)
    return object
}

/// The keys of `value`, at any depth, that are not snake_case (lower-case words of letters and
/// digits joined by single underscores), by path.
func keysNotInSnakeCase(_ value: Any, at path: String = "") -> [String] {
    if let object = value as? [String: Any] {
        return object.keys.sorted().flatMap { key in
            (key.wholeMatch(of: /[a-z][a-z0-9]*(_[a-z0-9]+)*/) == nil ? [path + key] : []) + keysNotInSnakeCase(object[key]!, at: path + key + ".")
        }
    }
    if let array = value as? [Any] { return array.enumerated().flatMap { keysNotInSnakeCase($1, at: path + "[\($0)].") } }
    return []
}

func post(_ client: RouterClient, _ uri: String, _ body: [String: Any]) async throws -> TestResponse {
    let data = try JSONSerialization.data(withJSONObject: body)
    return try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: data))
}

func errorText(_ r: TestResponse) throws -> String { try json(r.body)["error"] as? String ?? "" }

@Suite struct StudioPageTests {
    @Test func thePageAndItsFilesAreServedFromTheBinary() async throws {
        let folder = try StudioFolder()
        try await withStudio(folder) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            #expect(html.contains("<title>Peggle Studio</title>"))
            #expect(html.contains("src=\"/studio.js\""))
            let js = try await client.execute(uri: "/studio.js", method: .get)
            #expect(js.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(String(buffer: js.body).contains("async function api("))
            let css = try await client.execute(uri: "/studio.css", method: .get)
            #expect(css.status == .ok)
            #expect(try await client.execute(uri: "/nothing-here", method: .get).status == .notFound)
        }
    }

    /// The mode form comes from `/api/config` (the table of mode fields), so the page names no
    /// mode kind and no field: a new field or kind needs no change to the page.
    @Test func thePageStatesNoModeOrModeField() throws {
        let page = try ["index.html", "studio.js"].map {
            try String(contentsOf: Repository.url("Sources/PeggleStudio/Page/" + $0), encoding: .utf8)
        }.joined(separator: "\n").replacing(/id="[\w-]*"/, with: "")  // the HUD's `balls` is an element's id
        #expect(page.contains("buildModeForm") && page.contains("studio.config.modes"))
        var stated: [String] = []
        for kind in GameModeKind.allCases where page.contains(kind.rawValue) || page.contains(kind.label) { stated.append(kind.rawValue) }
        for field in ModeField.all {
            // Quoted, as a form field's name, or as a label before its input (`r.shots` is a game's count).
            for spelling in ["\"\(field.name)\"", "'\(field.name)'", "name=\"\(field.name)", "\(field.label) <"] where page.contains(spelling) {
                stated.append(spelling)
            }
        }
        #expect(stated.isEmpty, "the page restates \(stated)")
    }

    @Test func configDescribesTheBoardAndThePalette() async throws {
        try await withStudio(try StudioFolder()) { client in
            let c = try json(try await client.execute(uri: "/api/config", method: .get).body)
            #expect((c["board"] as? [String: Double]) == ["width": 800, "height": 600])
            #expect((c["peg_kinds"] as? [String]) == ["blue", "orange", "green", "purple", "zombie", "confusement"])
            #expect((c["block_shapes"] as? [String]) == ["rectangle", "triangle"])
            #expect(c["max_aim"] as? Double == 1.5)
            #expect(c["rating_budget"] as? Int == 160)
        }
    }
}

@Suite struct StudioLevelTests {
    @Test func theListShowsEachLevelWithItsReadOnlyFlag() async throws {
        let folder = try StudioFolder()
        try Data("not json".utf8).write(to: folder.url.appendingPathComponent("broken.json"))
        try await withStudio(folder) { client in
            let page = try json(try await client.execute(uri: "/api/levels", method: .get).body)
            #expect(page["total"] as? Int == 3)
            #expect(page["complete"] as? Bool == true)
            let list = try #require(page["items"] as? [[String: Any]])
            #expect(list.map { $0["file"] as? String } == ["broken.json", "first-steps.json", "mine.json"])
            #expect(list.map { $0["read_only"] as? Bool } == [true, true, false])
            #expect(list[1]["name"] as? String == "First Steps")
            #expect(list[2]["orange"] as? Int == 1)
            #expect((list[0]["error"] as? String)?.hasPrefix("broken.json: not valid JSON") == true)
        }
    }

    @Test func aNewLevelHasANameNoLevelOfTheFolderHas() async throws {
        let folder = try StudioFolder()
        try Data(LevelCodec.encode(Level(name: "new LEVEL")).utf8).write(to: folder.url.appendingPathComponent("taken.json"))
        try await withStudio(folder) { client in
            let r = try json(try await client.execute(uri: "/api/new", method: .get).body)
            #expect(r["level"] as? String == LevelCodec.encode(Level(name: "New level 2")))
            #expect(r["file"] as? String == "")
            #expect((r["issues"] as? [String]) == ["pegs: a classic level needs at least one orange peg"])
        }
    }

    @Test func openingALevelGivesItsCanonicalText() async throws {
        let folder = try StudioFolder()
        try await withStudio(folder) { client in
            let r = try json(try await client.execute(uri: "/api/levels/first-steps.json", method: .get).body)
            let expected = LevelCodec.encode(try LevelCodec.decode(try Repository.data("Levels/first-steps.json")))
            #expect(r["level"] as? String == expected)
            #expect(r["read_only"] as? Bool == true)
            #expect((r["issues"] as? [String]) == [])
            let missing = try await client.execute(uri: "/api/levels/nope.json", method: .get)
            #expect(missing.status == .notFound)
            #expect(try errorText(missing) == "nope.json: no such level in the folder")
        }
    }

    @Test(arguments: [
        ("..%2Fsecret.json", "'../secret.json' is not a file name in the levels folder (no folders, no '..')"),
        ("%2Fetc%2Fpasswd", "'/etc/passwd' is not a file name in the levels folder (no folders, no '..')"),
        (".hidden.json", "'.hidden.json' is not a file name in the levels folder (no folders, no '..')"),
        ("notes.txt", "'notes.txt' does not end in .json (lower case); level files are .json files"),
        ("..", "'..' is not a file name in the levels folder (no folders, no '..')"),
        ("link.json", "'link.json' leads out of the levels folder"),
    ])
    func pathsOutsideTheFolderAreRefused(file: String, message: String) async throws {
        let folder = try StudioFolder()
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("studio-outside-\(UUID().uuidString).json")
        try Data(LevelCodec.encode(StudioFolder.mine).utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.createSymbolicLink(atPath: folder.file("link.json"), withDestinationPath: outside.path)
        try await withStudio(folder) { client in
            let r = try await client.execute(uri: "/api/levels/" + file, method: .get)
            #expect(r.status == .badRequest)
            #expect(try errorText(r) == message)
            // Saving there is refused the same way, and writes nothing.
            let before = try folder.files()
            let s = try await post(client, "/api/levels", ["level": LevelCodec.encode(StudioFolder.mine),
                                                           "file": file.removingPercentEncoding!])
            #expect(s.status == .badRequest)
            #expect(try errorText(s) == message)
            #expect(try folder.files() == before)
        }
    }

    @Test func savingANewLevelWritesItsCanonicalFileAndNamesAreUnique() async throws {
        let folder = try StudioFolder()
        try await withStudio(folder) { client in
            var level = Level(name: "Corner Pocket", pegs: [Peg(id: 1, kind: .orange, center: .init(200, 300))])
            let r = try await post(client, "/api/levels", ["level": LevelCodec.encode(level)])
            #expect(r.status == .ok)
            #expect(try json(r.body)["file"] as? String == "corner-pocket.json")
            #expect(try folder.text("corner-pocket.json") == LevelCodec.encode(level))
            // A second new level with the same name (any case) is refused: names are unique per folder.
            level.name = "corner POCKET"
            let again = try await post(client, "/api/levels", ["level": LevelCodec.encode(level)])
            #expect(again.status == .conflict)
            #expect(try errorText(again) == "a level named 'corner POCKET' is already in the folder (corner-pocket.json); "
                + "names are unique per folder: choose another name")
            // Saving over its own file keeps the file; renaming it onto another level's name is refused.
            level.name = "Corner Pocket"
            level.pegs.append(Peg(id: 2, kind: .blue, center: .init(300, 300)))
            let resave = try await post(client, "/api/levels", ["level": LevelCodec.encode(level), "file": "corner-pocket.json"])
            #expect(try json(resave.body)["file"] as? String == "corner-pocket.json")
            #expect(try LevelCodec.decode(Data(try folder.text("corner-pocket.json").utf8)).pegs.count == 2)
            level.name = "Mine"
            let clash = try await post(client, "/api/levels", ["level": LevelCodec.encode(level), "file": "corner-pocket.json"])
            #expect(clash.status == .conflict)
            #expect(try LevelCodec.decode(Data(try folder.text("corner-pocket.json").utf8)).name == "Corner Pocket")
        }
    }

    @Test func aReadOnlyLevelIsSavedAsACopyAndDuplicateMakesAnother() async throws {
        let folder = try StudioFolder()
        let original = try folder.text("first-steps.json")
        try await withStudio(folder) { client in
            let r = try await post(client, "/api/levels", ["level": original, "file": "first-steps.json"])
            #expect(r.status == .ok)
            let saved = try json(r.body)
            #expect(saved["file"] as? String == "first-steps-copy.json")
            #expect(saved["note"] as? String == "saved as a copy, 'First Steps (copy)'")
            let copy = try LevelCodec.decode(Data(try folder.text("first-steps-copy.json").utf8))
            #expect(copy.name == "First Steps (copy)")
            #expect(copy.readOnly == false)
            #expect(try folder.text("first-steps.json") == original)
            let dup = try json(try await post(client, "/api/levels", ["level": LevelCodec.encode(copy), "copy": true]).body)
            // As `level edit` names copies: the tail is added again, then numbered if taken.
            #expect(dup["file"] as? String == "first-steps-copy-copy.json")
            #expect(try LevelCodec.decode(Data(try folder.text("first-steps-copy-copy.json").utf8)).name == "First Steps (copy) (copy)")
        }
    }
}

@Suite struct StudioEditTests {
    func edit(_ client: RouterClient, _ level: String, _ op: [String: Any]) async throws -> TestResponse {
        try await post(client, "/api/edit", ["level": level, "op": op])
    }

    @Test func addMoveResizeRotateAndSettingsGoThroughTheLevelEditor() async throws {
        try await withStudio(try StudioFolder()) { client in
            var text = LevelCodec.encode(Level(name: "Draft"))
            for (x, kind) in [(200, "orange"), (300, "blue"), (400, "green")] {
                let r = try json(try await edit(client, text, ["type": "add_peg", "peg": kind, "x": x, "y": 300]).body)
                text = try #require(r["level"] as? String)
            }
            var expected = Level(name: "Draft")
            try expected.add(Peg(id: 0, kind: .orange, center: .init(200, 300)))
            try expected.add(Peg(id: 0, kind: .blue, center: .init(300, 300)))
            try expected.add(Peg(id: 0, kind: .green, center: .init(400, 300)))
            #expect(text == LevelCodec.encode(expected))

            let moved = try json(try await edit(client, text, ["type": "move", "id": 2, "x": 300, "y": 420]).body)
            try expected.move(id: 2, to: .init(300, 420))
            #expect(moved["level"] as? String == LevelCodec.encode(expected))
            #expect(moved["id"] as? Int == 2)

            let block = try json(try await edit(client, text, ["type": "add_block", "shape": "triangle", "x": 600, "y": 200,
                                                                 "width": 80, "height": 50, "springiness": 0.5]).body)
            #expect(block["id"] as? Int == 4)
            let spun = try json(try await edit(client, try #require(block["level"] as? String),
                                               ["type": "rotate", "id": 4, "rotation": 0.5]).body)
            #expect(try LevelCodec.decode(Data((spun["level"] as! String).utf8)).blocks[0].rotation == 0.5)

            let settings = try json(try await edit(client, text, ["type": "settings", "name": "Final", "mode": "dodge",
                                                                    "fields": ["shots": 7], "power": "kaboom", "purple_roams": false]).body)
            let l = try LevelCodec.decode(Data((settings["level"] as! String).utf8))
            #expect(l.name == "Final")
            #expect(l.mode == .dodge(shots: 7))
            #expect(l.power == .kaboom)
            #expect(!l.purpleRoams)
        }
    }

    @Test func switchingModeTakesTheNewModesDefaultsAndKeepsTheCurrentOnesOwn() async throws {
        try await withStudio(try StudioFolder()) { client in
            func mode(_ text: String, _ op: [String: Any]) async throws -> (text: String, mode: GameMode) {
                let r = try json(try await edit(client, text, ["type": "settings"].merging(op) { $1 }).body)
                let level = try #require(r["level"] as? String)
                return (level, try LevelCodec.decode(Data(level.utf8)).mode)
            }
            let classic = LevelCodec.encode(Level(name: "Draft", mode: .classic(balls: 3)))
            let dodge = try await mode(classic, ["mode": "dodge"])
            #expect(dodge.mode == .dodge(shots: 5))
            #expect(dodge.mode == GameModeKind.dodge.defaultMode)
            #expect(try await mode(classic, ["mode": "beat_the_score"]).mode == .beatTheScore(targetScore: 50_000, timeLimit: 120))
            #expect(try await mode(dodge.text, ["mode": "classic"]).mode == .classic(balls: 10))
            // The same kind keeps its fields; a field alone changes the current mode.
            #expect(try await mode(classic, ["mode": "classic"]).mode == .classic(balls: 3))
            #expect(try await mode(dodge.text, ["fields": ["shots": 9]]).mode == .dodge(shots: 9))
            let beat = LevelCodec.encode(Level(name: "Draft", mode: .beatTheScore(targetScore: 700, timeLimit: 60)))
            #expect(try await mode(beat, ["fields": ["time_limit": 30.5]]).mode == .beatTheScore(targetScore: 700, timeLimit: 30.5))
            #expect(try await mode(classic, ["mode": "beat_the_score", "fields": ["target_score": 9]]).mode
                == .beatTheScore(targetScore: 9, timeLimit: 120))
            // A field of another kind, a fraction in a whole field: refused, naming the field.
            let foreign = try await edit(client, classic, ["type": "settings", "fields": ["shots": 9]])
            #expect(foreign.status == .badRequest)
            #expect(try errorText(foreign) == "bad request: op.fields.shots is not a field of classic (its fields: balls)")
            let fraction = try await edit(client, classic, ["type": "settings", "fields": ["balls": 2.5]])
            #expect(try errorText(fraction) == "bad request: op.fields.balls: 2.5 is not a whole number in 1...99")
            let unknown = try await edit(client, classic, ["type": "settings", "mode": "siam"])
            #expect(unknown.status == .badRequest)
            #expect(try errorText(unknown) == "bad request: op.mode 'siam' is not classic, beat_the_score or dodge")
            let config = try json(try await client.execute(uri: "/api/config", method: .get).body)
            // The page builds its mode form from these: every kind and field of the table.
            let modes = try #require(config["modes"] as? [[String: Any]])
            #expect(modes.map { $0["name"] as? String } == ["classic", "beat_the_score", "dodge"])
            #expect(modes.map { $0["label"] as? String } == ["classic", "beat the score", "dodge"])
            let fields = modes.flatMap { ($0["fields"] as? [[String: Any]]) ?? [] }
            #expect(fields.map { $0["name"] as? String } == ModeField.all.map(\.name))
            let limit = try #require(fields.first { $0["name"] as? String == "time_limit" })
            #expect(limit["kind"] as? String == "real" && limit["min"] as? Double == 1 && limit["max"] as? Double == 3600)
            #expect(limit["default"] as? Double == 120 && limit["label"] as? String == "Time limit (s)")
            #expect(fields.first?["kind"] as? String == "whole" && fields.first?["max"] as? Double == 99)
        }
    }

    @Test func aRefusedEditSaysWhyAsTheCLIDoesAndChangesNothing() async throws {
        try await withStudio(try StudioFolder()) { client in
            var level = Level(name: "Draft")
            try level.add(Peg(id: 0, kind: .orange, center: .init(200, 300)))
            try level.add(Peg(id: 0, kind: .blue, center: .init(300, 300)))
            let text = LevelCodec.encode(level)
            let overlap = try await edit(client, text, ["type": "move", "id": 2, "x": 205, "y": 300])
            #expect(overlap.status == .unprocessableContent)
            #expect(try errorText(overlap) == "refused: peg 2 would overlap peg 1")
            let lane = try await edit(client, text, ["type": "add_peg", "peg": "blue", "x": 400, "y": 590])
            #expect(lane.status == .unprocessableContent)
            #expect(try errorText(lane) == "refused: peg 3 reaches into the bucket's lane: bottom edge at y = 602 > 560")
            let balls = try await edit(client, text, ["type": "settings", "fields": ["balls": 0]])
            #expect(try errorText(balls) == "refused: mode: balls: 0 is outside 1...99")
            let missing = try await edit(client, text, ["type": "move", "id": 2])
            #expect(missing.status == .badRequest)
            #expect(try errorText(missing) == "bad request: op.x is missing for move")
        }
    }

    @Test func malformedBodiesAreAnsweredWithA4xxAndAMessage() async throws {
        try await withStudio(try StudioFolder()) { client in
            let notJSON = try await client.execute(uri: "/api/edit", method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: "{\"level\": "))
            #expect(notJSON.status == .badRequest)
            #expect(try errorText(notJSON) == "bad request: the body is not valid JSON")
            let noOp = try await post(client, "/api/edit", ["level": "{}"])
            #expect(try errorText(noOp) == "bad request: op is missing")
            let badKind = try await post(client, "/api/edit", ["level": "{}", "op": ["type": "add_peg", "peg": "gold", "x": 1, "y": 1]])
            #expect(badKind.status == .badRequest)
            #expect(try errorText(badKind).hasPrefix("bad request: op.peg: "))
            let badLevel = try await post(client, "/api/edit", ["level": "{\"format\": 1}", "op": ["type": "remove", "id": 1]])
            #expect(badLevel.status == .unprocessableContent)
            #expect(try errorText(badLevel).hasPrefix("level: "))
            let big = ByteBuffer(repeating: UInt8(ascii: " "), count: StudioServer.maxBody + 1)
            let tooLarge = try await client.execute(uri: "/api/edit", method: .post, headers: [.contentType: "application/json"], body: big)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(try errorText(tooLarge) == "the request body is larger than 1024 KB")
        }
    }
}

@Suite struct StudioPlayTests {
    @Test func aShotIsTheEnginesShotWithItsTrajectory() async throws {
        let folder = try StudioFolder()
        let text = try folder.text("first-steps.json")
        let level = try LevelCodec.decode(Data(text.utf8))
        var game = try GameState(level: level, seed: EpisodeSeeds(episode: 7).game)  // the page's seed is an episode seed
        _ = try game.shoot(angle: 0.3)
        let shot = try game.shoot(angle: -0.2, recordTrajectory: true)
        let (score, ballsLeft) = (game.score, game.ballsLeft)
        try await withStudio(folder) { client in
            let start = try json(try await post(client, "/api/play", ["level": text, "seed": 7, "angles": [Double]()]).body)
            #expect(start["shot"] == nil)
            #expect((start["state"] as? [String: Any])?["shots_taken"] as? Int == 0)
            let r = try json(try await post(client, "/api/play", ["level": text, "seed": 7, "angles": [0.3, -0.2]]).body)
            let state = try #require(r["state"] as? [String: Any])
            #expect(state["score"] as? Int == score)
            #expect(state["balls_left"] as? Int == ballsLeft)
            #expect(state["status"] as? String == "playing")
            let s = try #require(r["shot"] as? [String: Any])
            #expect(s["points"] as? Int == shot.points)
            #expect(s["frames"] as? Int == shot.steps + 1)
            let lit = try #require(s["lit"] as? [[String: Int]])
            #expect(lit.map { $0["id"]! } == shot.trajectory!.litPegs.map { level.pegs[$0].id })
            #expect(lit.allSatisfy { $0["frame"]! >= 1 && $0["frame"]! <= shot.steps })
            let before = try #require(r["before"] as? [String: Any])
            let removed = (state["pegs"] as! [[String: Any]]).filter { $0["removed"] as! Bool }.count
            let removedBefore = (before["pegs"] as! [[String: Any]]).filter { $0["removed"] as! Bool }.count
            #expect(removed - removedBefore == lit.count)
        }
    }

    @Test func unplayableLevelsAndBadAnglesAreRefused() async throws {
        try await withStudio(try StudioFolder()) { client in
            let empty = LevelCodec.encode(Level(name: "Empty"))
            let r = try await post(client, "/api/play", ["level": empty, "angles": [0.0]])
            #expect(r.status == .unprocessableContent)
            #expect(try errorText(r) == "the level cannot be played yet: pegs: a classic level needs at least one orange peg")
            let mine = LevelCodec.encode(StudioFolder.mine)
            let wide = try await post(client, "/api/play", ["level": mine, "angles": [2.0]])
            #expect(try errorText(wide).hasPrefix("angles[0]: "))
            let over = try await post(client, "/api/play", ["level": mine, "angles": [0.0, 0.0]])
            #expect(over.status == .unprocessableContent)
            #expect(try errorText(over).hasPrefix("angles[1]: "))
        }
    }
}

@Suite(.serialized) struct StudioRateTests {
    @Test func rateStreamsProgressThenTheRatersResult() async throws {
        let folder = try StudioFolder()
        let text = LevelCodec.encode(StudioFolder.mine)
        let direct = try StudioRating.rate(StudioFolder.mine, budget: 16, seed: 0, threads: 1) { _ in }
        try await withStudio(folder) { client in
            let r = try await post(client, "/api/rate", ["level": text, "budget": 16])
            #expect(r.status == .ok)
            #expect(r.headers[.contentType] == "application/x-ndjson")
            let lines = try String(buffer: r.body).split(separator: "\n").map { try jsonLine(Data($0.utf8)) }
            #expect(lines.dropLast().allSatisfy { $0["type"] as? String == "progress" })
            #expect(lines.count >= 2)
            let result = try #require(lines.last?["result"] as? [String: Any])
            // The same rating as the library's, whatever the thread count.
            #expect(result["tier"] as? String == direct.tier)
            #expect(result["sigma50_text"] as? String == direct.sigma50Text)
            #expect(result["games"] as? Int == direct.games)
            #expect((result["chart"] as? String)?.hasPrefix("<svg") == true)
            // One peg straight down: the greedy agent aims at it and the ball hits it.
            let first = try #require(result["first_shot"] as? [String: Any])
            #expect((first["lit"] as? [[String: Int]])?.map { $0["id"]! } == [1])
            // The report's heatmap: the one orange peg, over the same games as the library's.
            let heat = try #require(result["pegs"] as? [String: Any])
            #expect(heat["games"] as? Int == direct.pegs.games && heat["games_lost"] as? Int == 0)
            let pegs = try #require(heat["pegs"] as? [[String: Any]])
            #expect(pegs.map { $0["id"] as? Int } == [1] && pegs.map { $0["hit_rate"] as? Double } == [1])
            #expect(pegs.allSatisfy { $0["lost_with_rate"] == nil && $0["colour"] == nil })
            #expect((heat["scale"] as? [String])?.count == 11)
        }
        // Every greedy game on this level is won, at any aim noise the rater tries: sigma50 is
        // above the range, and every greedy game within a factor 2 of its bound hit the one
        // orange peg (so no game was lost with it: no ring).
        #expect(direct.bound == "above")
        #expect(direct.tier == "easy")
        #expect(direct.pegs.sigmaLow == direct.sigma50.map { $0 / 2 })
    }

    /// A rating whose reader goes away (the page stopped it or was closed: the connection closes
    /// mid-stream) stops at its next game: it stored fewer games than the whole rating has, which
    /// a rating again then completes from them.
    @Test func aRatingStopsWhenItsReaderGoesAway() async throws {
        let folder = try StudioFolder()
        let fortress = try LevelCodec.decode(try Repository.data("Levels/fortress.json"))
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("studio-stop-\(UUID().uuidString).sqlite").path
        defer { for tail in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + tail) } }
        let store = try PeggleStore(path: db)
        let api = StudioAPI(library: try LevelLibrary(folder: folder.path), store: store)
        let url = AsyncStream<String>.makeStream()
        let server = Task { try await StudioServer.run(api: api, host: "127.0.0.1", port: 0, threads: 1) { url.continuation.yield($0) } }
        defer { server.cancel() }
        var addresses = url.stream.makeAsyncIterator()
        let address = try #require(await addresses.next())
        let port = try #require(Int(address.split(separator: ":").last!.dropLast()))
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["level": LevelCodec.encode(fortress), "budget": 40]), as: UTF8.self)
        let head = "POST /api/rate HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        let (status, line) = try await RawHTTP.onOwnThread { try RawHTTP.hangUpAfterFirstLine(port: port, head, body: body) }
        #expect(status == 200)
        #expect(line.hasPrefix("{\"") && line.contains("\"progress\""), "\(line)")
        // The rating lets go of the studio's one rating slot once it has stopped.
        let deadline = Date().addingTimeInterval(120)
        while StudioServer.rating.withLock({ $0 }) && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let stopped = try store.counts().episodes
        let whole = try await RawHTTP.onOwnThread { try StudioRating.rate(fortress, budget: 40, seed: 0, threads: 1, database: store) { _ in } }
        #expect(stopped > 0)
        #expect(stopped < whole.games, "stored \(stopped) of \(whole.games)")
    }

    @Test func rateRefusesABudgetOutOfRangeAndAnUnplayableLevel() async throws {
        try await withStudio(try StudioFolder()) { client in
            let r = try await post(client, "/api/rate", ["level": LevelCodec.encode(StudioFolder.mine), "budget": 4])
            #expect(r.status == .badRequest)
            #expect(try errorText(r) == "bad request: budget: 4 is outside 8...160")
            let empty = try await post(client, "/api/rate", ["level": LevelCodec.encode(Level(name: "Empty"))])
            #expect(try errorText(empty) == "the level cannot be rated yet: pegs: a classic level needs at least one orange peg")
        }
    }
}

/// Valid JSON with a number its field cannot hold is refused naming the field and the value, not
/// as "not valid JSON" (which is all Foundation's decoder says of it on Linux).
@Suite struct StudioNumberTests {
    static let mine = LevelCodec.encode(StudioFolder.mine)

    /// Expects posting `body` to `uri` to be refused with 400 and `message`.
    static func said(_ client: RouterClient, _ uri: String, _ body: String, _ message: String) async throws {
        let r = try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
        #expect(r.status == .badRequest, "\(uri) \(body.suffix(80))")
        #expect(try errorText(r) == message, "\(uri) \(body.suffix(80))")
    }

    @Test func anOutOfRangeNumberIsNamedWithItsField() async throws {
        let level = String(decoding: try JSONSerialization.data(withJSONObject: Self.mine, options: .fragmentsAllowed), as: UTF8.self)
        let unsigned = "is not a whole number in 0...18446744073709551615"
        try await withStudio(try StudioFolder()) { client in
            for (seed, shown) in [("-1", "-1"), ("18446744073709551616", "18446744073709551616"), ("1e400", "1e400"), ("1.5", "1.5")] {
                let body = "{\"level\": \(level), \"seed\": \(seed), \"angles\": [0.1, 0.2]}"
                try await Self.said(client, "/api/play", body, "bad request: seed: \(shown) \(unsigned)")
                try await Self.said(client, "/api/games", "{\"level\": \(level), \"seed\": \(seed), \"angles\": [], \"player\": \"A\"}", "bad request: seed: \(shown) \(unsigned)")
            }
            try await Self.said(client, "/api/play", "{\"level\": \(level), \"seed\": 1, \"angles\": [0.1, 1e400, -1e999]}", "bad request: angles[2]: -1e999 is not a finite number (a double: at most about 1.8e308)")
            try await Self.said(client, "/api/edit", "{\"level\": \(level), \"op\": {\"type\": \"move\", \"id\": 1, \"x\": 1e400, \"y\": 2}}", "bad request: op.x: 1e400 is not a finite number (a double: at most about 1.8e308)")
            try await Self.said(client, "/api/edit", "{\"level\": \(level), \"op\": {\"type\": \"move\", \"id\": 1e30, \"x\": 1, \"y\": 2}}", "bad request: op.id: 1e30 is not a whole number in -9223372036854775808...9223372036854775807")
            // A field with a range of its own is refused with it (issue 50: it quoted Int64's).
            try await Self.said(client, "/api/rate", "{\"level\": \(level), \"budget\": 9223372036854775808}", "bad request: budget: 9223372036854775808 is not a whole number in 8...160")
            try await Self.said(client, "/api/rate", "{\"level\": \(level), \"budget\": 1e400}", "bad request: budget: 1e400 is not a whole number in 8...160")
            // A number that underflows is not called infinite (issue 50).
            try await Self.said(client, "/api/play", "{\"level\": \(level), \"seed\": 1, \"angles\": [0.1, 1e-400]}", "bad request: angles[1]: 1e-400 is too close to 0 for a double (under about 2.2e-308 apart from 0; write 0)")
            // Not JSON at all is still said so.
            try await Self.said(client, "/api/play", "{\"level\": \(level), \"seed\": 01}", "bad request: the body is not valid JSON")
            try await Self.said(client, "/api/play", "{\"seed\": -1", "bad request: the body is not valid JSON")
        }
    }
}
