import Foundation
import Glibc
import Hummingbird
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleStore
import PeggleStudio
import PeggleTestSupport
import Testing

/// The level list from the studio's index: paged, filtered and sorted on the server, and true to
/// the folder after changes made outside the studio, with inotify and without it.
@Suite struct LibraryIndexTests {
    /// A folder of `count` levels "Level 000"... whose orange pegs count 1, 2, 3, 1, 2, 3...,
    /// every third a beat-the-score level.
    static func folder(_ count: Int) throws -> StudioFolder {
        let folder = try StudioFolder()
        for f in ["first-steps.json", "mine.json"] { try FileManager.default.removeItem(atPath: folder.file(f)) }
        for i in 0..<count { try write(folder, "level-\(String(format: "%03d", i)).json", level(i)) }
        return folder
    }

    static func level(_ i: Int, name: String? = nil) -> Level {
        let oranges = i % 3 + 1
        let mode: GameMode = i % 3 == 2 ? .beatTheScore(targetScore: 1000, timeLimit: 60) : .classic(balls: 5)
        return Level(name: name ?? "Level \(String(format: "%03d", i))", mode: mode,
                     pegs: (0..<oranges).map { Peg(id: $0 + 1, kind: .orange, center: .init(200 + 100 * Double($0), 300)) })
    }

    static func write(_ folder: StudioFolder, _ file: String, _ level: Level) throws {
        try Data(LevelCodec.encode(level).utf8).write(to: folder.url.appendingPathComponent(file))
    }

    static func files(_ page: LevelPage) -> [String] { page.items.map(\.file) }

    @Test func pagesFiltersAndSortsOnTheServer() throws {
        let folder = try Self.folder(25)
        let library = try LevelLibrary(folder: folder.path, threads: 2)
        let first = library.list(LevelQuery(limit: 10))
        #expect(first.total == 25 && first.matched == 25 && first.complete && first.expected == 25)
        #expect(Self.files(first) == (0..<10).map { "level-\(String(format: "%03d", $0)).json" })
        let last = library.list(LevelQuery(offset: 20, limit: 10))
        #expect(Self.files(last) == (20..<25).map { "level-\(String(format: "%03d", $0)).json" })
        #expect(library.list(LevelQuery(offset: 30)).items.isEmpty)
        #expect(Self.files(library.list(LevelQuery(limit: 2, descending: true))) == ["level-024.json", "level-023.json"])
        // Most orange pegs first; ties in file order.
        let orange = library.list(LevelQuery(limit: 3, sort: .orange, descending: true))
        #expect(Self.files(orange) == ["level-002.json", "level-005.json", "level-008.json"])
        #expect(orange.items.map(\.orange) == [3, 3, 3])
        // By name, descending; names compare without case.
        try Self.write(folder, "zz.json", Self.level(0, name: "level 999"))
        #expect(Self.files(library.list(LevelQuery(limit: 2, sort: .name, descending: true))) == ["zz.json", "level-024.json"])
        // The text is found in the name or the file name, any case; the mode is the level's.
        let found = library.list(LevelQuery(text: "LEVEL 01"))
        #expect(Self.files(found) == (10..<20).map { "level-\(String(format: "%03d", $0)).json" })
        #expect(found.matched == 10 && found.total == 26)
        let beat = library.list(LevelQuery(text: "level-01", mode: "beat_the_score"))
        #expect(Self.files(beat) == ["level-011.json", "level-014.json", "level-017.json"])
    }

    /// Every change made outside the studio shows at the next request: a new file, a file
    /// renamed, rewritten in place, made read-only, replaced by something that is not a level,
    /// removed; with inotify, and with a full scan where inotify is not there.
    @Test(arguments: [true, false]) func changesMadeOutsideShowAtTheNextRequest(watching: Bool) throws {
        let folder = try Self.folder(3)
        let library = try LevelLibrary(folder: folder.path, threads: 2)
        func unwatch() {
            guard !watching else { return }
            let fd = library.index.state.withLock { s -> Int32 in defer { s.watch = -1 }; return s.watch }
            if fd >= 0 { close(fd) }
        }
        func all() -> [LevelLibrary.Entry] { library.list(LevelQuery()).items }
        #expect(all().map(\.name) == ["Level 000", "Level 001", "Level 002"])
        unwatch()
        #expect((library.index.state.withLock { $0.watch } >= 0) == watching)

        try Self.write(folder, "new.json", Self.level(5, name: "Fresh"))
        #expect(all().map(\.file) == ["level-000.json", "level-001.json", "level-002.json", "new.json"])
        unwatch()
        try FileManager.default.moveItem(atPath: folder.file("new.json"), toPath: folder.file("moved.json"))
        #expect(all().map(\.file) == ["level-000.json", "level-001.json", "level-002.json", "moved.json"])
        unwatch()
        // In place: the same inode, a new name and more pegs.
        let handle = try #require(FileHandle(forWritingAtPath: folder.file("level-001.json")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(LevelCodec.encode(Self.level(2, name: "Rewritten")).utf8))
        try handle.close()
        #expect(all()[1].name == "Rewritten" && all()[1].orange == 3)
        unwatch()
        #expect(chmod(folder.file("level-002.json"), 0o444) == 0)
        #expect(all()[2].readOnly)
        unwatch()
        try Data("{}".utf8).write(to: folder.url.appendingPathComponent("level-000.json"))
        #expect(all()[0].error?.hasPrefix("level-000.json: ") == true)
        #expect(all()[0].name == "level-000.json")
        unwatch()
        try FileManager.default.removeItem(atPath: folder.file("moved.json"))
        try Data("notes".utf8).write(to: folder.url.appendingPathComponent("notes.txt"))
        try Data("{}".utf8).write(to: folder.url.appendingPathComponent(".hidden.json"))
        #expect(all().map(\.file) == ["level-000.json", "level-001.json", "level-002.json"])
        // The index agrees with a fresh one.
        let fresh = try LevelLibrary(folder: folder.path, threads: 1)
        #expect(fresh.list() == library.list())
    }

    /// The list's file order is kept in step by one-file changes after a list has been asked for:
    /// a file added between two others, rewritten, and removed each sit where a fresh index puts them.
    @Test func oneFileChangesKeepTheListInFileOrder() throws {
        let folder = try Self.folder(3)
        let library = try LevelLibrary(folder: folder.path, threads: 2)
        func files() -> [String] { Self.files(library.list(LevelQuery())) }
        func fresh() throws -> [String] { Self.files(try LevelLibrary(folder: folder.path, threads: 1).list(LevelQuery())) }
        #expect(files() == ["level-000.json", "level-001.json", "level-002.json"])
        try Self.write(folder, "level-0005.json", Self.level(7, name: "Between"))
        #expect(files() == ["level-000.json", "level-0005.json", "level-001.json", "level-002.json"])
        #expect(try files() == fresh())
        try Self.write(folder, "level-0005.json", Self.level(8, name: "Between Again"))
        #expect(library.list(LevelQuery()).items[1].name == "Between Again")
        try FileManager.default.removeItem(atPath: folder.file("level-000.json"))
        #expect(files() == ["level-0005.json", "level-001.json", "level-002.json"])
        #expect(try files() == fresh())
        #expect(library.list(LevelQuery(sort: .file, descending: true)).items.map(\.file) == ["level-002.json", "level-001.json", "level-0005.json"])
    }

    /// A link in the folder to another level of it follows its target's changes, whose events
    /// name the target, not the link.
    @Test func aLinkFollowsItsTarget() throws {
        let folder = try Self.folder(2)
        let library = try LevelLibrary(folder: folder.path, threads: 2)
        try FileManager.default.createSymbolicLink(atPath: folder.file("alias.json"), withDestinationPath: "level-000.json")
        #expect(library.list(LevelQuery()).items.first?.name == "Level 000")
        let handle = try #require(FileHandle(forWritingAtPath: folder.file("level-000.json")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(LevelCodec.encode(Self.level(0, name: "Renamed")).utf8))
        try handle.close()
        #expect(library.list(LevelQuery(limit: 2)).items.map(\.name) == ["Renamed", "Renamed"])
    }

    /// The name check of a save reads the index, which sees a file written outside a moment ago.
    @Test func aSaveSeesANameTakenOutsideTheStudio() throws {
        let folder = try Self.folder(2)
        let library = try LevelLibrary(folder: folder.path, threads: 2)
        library.index.startBuilding()
        try Self.write(folder, "outside.json", Self.level(0, name: "Taken"))
        #expect(throws: StudioError.conflict("a level named 'TAKEN' is already in the folder (outside.json); "
                                              + "names are unique per folder: choose another name")) {
            try library.save(Self.level(1, name: "TAKEN"), file: nil)
        }
        #expect(library.uniqueName("Taken") == "Taken 2")
        #expect(try library.save(Self.level(1, name: "Taken 2"), file: nil).file == "taken-2.json")
        // Once the first scan is done: a list during it holds the levels scanned so far.
        #expect(Self.settled(library, LevelQuery(text: "taken"), estimates: false).matched == 2)
    }

    /// When a save's scan finished the index before the builder thread began, a list made while
    /// that thread winds down still reads later changes (it once answered "complete" without them).
    @Test func aListAfterASavesScanSeesLaterChanges() throws {
        let folder = try Self.folder(2)
        let library = try LevelLibrary(folder: folder.path, threads: 2)
        library.index.refresh(wait: true)  // a save's name check, first
        library.index.state.withLock { $0.building = true }  // the builder thread, not yet done
        try Self.write(folder, "outside.json", Self.level(0, name: "Taken"))
        let page = library.list(LevelQuery())
        #expect(page.complete)
        #expect(Self.files(page) == ["level-000.json", "level-001.json", "outside.json"])
    }

    /// The list's page once the index is complete and, with `estimates`, every level's estimate
    /// is settled (waiting up to two minutes).
    static func settled(_ library: LevelLibrary, _ query: LevelQuery, estimates: Bool = true) -> LevelPage {
        let deadline = Date().addingTimeInterval(120)
        while true {
            let page = library.list(query)
            if page.complete && (!estimates || page.estimated == page.total) { return page }
            if Date() > deadline {
                Issue.record("not settled: complete \(page.complete), estimates \(page.estimated) of \(page.total)")
                return page
            }
            usleep(5000)
        }
    }

    /// Behind the facts, every level gets `peggle estimate`'s estimate, bit for bit, whatever
    /// the thread count; the list filters and sorts by it, levels without one last.
    @Test func estimatesArriveBehindTheFactsAndFilterAndSortTheList() throws {
        let folder = try StudioFolder()
        try FileManager.default.removeItem(atPath: folder.file("mine.json"))
        for f in ["fortress", "gauntlet", "spiral", "bench-grid", "brick-road"] {
            try Repository.data("Levels/\(f).json").write(to: folder.url.appendingPathComponent("\(f).json"))
        }
        var again = try LevelCodec.decode(Repository.data("Levels/gauntlet.json"))
        again.name = "Gauntlet Again"  // the same content hash: one estimate for both
        try Self.write(folder, "again.json", again)
        try Data("{}".utf8).write(to: folder.url.appendingPathComponent("broken.json"))
        let library = try LevelLibrary(folder: folder.path, threads: 3)
        library.index.startBuilding()
        let page = Self.settled(library, LevelQuery(sort: .sigma50))
        #expect(Self.files(page) == ["fortress.json", "spiral.json", "bench-grid.json", "again.json", "gauntlet.json",
                                     "brick-road.json", "first-steps.json", "broken.json"])
        #expect(page.items.map(\.tier) == ["very hard", "very hard", "hard", "medium", "medium", "easy", "easy", nil])
        #expect(page.total == 8 && page.estimated == 8 && page.items.last?.sigma50 == nil)
        for item in page.items where item.error == nil {
            let level = try LevelCodec.decode(Data(contentsOf: folder.url.appendingPathComponent(item.file)))
            let e = Sigma50Estimate(try PreparedLevel(level), model: EstimateModel.builtIn)
            #expect(item.sigma50 == e.sigma50 && item.tier == e.tier.rawValue, "\(item.file)")
        }
        // One thread gives the same page, bit for bit.
        #expect(Self.settled(try LevelLibrary(folder: folder.path, threads: 1), LevelQuery(sort: .sigma50)) == page)
        // Descending: easiest first; ties in file order; the level without an estimate still last.
        #expect(Self.files(library.list(LevelQuery(sort: .sigma50, descending: true)))
                == ["first-steps.json", "brick-road.json", "again.json", "gauntlet.json", "bench-grid.json", "spiral.json",
                    "fortress.json", "broken.json"])
        #expect(Self.files(library.list(LevelQuery(sort: .tier)))
                == ["brick-road.json", "first-steps.json", "again.json", "gauntlet.json", "bench-grid.json", "fortress.json",
                    "spiral.json", "broken.json"])
        #expect(Self.files(library.list(LevelQuery(tier: .veryHard))) == ["fortress.json", "spiral.json"])
        let between = library.list(LevelQuery(sigma50Min: 0.01, sigma50Max: 0.05))
        #expect(Self.files(between) == ["again.json", "bench-grid.json", "gauntlet.json"] && between.matched == 3 && between.total == 8)
        #expect(library.list(LevelQuery(text: "gauntlet", tier: .easy)).matched == 0)
        // Renamed outside: the same content, its estimate at once; replaced by another level: its estimate follows.
        again.name = "Renamed"
        try Self.write(folder, "again.json", again)
        #expect(library.list(LevelQuery(text: "renamed")).items.map(\.tier) == ["medium"])
        try Repository.data("Levels/spiral.json").write(to: folder.url.appendingPathComponent("brick-road.json"))
        #expect(Self.files(Self.settled(library, LevelQuery(tier: .veryHard))) == ["brick-road.json", "fortress.json", "spiral.json"])
    }

    /// The files of the first page of `GET /api/levels?rated=rated`.
    static func rated(_ client: RouterClient, _ rated: String) async throws -> [String?] {
        let page = try json(try await client.execute(uri: "/api/levels?rated=\(rated)", method: .get).body)
        return try #require(page["items"] as? [[String: Any]]).map { $0["file"] as? String }
    }

    /// `rated`: a level the database holds greedy games of (a rating's) is rated; one with only a
    /// person's games is not, nor is any level when the studio has no database.
    @Test func ratedOrNotFiltersByTheDatabasesRatings() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        let run = try store.beginRun(command: "peggle rate", configuration: "{}", engineVersion: "0")
        func game(_ file: String, _ kind: AgentKind) throws {
            let level = try LevelCodec.decode(Data(try folder.text(file).utf8))
            let levelID = try store.level(LevelRecord(level: level, hash: level.contentHash))
            let agentID = try store.agent(AgentRecord(kind: kind, parameters: "{}", label: kind.rawValue))
            let played = PlayedGame(levelHash: level.contentHash, levelName: level.name, agentKind: kind, agentLabel: kind.rawValue,
                                    seed: 1, sigma: 0, status: .won, score: 10, shots: 1, orangeCleared: 1, orangeTotal: 1,
                                    ballsUsed: 1, gameSeconds: 1)
            _ = try store.insert([(played, levelID, agentID)], runID: run)
        }
        try game("mine.json", .greedy)
        try game("first-steps.json", .human)
        try await withRecordingStudio(folder, store) { client in
            let (rated, notRated, either) = (try await Self.rated(client, "true"), try await Self.rated(client, "false"),
                                             try await Self.rated(client, ""))
            #expect(rated == ["mine.json"])
            #expect(notRated == ["first-steps.json"])
            #expect(either == ["first-steps.json", "mine.json"])
        }
        try await withStudio(folder) { client in
            let (rated, notRated) = (try await Self.rated(client, "true"), try await Self.rated(client, "false"))
            #expect(rated == [])
            #expect(notRated == ["first-steps.json", "mine.json"])
        }
    }

    @Test func badParametersAreRefusedNamingTheParameterAndTheValue() async throws {
        func refusal(_ parameters: [(String, String)]) -> String? {
            do { _ = try LevelQuery(parameters: parameters); return nil } catch { return error.message }
        }
        #expect(refusal([("limit", "0")]) == "bad request: limit=0 is not a whole number in 1...1000")
        #expect(refusal([("offset", "-1")]) == "bad request: offset=-1 is not a whole number in 0...2147483647")
        #expect(refusal([("sort", "size")]) == "bad request: sort=size is not one of file, name, mode, pegs, orange, blocks, sigma50, tier")
        #expect(refusal([("order", "up")]) == "bad request: order=up is not asc or desc")
        #expect(refusal([("page", "2")]) == "bad request: 'page' is not a parameter of the level list "
                + "(offset, limit, sort, order, q, mode, tier, sigma50_min, sigma50_max, rated)")
        #expect(refusal([("rated", "yes")]) == "bad request: rated=yes is not true or false")
        #expect(try LevelQuery(parameters: [("rated", "false")]) == LevelQuery(rated: false))
        #expect(refusal([("tier", "unrated")]) == "bad request: tier=unrated is not one of easy, medium, hard, very hard")
        #expect(refusal([("sigma50_min", "-0.1")]) == "bad request: sigma50_min=-0.1 is not a number of radians, 0 or more")
        #expect(refusal([("sigma50_max", "nan")]) == "bad request: sigma50_max=nan is not a number of radians, 0 or more")
        #expect(try LevelQuery(parameters: [("tier", "very hard"), ("sigma50_min", "0.001"), ("sigma50_max", "1e-2"), ("sort", "tier")])
                == LevelQuery(sort: .tier, tier: .veryHard, sigma50Min: 0.001, sigma50Max: 0.01))
        #expect(refusal([("q", "a"), ("q", "b")]) == "bad request: 'q' is given twice")
        #expect(try LevelQuery(parameters: [("offset", "5"), ("limit", "7"), ("sort", "name"), ("order", "desc"), ("q", "a b"), ("mode", "")])
                == LevelQuery(offset: 5, limit: 7, sort: .name, descending: true, text: "a b", mode: nil))
        // Through the server: the values' escapes decoded once.
        let folder = try Self.folder(3)
        try Self.write(folder, "spaced.json", Self.level(0, name: "A 100% level"))
        try await withStudio(folder) { client in
            let r = try await client.execute(uri: "/api/levels?limit=0", method: .get)
            #expect(r.status == .badRequest)
            #expect(try json(r.body)["error"] as? String == "bad request: limit=0 is not a whole number in 1...1000")
            let page = try json(try await client.execute(uri: "/api/levels?q=a%20100%25&limit=1", method: .get).body)
            #expect((page["items"] as? [[String: Any]])?.map { $0["file"] as? String } == ["spaced.json"])
            #expect(page["matched"] as? Int == 1 && page["limit"] as? Int == 1)
        }
    }
}
