import Foundation
import Hummingbird
import PeggleLevel
import PeggleStore
import PeggleStudio
import PeggleTestSupport
import Testing

/// `peggle studio --share` (docs/studio.md, "Playtests from other machines"): only holders of a
/// token are answered; the playtesters' token plays and records, nothing else; Host, Origin and
/// JSON checks still hold.
@Suite struct StudioShareTests {
    static let designer = String(repeating: "d", count: 48)
    static let playtest = String(repeating: "a", count: 47) + "b"
    static let share = StudioShare(designerToken: designer, playtestToken: playtest)
    static let host = HTTPFields.Element.Name("Host")!
    static let cookie = HTTPFields.Element.Name("Cookie")!
    /// A machine on the network: the studio listens on every interface, so its literal address is a Host it accepts.
    static let remote = "192.168.1.23"
    static let session = String(repeating: "5", count: 32)
    static let mine = LevelCodec.encode(StudioFolder.mine)
    static let intruder = LevelCodec.encode(Level(name: "Intruder", mode: .classic(balls: 1),
                                                  pegs: [Peg(id: 1, kind: .orange, center: .init(400, 200))]))

    /// The test router's requests name port 80; the studio listens on every interface.
    static func sharedStudio<T: Sendable>(_ folder: StudioFolder, _ store: PeggleStore? = nil,
                                          _ test: @Sendable (RouterClient) async throws -> T) async throws -> T {
        let api = StudioAPI(library: try LevelLibrary(folder: folder.path), store: store)
        let address = StudioAddress(host: "0.0.0.0", port: 80)
        return try await RouterClient.test(StudioServer.router(api: api, threads: 2, address: address, share: share), test)
    }

    /// What a browser on another machine sends: its Host, the page's Origin, the cookies.
    static func from(_ token: String?, session: String? = nil, json: Bool = false) -> HTTPFields {
        var h: HTTPFields = [Self.host: remote, .origin: "http://\(remote)"]
        if json { h[.contentType] = "application/json" }
        let cookies = [token.map { "peggle-studio-80=\($0)" }, session.map { "peggle-session-80=\($0)" }].compactMap { $0 }
        if !cookies.isEmpty { h[Self.cookie] = cookies.joined(separator: "; ") }
        return h
    }

    static func send(_ client: RouterClient, _ uri: String, _ body: [String: Any]?, _ headers: HTTPFields) async throws -> TestResponse {
        guard let body else { return try await client.execute(uri: uri, method: .get, headers: headers) }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
    }

    /// Every route that writes or works for the designer only, with a body the designer's request passes
    /// the checks with (`/api/rate`'s budget 7 and the tune's tier are refused by the routes themselves, so
    /// nothing runs).
    static var designerOnly: [(uri: String, body: [String: Any], designerStatus: HTTPResponse.Status)] { [
        ("/api/levels", ["level": intruder], .ok),
        ("/api/edit", ["level": mine, "op": ["type": "remove", "id": 1]], .ok),
        ("/api/estimate", ["level": mine], .ok),
        ("/api/rate", ["level": mine, "budget": 7], .badRequest),
        // It writes a new level file; `tier` refused by the route itself, so no tune runs.
        ("/api/levels/mine.json/tune", ["tier": "extreme"], .badRequest),
    ] }

    @Test func aPlaytesterCannotWriteALevelOrRateAndTheDesignerCan() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        @Sendable func contents() throws -> [String] { try folder.files().map { "\($0)\n\(try folder.text($0))" } }
        let before = try contents()
        try await Self.sharedStudio(folder, store) { client in
            for (uri, body, _) in Self.designerOnly {
                let r = try await Self.send(client, uri, body, Self.from(Self.playtest, json: true))
                #expect(r.status == .forbidden, "\(uri)")
                #expect(try errorText(r) == "refused: POST \(uri): a playtester may only play and record games "
                    + "(no save, edit, estimate, rate or tune); the designer's link has every right")
            }
            // Save over an existing file, and a copy of a read-only level: refused the same way.
            for body: [String: Any] in [["level": Self.intruder, "file": "mine.json"], ["level": Self.mine, "copy": true]] {
                #expect(try await Self.send(client, "/api/levels", body, Self.from(Self.playtest, json: true)).status == .forbidden)
            }
            // Other methods on the level routes (a delete, a put) are the designer's too.
            for method: HTTPRequest.Method in [.delete, .put, .patch] {
                let r = try await client.execute(uri: "/api/levels/mine.json", method: method, headers: Self.from(Self.playtest, json: true),
                                                 body: ByteBuffer(string: "{}"))
                #expect(r.status == .forbidden, "\(method)")
            }
            #expect(try contents() == before)
            #expect(try store.counts().episodes == 0 && store.runs().isEmpty)
            // The designer's token: every route answers past the checks.
            for (uri, body, status) in Self.designerOnly {
                let r = try await Self.send(client, uri, body, Self.from(Self.designer, json: true))
                #expect(r.status == status, "\(uri): \(String(buffer: r.body))")
            }
            let rate = try await Self.send(client, "/api/rate", ["level": Self.mine, "budget": 7], Self.from(Self.designer, json: true))
            #expect(try errorText(rate) == "bad request: budget: 7 is outside 8...160")
        }
        #expect(try folder.files() == ["first-steps.json", "intruder.json", "mine.json"])
    }

    @Test func aPlaytesterReadsPlaysAndRecordsUnderTheirNameAndSession() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        try await Self.sharedStudio(folder, store) { client in
            let headers = Self.from(Self.playtest, session: Self.session)
            for uri in ["/", "/studio.js", "/studio.css", "/api/levels", "/api/levels/mine.json", "/api/new"] {
                let r = try await Self.send(client, uri, nil, headers)
                #expect(r.status == .ok, "\(uri)")
                #expect(r.headers[values: .setCookie].isEmpty, "\(uri): the session is known")
            }
            let config = try json(try await Self.send(client, "/api/config", nil, headers).body)
            #expect(config["role"] as? String == "playtester")
            let designer = try json(try await Self.send(client, "/api/config", nil, Self.from(Self.designer)).body)
            #expect(designer["role"] as? String == "designer")
            var write = Self.from(Self.playtest, session: Self.session, json: true)
            let play = try await Self.send(client, "/api/play", ["level": Self.mine, "seed": 3, "angles": [0.0]], write)
            #expect(play.status == .ok)
            let game: [String: Any] = ["level": Self.mine, "seed": 3, "angles": [0.0], "player": "Bo"]
            let recorded = try json(try await Self.send(client, "/api/games", game, write).body)
            #expect(recorded["stored"] as? Bool == true && recorded["agent"] as? String == "human(name=Bo)")
            // A session cookie the studio cannot have issued is not stored: the game is the name's alone.
            write = Self.from(Self.playtest, session: "not-a-session", json: true)
            let forged = try await Self.send(client, "/api/games", ["level": Self.mine, "seed": 4, "angles": [0.0], "player": "Bo"], write)
            #expect(forged.status == .ok)
        }
        let episodes = try store.games().count
        #expect(episodes == 2)
        let sessions = try store.gameSessions()
        #expect(sessions.map(\.session) == [Self.session])
        #expect(sessions.map(\.episodeID) == [1])
    }

    @Test func noWrongOrStaleTokenFromAnotherMachineIsAnswered() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        // A token of an earlier run: a studio draws new ones each time it starts.
        let earlier = StudioShare()
        try await Self.sharedStudio(folder, store) { client in
            let wrong = Self.playtest.dropLast() + "c"  // one digit off
            for uri in ["/", "/studio.js", "/api/config", "/api/levels", "/api/levels/mine.json", "/api/new", "/nothing-here"] {
                let none = try await Self.send(client, uri, nil, Self.from(nil))
                #expect(none.status == .forbidden, "\(uri)")
                #expect(try errorText(none) == "refused: GET \(uri) holds no token: this studio is shared (--share) and answers only "
                    + "the links it printed (http://...?token=...)")
                for token in [String(wrong), earlier.playtestToken, earlier.designerToken, Self.playtest + "0", String(Self.designer.prefix(16))] {
                    let r = try await Self.send(client, uri, nil, Self.from(token))
                    #expect(r.status == .forbidden, "\(uri) \(token)")
                    #expect(try errorText(r) == "refused: GET \(uri): the token is not this studio's: a token from an earlier run "
                        + "of the studio (each run draws new tokens) or a mistyped one; open the link the studio printed")
                    #expect(!String(buffer: r.body).contains("Mine"))
                }
            }
            // The same from a script's Authorization header.
            var bearer = Self.from(nil)
            bearer[.authorization] = "Bearer \(earlier.designerToken)"
            #expect(try await Self.send(client, "/api/levels", nil, bearer).status == .forbidden)
            bearer[.authorization] = "Bearer \(Self.designer)"
            #expect(try await Self.send(client, "/api/levels", nil, bearer).status == .ok)
            // Writes: no token, a wrong one, an earlier run's.
            let game: [String: Any] = ["level": Self.mine, "seed": 1, "angles": [0.0], "player": "Mallory"]
            for token in [nil, String(wrong), earlier.playtestToken, earlier.designerToken] {
                for (uri, body) in [("/api/games", game), ("/api/play", game), ("/api/levels", ["level": Self.intruder])] {
                    let r = try await Self.send(client, uri, body, Self.from(token, json: true))
                    #expect(r.status == .forbidden, "\(uri) \(token ?? "none")")
                }
            }
            // A stale or wrong link sets no cookie.
            for token in [earlier.playtestToken, String(wrong)] {
                let link = try await Self.send(client, "/?token=\(token)", nil, Self.from(nil))
                #expect(link.status == .forbidden)
                #expect(try errorText(link) == "refused: the link's token is not this studio's: a link from an earlier run of the studio "
                    + "(each run draws new tokens) or a mistyped one; ask for the link the studio printed")
                #expect(link.headers[values: .setCookie].isEmpty)
            }
        }
        #expect(try folder.files() == ["first-steps.json", "mine.json"])
        #expect(try store.counts().episodes == 0)
    }

    /// The link sets the token's cookie (HttpOnly, SameSite=Strict) and a session's, and moves the
    /// page to `/` so the token leaves the address bar.
    @Test func theLinkSetsTheCookiesAndLeavesTheTokenOutOfThePage() async throws {
        let folder = try StudioFolder()
        try await Self.sharedStudio(folder) { client in
            let r = try await Self.send(client, "/?token=\(Self.playtest)", nil, Self.from(nil))
            #expect(r.status == .ok)
            let cookies = r.headers[values: .setCookie]
            #expect(cookies.count == 2)
            #expect(Self.parts(cookies[0]) == Self.parts("peggle-studio-80=\(Self.playtest); Path=/; HttpOnly; SameSite=Strict"))
            let session = Self.parts(cookies[1])
            #expect(session.value.wholeMatch(of: /peggle-session-80=[0-9a-f]{32}/) != nil, "\(session)")
            #expect(session.attributes == ["Path=/", "HttpOnly", "SameSite=Strict"])
            #expect(r.headers[.cacheControl] == "no-store")
            #expect(r.headers[HTTPFields.Element.Name("Referrer-Policy")!] == "no-referrer")
            let page = String(buffer: r.body)
            #expect(page.contains(#"<meta http-equiv="refresh" content="0; url=/">"#))
            #expect(!page.contains(Self.playtest))
            // With a session already: only the token's cookie.
            let again = try await Self.send(client, "/?token=\(Self.designer)", nil, Self.from(nil, session: Self.session))
            #expect(again.headers[values: .setCookie].map(Self.parts) == [Self.parts("peggle-studio-80=\(Self.designer); Path=/; HttpOnly; SameSite=Strict")])
            // The page with the token's cookie but no session gets one.
            let page2 = try await Self.send(client, "/", nil, Self.from(Self.designer))
            #expect(page2.status == .ok)
            #expect(page2.headers[values: .setCookie].count == 1)
            #expect(page2.headers[values: .setCookie].first?.hasPrefix("peggle-session-80=") == true)
        }
    }

    /// A Set-Cookie value as its name=value and its attributes (Hummingbird writes them in any order).
    static func parts(_ header: String) -> Parts {
        let all = header.components(separatedBy: "; ")
        return Parts(value: all[0], attributes: Set(all.dropFirst()))
    }
    struct Parts: Equatable { var value: String, attributes: Set<String> }

    /// A token does not lift the other checks: a foreign Host (rebinding), a foreign Origin, a
    /// non-JSON write are refused with the designer's own token.
    @Test func hostOriginAndJSONChecksStillHold() async throws {
        let folder = try StudioFolder()
        try await Self.sharedStudio(folder) { client in
            var rebound = Self.from(Self.designer)
            rebound[Self.host] = "rebound.example"
            let r = try await Self.send(client, "/api/levels", nil, rebound)
            #expect(r.status == .forbidden)
            #expect(try errorText(r).contains("Host 'rebound.example' is not this studio's address"))
            var foreign = Self.from(Self.designer, json: true)
            foreign[.origin] = "http://evil.example"
            let o = try await Self.send(client, "/api/levels", ["level": Self.intruder], foreign)
            #expect(try errorText(o).contains("Origin 'http://evil.example' is not this studio's page"))
            var plain = Self.from(Self.designer)
            plain[.contentType] = "text/plain"
            let p = try await Self.send(client, "/api/levels", ["level": Self.intruder], plain)
            #expect(try errorText(p).contains("needs Content-Type: application/json (given: 'text/plain')"))
            // Even the link must come through an allowed Host.
            var link = Self.from(nil)
            link[Self.host] = "rebound.example"
            let l = try await Self.send(client, "/?token=\(Self.designer)", nil, link)
            #expect(l.status == .forbidden && l.headers[values: .setCookie].isEmpty)
        }
        #expect(try folder.files() == ["first-steps.json", "mine.json"])
    }

    /// Without --share nothing changes: no token is asked for, no cookie is set, no role is sent.
    @Test func withoutShareNoTokenIsAskedFor() async throws {
        let folder = try StudioFolder()
        try await withStudio(folder) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok && page.headers[values: .setCookie].isEmpty)
            let config = try json(try await client.execute(uri: "/api/config", method: .get).body)
            #expect(config["role"] == nil)
        }
    }

    @Test func tokensAreRandomLongAndComparedWhole() {
        let a = StudioShare(), b = StudioShare()
        let tokens = [a.designerToken, a.playtestToken, b.designerToken, b.playtestToken]
        #expect(Set(tokens).count == 4)
        for t in tokens { #expect(t.wholeMatch(of: /[0-9a-f]{48}/) != nil, "\(t)") }  // 192 bits
        #expect(a.role(of: a.designerToken) == .designer && a.role(of: a.playtestToken) == .playtester)
        #expect(a.role(of: b.designerToken) == nil && a.role(of: "") == nil)
        #expect(a.role(of: String(a.designerToken.dropLast())) == nil && a.role(of: a.designerToken + "0") == nil)
        #expect(a.role(of: a.designerToken.uppercased()) == nil)
        #expect(StudioShare.randomHex(16).count == 32)
    }

    static func raw(_ port: Int, _ head: String, body: String = "") async throws -> (status: Int, body: String) {
        try await RawHTTP.onOwnThread { try RawHTTP.request(port: port, head, body: body) }
    }

    /// A real server on every interface, asked with a network address as Host: no token, a
    /// stale one and the right one, off the wire.
    @Test func aRealSharedServerRefusesWithoutItsToken() async throws {
        let folder = try StudioFolder()
        let api = StudioAPI(library: try LevelLibrary(folder: folder.path))
        let share = StudioShare()
        let url = AsyncStream<String>.makeStream()
        let server = Task {
            try await StudioServer.run(api: api, host: "0.0.0.0", port: 0, threads: 1, share: share) { url.continuation.yield($0) }
        }
        defer { server.cancel() }
        var addresses = url.stream.makeAsyncIterator()
        let address = try #require(await addresses.next())
        let port = try #require(Int(address.split(separator: ":").last!.dropLast()))
        let head = "GET /api/levels HTTP/1.1\r\nHost: 192.0.2.7:\(port)\r\n"
        let none = try await Self.raw(port, head)
        #expect(none.status == 403 && none.body.contains("holds no token"))
        let stale = try await Self.raw(port, head + "Cookie: peggle-studio-\(port)=\(StudioShare().playtestToken)\r\n")
        #expect(stale.status == 403 && stale.body.contains("the token is not this studio's"))
        let own = try await Self.raw(port, head + "Cookie: peggle-studio-\(port)=\(share.playtestToken)\r\n")
        #expect(own.status == 200 && own.body.contains("mine.json"))
        let save = try String(decoding: JSONSerialization.data(withJSONObject: ["level": Self.intruder]), as: UTF8.self)
        let write = try await Self.raw(port, "POST /api/levels HTTP/1.1\r\nHost: 192.0.2.7:\(port)\r\n"
            + "Cookie: peggle-studio-\(port)=\(share.playtestToken)\r\nContent-Type: application/json\r\nContent-Length: \(save.utf8.count)\r\n",
            body: save)
        #expect(write.status == 403 && write.body.contains("a playtester may only play and record games"))
        #expect(!(try folder.files().contains("intruder.json")))
    }

    /// A merge keeps each person's session with their game.
    @Test func aMergeCarriesTheSessions() throws {
        let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("share-merge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let shardPath = dir.appendingPathComponent("shard.sqlite").path
        let folder = try StudioFolder()
        do {
            let shard = try PeggleStore(path: shardPath)
            let api = StudioAPI(library: try LevelLibrary(folder: folder.path), store: shard)
            for (seed, session) in [(1, Self.session), (2, nil)] {
                _ = try api.record(FinishedGameRequest(level: Self.mine, seed: UInt64(seed), angles: [0.0], player: "Bo"), session: session)
            }
            try shard.close()
        }
        let target = try PeggleStore()
        _ = try target.merge(try PeggleStore(readingOnly: shardPath))
        _ = try target.merge(try PeggleStore(readingOnly: shardPath))  // twice: nothing more
        let games = try target.games()
        #expect(games.map(\.seed) == [1, 2])
        #expect(try target.gameSessions().map(\.session) == [Self.session])
    }
}
