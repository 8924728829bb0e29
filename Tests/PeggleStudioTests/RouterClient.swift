import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import PeggleStudio
import Synchronization

/// The studio's router asked in process, as a browser's request would reach it, with no server and
/// no socket: what HummingbirdTesting's `.router` mode does. That package is not used because it
/// also brings its live-server client (AsyncHTTPClient, with NIOSSL and BoringSSL) into the test
/// build, about a third of CI's test-build time for code no test runs (docs/distribution.md, "CI").
struct RouterClient: Sendable {
    let respond: @Sendable (Request, StudioContext) async throws -> Response

    /// Runs `test` with a client of `router`.
    static func test<T: Sendable>(_ router: Router<StudioContext>, _ test: @Sendable (RouterClient) async throws -> T) async throws -> T {
        let responder = router.buildResponder()
        return try await test(RouterClient { try await responder.respond(to: $0, context: $1) })
    }

    /// The reply to one request. As from a browser: authority "localhost", the body's length in
    /// Content-Length; an error the router lets out becomes a 500, as Hummingbird's server makes it.
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> TestResponse {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(head: .init(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: headers),
                              body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = StudioContext(source: .init(channel: NIOAsyncTestingChannel(), logger: Logger(label: "studio-test")))
        let response: Response
        do {
            response = try await respond(request, context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let writer = BodyCollector()
        try await response.body.write(writer)
        return TestResponse(head: response.head, body: writer.body.withLock { $0 })
    }
}

/// A reply: its head and its whole body.
struct TestResponse: Sendable {
    var head: HTTPResponse
    var body: ByteBuffer
    var status: HTTPResponse.Status { head.status }
    var headers: HTTPFields { head.headerFields }
}

/// Collects a streamed reply's body (the rating's lines come a write at a time).
private final class BodyCollector: ResponseBodyWriter, Sendable {
    let body = Mutex(ByteBuffer())
    func write(_ buffer: ByteBuffer) async throws { body.withLock { _ = $0.writeImmutableBuffer(buffer) } }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
