import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("peggle render")
struct RenderCommandTests {
    /// Whether `data` parses as XML.
    static func wellFormed(_ data: Data) -> Bool { XMLParser(data: data).parse() }

    @Test("draws a level and its shots as a well-formed SVG, the same bytes for the same input")
    func rendersShots() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.svg"), b = dir.appendingPathComponent("b.svg")
        for out in [a, b] {
            let r = try CLI.run(["render", "Levels/upside-down.json", "--angles", "0.9,0.55", "--seed", "1", "-o", out.path])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let data = try Data(contentsOf: a)
        #expect(Self.wellFormed(data))
        #expect(data == (try Data(contentsOf: b)))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(text.contains("Upside Down"))
        // Two shots: two trajectories, and the confusement flip the second one set off.
        #expect(text.components(separatedBy: "<polyline").count - 1 >= 2)
        #expect(text.contains("Board turned 180"))
    }

    @Test("draws a level with no shots")
    func rendersLevel() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("level.svg")
        let r = try CLI.run(["render", "Levels/fortress.json", "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.wellFormed(try Data(contentsOf: out)))
    }

    @Test("bad input is refused with exit code 2 and no file is written",
          arguments: [
              ["Levels/fortress.json", "--angles", "0.1,2.0"],
              ["Levels/fortress.json", "--angles", "x"],
              ["Levels/no-such-level.json"],
              ["Levels/fortress.json", "--from", "2"],
              ["Levels/fortress.json", "--angles", "0.1", "--from", "3"],
          ])
    func badInput(args: [String]) throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.svg")
        let r = try CLI.run(["render"] + args + ["-o", out.path])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("error: "))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("an invalid level writes nothing")
    func invalidLevel() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let level = dir.appendingPathComponent("bad.json")
        try CLI.levelText(pegs: ["{\"kind\": \"orange\", \"x\": 100, \"y\": 200, \"radius\": -5}"])
            .write(to: level, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("bad.svg")
        let r = try CLI.run(["render", level.path, "-o", out.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("radius"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("an output folder that does not exist is refused")
    func missingFolder() throws {
        let r = try CLI.run(["render", "Levels/fortress.json", "-o", "/no/such/folder/x.svg"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("does not exist"))
    }
}
