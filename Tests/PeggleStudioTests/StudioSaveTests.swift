import Foundation
import Hummingbird
import PeggleLevel
import PeggleStudio
import PeggleTestSupport
import Synchronization
import Testing

/// Saves are serialized and atomic: the name check and the write are one step, so concurrent
/// saves never both take one name, and never overwrite each other's files.
@Suite struct StudioSaveTests {
    static func level(_ name: String) -> Level {
        Level(name: name, mode: .classic(balls: 2), pegs: [Peg(id: 1, kind: .orange, center: .init(300, 300))])
    }

    @Test func thirtySavesOfOneNewNameAtOnceStoreOne() async throws {
        let folder = try StudioFolder()
        let text = LevelCodec.encode(Self.level("Race"))
        let replies = try await withStudio(folder) { client in
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        let r = try await post(client, "/api/levels", ["level": text])
                        return (Int(r.status.code), String(buffer: r.body))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(replies.filter { $0.0 == 200 }.count == 1)
        for (status, body) in replies where status != 200 {
            #expect(status == 409)
            #expect(body.contains("a level named 'Race' is already in the folder (race.json)"), "\(body)")
        }
        #expect(try folder.files() == ["first-steps.json", "mine.json", "race.json"])
        #expect(try folder.text("race.json") == text)
    }

    /// Thirty names with one file name ("race.json"): each save gets a file of its own, none is
    /// overwritten, whichever library (two here, on one folder) and thread saves it.
    @Test func concurrentSavesOfNamesWithOneFileNameLoseNothing() throws {
        let folder = try StudioFolder()
        let libraries = [try LevelLibrary(folder: folder.path), try LevelLibrary(folder: folder.path)]
        let names = (1...30).map { "Race" + String(repeating: "!", count: $0) }
        let saved = Mutex<[String: String]>([:])
        DispatchQueue.concurrentPerform(iterations: names.count) { k in
            let s = try! libraries[k % 2].save(Self.level(names[k]), file: nil)
            saved.withLock { $0[names[k]] = s.file }
        }
        let files = saved.withLock { $0 }
        #expect(Set(files.values).count == 30)
        for (name, file) in files { #expect(try LevelCodec.decode(Data(folder.text(file).utf8)).name == name) }
        #expect(try folder.files().filter { $0.hasPrefix("race") }.count == 30)
        #expect(try folder.files().allSatisfy { !$0.hasPrefix(".") }, "no temporary file left")
    }

    /// Level files end in `.json`, lower case: `X.JSON` would be saved but never listed nor name-checked.
    @Test func anUpperCaseExtensionIsRefused() async throws {
        let folder = try StudioFolder()
        try await withStudio(folder) { client in
            let r = try await post(client, "/api/levels", ["level": LevelCodec.encode(Self.level("Shout")), "file": "SHOUT.JSON"])
            #expect(r.status == .badRequest)
            #expect(try errorText(r) == "'SHOUT.JSON' does not end in .json (lower case); level files are .json files")
            #expect(try await client.execute(uri: "/api/levels/MINE.JSON", method: .get).status == .badRequest)
        }
        #expect(try folder.files() == ["first-steps.json", "mine.json"])
    }

    /// Saving over its own file replaces it whole: the old text or the new, never a mix.
    @Test func savingOverItsFileReplacesIt() throws {
        let folder = try StudioFolder()
        let library = try LevelLibrary(folder: folder.path)
        var level = StudioFolder.mine
        level.description = "changed"
        let saved = try library.save(level, file: "mine.json")
        #expect(saved.file == "mine.json" && saved.note == nil)
        #expect(try folder.text("mine.json") == LevelCodec.encode(level))
        #expect(try folder.files() == ["first-steps.json", "mine.json"])
    }
}
