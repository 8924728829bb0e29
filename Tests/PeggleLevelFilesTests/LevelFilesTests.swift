import Foundation
import PeggleLevel
import PeggleLevelFiles
import Testing

// The one level-folder expansion (docs/levels.md, "A folder of levels"): which files of a folder
// are its levels, in what order, and the errors that name the folder. Python's copy is held to
// the same folder by python/tests/test_level_files.py.

@Suite("Level folders")
struct LevelFilesTests {
    /// A fresh folder holding `files` (name to contents; a name ending in "/" is a folder); the
    /// caller removes it (`remove`).
    static func folder(_ files: [String: String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("level-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files {
            let url = dir.appendingPathComponent(name)
            if name.hasSuffix("/") {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } else {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
            }
        }
        return dir.path
    }

    static func remove(_ dir: String) { try? FileManager.default.removeItem(atPath: dir) }

    static func levelText(_ name: String) -> String { LevelCodec.encode(Level(name: name)) }

    @Test("a folder's level files: *.json directly in it, not hidden, not folders, links to files counted, in byte order")
    func theRule() throws {
        let dir = try Self.folder([
            "b.json": "{}", "a.json": "{}", "B.json": "{}", "a-b.json": "{}", "a_b.json": "{}", "é.json": "{}", "Ω.json": "{}",
            ".hidden.json": "{}", "notes.txt": "", "difficulty.csv": "level,sigma50\n", "upper.JSON": "{}", "json": "{}",
            "folder.json/": "", "below/deep.json": "{}",
        ])
        defer { Self.remove(dir) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: dir + "/a.json")
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling.json", withDestinationPath: dir + "/gone.json")
        let names = try LevelFolder.levelFileNames(in: dir)
        // Byte order: upper case before lower, '-' (0x2d) before '.' (0x2e) before '_' (0x5f), é
        // (c3 a9) before Ω (ce a9). Not a locale's collation, not case-folded.
        #expect(names == ["B.json", "a-b.json", "a.json", "a_b.json", "b.json", "link.json", "é.json", "Ω.json"])
    }

    @Test("arguments: files as given, folders expanded and joined to the path given, exclusions by name within folders")
    func arguments() throws {
        let dir = try Self.folder(["levels/two.json": "{}", "levels/one.json": "{}", "levels/bench-grid.json": "{}",
                                   "levels/readme.md": "", "solo.txt": ""])
        defer { Self.remove(dir) }
        do {
            let levels = dir + "/levels", slash = dir + "/levels/"
            #expect(try LevelFolder.levelFiles([levels]) == ["bench-grid.json", "one.json", "two.json"].map { levels + "/" + $0 })
            #expect(try LevelFolder.levelFiles([slash]) == ["bench-grid.json", "one.json", "two.json"].map { slash + $0 })
            // A file is taken as given, whatever its name and whether it exists: reading it says what it is.
            #expect(try LevelFolder.levelFiles([dir + "/solo.txt", "missing.json", levels]).prefix(2) == [dir + "/solo.txt", "missing.json"])
            // Exclusions leave out a folder's files by name; a file named outright stays.
            #expect(try LevelFolder.levelFiles([levels, levels + "/bench-grid.json"], excluding: ["bench-grid.json"])
                == [levels + "/one.json", levels + "/two.json", levels + "/bench-grid.json"])
        }
    }

    @Test("a folder argument without a level file, and a folder that cannot be listed, are errors naming the path")
    func errors() throws {
        let dir = try Self.folder(["empty/": "", "others/.hidden.json": "{}", "others/difficulty.csv": "", "others/x.json/": "",
                                   "file.json": "{}"])
        defer { Self.remove(dir) }
        do {
            for folder in [dir + "/empty", dir + "/others"] {
                #expect(throws: LevelFolderError(path: folder, reason: "folder has no level files (*.json)")) {
                    try LevelFolder.levelFiles([dir + "/file.json", folder])
                }
            }
            // Listing one's own folder finds none without an error (the studio's list of a new folder).
            #expect(try LevelFolder.levelFileNames(in: dir + "/empty") == [])
            let notFolder = dir + "/file.json"
            do throws(LevelFolderError) {
                _ = try LevelFolder.levelFileNames(in: notFolder)
                Issue.record("a file was listed as a folder")
            } catch {
                #expect(error.path == notFolder && error.description.hasPrefix("\(notFolder): cannot be read as a folder ("),
                        "\(error.description)")
                #expect(error.localizedDescription == error.description)
            }
        }
    }

    @Test("the names a folder's levels hold are its level files' (hidden files and other JSON aside)")
    func levelNames() throws {
        let dir = try Self.folder(["one.json": Self.levelText("One"), ".draft.json": Self.levelText("Draft"),
                                   "weights.json": "{\"weights\": []}", "two.json": Self.levelText("Two")])
        defer { Self.remove(dir) }
        let names = Dictionary(uniqueKeysWithValues: LevelFolder.levelNames(in: dir).map { (($0.key as NSString).lastPathComponent, $0.value) })
        #expect(names == ["one.json": "One", "two.json": "Two"])
    }
}
