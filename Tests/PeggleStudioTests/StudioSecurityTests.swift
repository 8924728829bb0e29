import Foundation
import Hummingbird
import PeggleLevel
import PeggleStore
import PeggleStudio
import PeggleTestSupport
import Testing

/// The studio answers its own page only (docs/studio.md, "Security"): a foreign `Host` (DNS
/// rebinding), a foreign `Origin`, and a write without a JSON body are refused with 403 before any
/// route runs, and change nothing.
@Suite struct StudioSecurityTests {
    /// A `Host` field beside the test router's authority ("localhost"), as a rebinding page sends it.
    static let host = HTTPFields.Element.Name("Host")!
    /// A level no file of the folder has: a save that got through would write `intruder.json`.
    static let intruder = LevelCodec.encode(Level(name: "Intruder", mode: .classic(balls: 1),
                                                  pegs: [Peg(id: 1, kind: .orange, center: .init(400, 200))]))
    static let mine = LevelCodec.encode(StudioFolder.mine)

    /// Every endpoint that writes or works, with a body that succeeds when the request is allowed.
    static var writes: [(uri: String, body: [String: Any])] { [
        ("/api/levels", ["level": intruder]),
        ("/api/edit", ["level": mine, "op": ["type": "remove", "id": 1]]),
        ("/api/estimate", ["level": mine]),
        ("/api/play", ["level": mine, "seed": 1, "angles": [0.0]]),
        ("/api/games", ["level": mine, "seed": 1, "angles": [0.0], "player": "Mallory"]),
        ("/api/rate", ["level": mine, "budget": 8]),
        ("/api/levels/mine.json/tune", ["tier": "medium", "budget": 8, "max_edits": 1, "max_ratings": 1]),
    ] }

    /// The ways another site's page (or a rebinding one) can send them, and what the refusal says.
    static let hostile: [(what: String, headers: HTTPFields, says: String)] = [
        ("text/plain", [.contentType: "text/plain"], "needs Content-Type: application/json (given: 'text/plain')"),
        ("a form", [.contentType: "application/x-www-form-urlencoded"],
         "needs Content-Type: application/json (given: 'application/x-www-form-urlencoded')"),
        ("a multipart form", [.contentType: "multipart/form-data; boundary=x"], "needs Content-Type: application/json"),
        ("no Content-Type", [:], "needs Content-Type: application/json (given: none)"),
        ("a foreign Origin", [.contentType: "application/json", .origin: "http://evil.example"],
         "Origin 'http://evil.example' is not this studio's page"),
        ("another port's Origin", [.contentType: "application/json", .origin: "http://127.0.0.1:9999"],
         "Origin 'http://127.0.0.1:9999' is not this studio's page"),
        ("the page's origin on https", [.contentType: "application/json", .origin: "https://localhost"],
         "Origin 'https://localhost' is not this studio's page"),
        ("a sandboxed page's Origin", [.contentType: "application/json", .origin: "null"], "Origin 'null' is not this studio's page"),
        ("a foreign Host", [.contentType: "application/json", Self.host: "evil.example:8080"],
         "Host 'evil.example:8080' is not this studio's address"),
    ]

    @Test func everyWriteFromAnotherSiteIsRefusedAndChangesNothing() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        func contents() throws -> [String] { try folder.files().map { "\($0)\n\(try folder.text($0))" } }
        let before = try contents()
        try await withRecordingStudio(folder, store) { client in
            for (uri, body) in Self.writes {
                let data = try JSONSerialization.data(withJSONObject: body)
                for (what, headers, says) in Self.hostile {
                    let r = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(data: data))
                    #expect(r.status == .forbidden, "\(uri), \(what)")
                    #expect(r.headers[.contentType] == "application/json")
                    let error = try errorText(r)
                    #expect(error.hasPrefix("refused: ") && error.contains(says), "\(uri), \(what): \(error)")
                }
            }
        }
        #expect(try contents() == before)
        #expect(try store.counts().episodes == 0)
        #expect(try store.runs().isEmpty)
    }

    @Test func theSamePageWithJSONStillWrites() async throws {
        let folder = try StudioFolder()
        let store = try PeggleStore()
        try await withRecordingStudio(folder, store) { client in
            // What the page sends: JSON, its own Origin, a charset parameter allowed.
            let headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .origin: "http://localhost"]
            // The rating and the tune stream (StudioRateTests reads them, one at a time).
            for (uri, body) in Self.writes where uri != "/api/rate" && !uri.hasSuffix("/tune") {
                let r = try await client.execute(uri: uri, method: .post, headers: headers,
                                                 body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
                #expect(r.status == .ok, "\(uri): \(String(buffer: r.body))")
            }
        }
        #expect(try folder.files().contains("intruder.json"))
        #expect(try store.counts().episodes == 1)
    }

    @Test func aReadThroughAForeignHostIsRefused() async throws {
        let folder = try StudioFolder()
        try await withStudio(folder) { client in
            for uri in ["/", "/studio.js", "/api/config", "/api/levels", "/api/levels/mine.json", "/api/new", "/nothing-here"] {
                let r = try await client.execute(uri: uri, method: .get, headers: [Self.host: "rebound.example"])
                #expect(r.status == .forbidden, "\(uri)")
                #expect(try errorText(r).contains("Host 'rebound.example' is not this studio's address"))
                #expect(!String(buffer: r.body).contains("Mine"))
            }
            // The page's own GETs carry no Origin, or its own.
            #expect(try await client.execute(uri: "/api/levels", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/api/levels", method: .get, headers: [.origin: "http://localhost"]).status == .ok)
            #expect(try await client.execute(uri: "/api/levels", method: .get, headers: [.origin: "http://evil.example"]).status == .forbidden)
        }
    }

    @Test func theAddressAcceptsItsNamesWithItsPortOnly() {
        let local = StudioAddress(host: "127.0.0.1", port: 8080)
        for ok in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"] { #expect(local.allows(authority: ok), "\(ok)") }
        for bad in ["127.0.0.1", "127.0.0.1:8081", "localhost:80", "evil.example:8080", "127.0.0.1.nip.io:8080", "::1:8080",
                    "127.0.0.1:8080/x", "user@127.0.0.1:8080", "127.0.0.1:08080x", "", ":8080", "192.168.1.5:8080"] {
            #expect(!local.allows(authority: bad), "\(bad)")
        }
        #expect(local.allows(origin: "http://localhost:8080"))
        for bad in ["https://localhost:8080", "http://localhost:8081", "null", "http://evil.example:8080", "localhost:8080"] {
            #expect(!local.allows(origin: bad), "\(bad)")
        }
        // Port 0: the port is known when the server runs, and then only it is accepted.
        let any = StudioAddress(host: "127.0.0.1", port: 0)
        #expect(!any.allows(authority: "127.0.0.1:41234"), "nothing is answered before the port is known")
        any.bound(port: 41234)
        #expect(any.allows(authority: "127.0.0.1:41234") && !any.allows(authority: "127.0.0.1:41235"))
        // Every interface: loopback names, literal addresses (which cannot be rebound), and the names allowed.
        let wide = StudioAddress(host: "0.0.0.0", port: 8080, allowedHosts: ["Studio.Lan"])
        for ok in ["localhost:8080", "192.168.1.5:8080", "[fe80::1]:8080", "studio.lan:8080"] { #expect(wide.allows(authority: ok), "\(ok)") }
        for bad in ["evil.example:8080", "192.168.1.5:9000", "other.lan:8080"] { #expect(!wide.allows(authority: bad), "\(bad)") }
        // One address: that one (and the names allowed), not loopback, which it does not listen on.
        let one = StudioAddress(host: "192.168.1.5", port: 8080)
        #expect(one.allows(authority: "192.168.1.5:8080") && !one.allows(authority: "localhost:8080"))
        #expect(StudioAddress(host: "::1", port: 8080).allows(authority: "[::1]:8080"))
        #expect(StudioAddress.isHostName("studio.lan") && StudioAddress.isHostName("fe80::1") && StudioAddress.isHostName("[fe80::1]"))
        #expect(!StudioAddress.isHostName("studio.lan:8080") && !StudioAddress.isHostName("http://studio.lan") && !StudioAddress.isHostName(""))
    }

    /// A real server on port 0: the Host the client sends comes off the wire, and the port it must
    /// name is the one the server was given when it started.
    @Test func aRealServerChecksTheHostWithItsBoundPort() async throws {
        let folder = try StudioFolder()
        let api = StudioAPI(library: try LevelLibrary(folder: folder.path))
        let url = AsyncStream<String>.makeStream()
        let server = Task {
            try await StudioServer.run(api: api, host: "127.0.0.1", port: 0, threads: 1) { url.continuation.yield($0) }
        }
        defer { server.cancel() }
        var addresses = url.stream.makeAsyncIterator()
        let address = try #require(await addresses.next())
        let port = try #require(Int(address.split(separator: ":").last!.dropLast()))
        let own = try await StudioShareTests.raw(port, "GET /api/levels HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n")
        #expect(own.status == 200 && own.body.contains("mine.json"))
        #expect(try await StudioShareTests.raw(port, "GET /api/levels HTTP/1.1\r\nHost: localhost:\(port)\r\n").status == 200)
        for host in ["rebound.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.1"] {
            let r = try await StudioShareTests.raw(port, "GET /api/levels HTTP/1.1\r\nHost: \(host)\r\n")
            #expect(r.status == 403, "\(host)")
            #expect(r.body.contains("is not this studio's address (127.0.0.1:\(port), [::1]:\(port), localhost:\(port))"), "\(r.body)")
        }
        let body = try String(decoding: JSONSerialization.data(withJSONObject: ["level": Self.intruder]), as: UTF8.self)
        let plain = try await StudioShareTests.raw(port, "POST /api/levels HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Origin: http://127.0.0.1:\(port)\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n", body: body)
        #expect(plain.status == 403)
        #expect(!(try folder.files().contains("intruder.json")))
        let json = try await StudioShareTests.raw(port, "POST /api/levels HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Origin: http://127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n", body: body)
        #expect(json.status == 200, "\(json.body)")
        #expect(try folder.files().contains("intruder.json"))
    }
}
