import Foundation
import Hummingbird
import Logging
import PeggleGame
import Synchronization

/// The studio's request context: bodies are levels and edits, never larger than a megabyte.
public struct StudioContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
    /// The largest level allowed (1000 objects) is about 120 KB of JSON; a megabyte leaves room.
    public var maxUploadSize: Int { StudioServer.maxBody }
    /// With `--share`, who sent the request (`StudioAccessGuard` sets it); nil when not shared.
    public var role: StudioRole?
    /// With `--share`, the browser session's id (its cookie), stored with the games it records.
    public var session: String?
}

/// The HTTP side of the studio: routes to `StudioAPI`, the embedded page, and error replies.
/// Every error is `{"error": "..."}` with a 4xx status for the client's mistakes; nothing but an
/// explicit save writes a file.
public enum StudioServer {
    public static let maxBody = 1 << 20

    /// Only one rating (or tune, which rates) runs at a time: it uses every core.
    package static let rating = Mutex(false)

    /// The studio's routes behind `StudioGuard`: only requests from the studio's own page at
    /// `address` are answered.
    /// With `share`, only holders of its tokens are answered, and a playtester may only play and
    /// record (`StudioAccessGuard`).
    public static func router(api: StudioAPI, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                              address: StudioAddress, share: StudioShare? = nil) -> Router<StudioContext> {
        let router = Router(context: StudioContext.self)
        // First: a router's middleware wraps only the routes added after it.
        router.add(middleware: StudioGuard(address: address))
        if let share { router.add(middleware: StudioAccessGuard(share: share, address: address)) }
        router.get("/") { _, _ in page(PackageResources.index_html, "text/html; charset=utf-8") }
        router.get("/studio.css") { _, _ in page(PackageResources.studio_css, "text/css; charset=utf-8") }
        router.get("/studio.js") { _, _ in page(PackageResources.studio_js, "text/javascript; charset=utf-8") }
        router.get("/api/config") { _, context in
            reply {
                var config = api.config
                config.role = context.role
                return config
            }
        }
        router.get("/api/levels") { request, _ in
            // Hummingbird decodes the values' percent escapes, not the names' (nor `+`: the page
            // writes a space as %20).
            let parameters = request.uri.queryParameters.map { name, value in
                (String(name).removingPercentEncoding ?? String(name), String(value))
            }
            return reply { () throws(StudioError) in try api.levels(try LevelQuery(parameters: parameters)) }
        }
        router.get("/api/levels/:file") { _, context in
            // The router leaves parameters percent-encoded; the name is checked after decoding.
            let file = context.parameters.get("file") ?? ""
            return reply { () throws(StudioError) in try api.open(file.removingPercentEncoding ?? file) }
        }
        router.get("/api/new") { _, _ in reply { api.newLevel() } }
        router.post("/api/levels") { request, context in
            await body(request, context, SaveRequest.self) { r throws(StudioError) in try api.save(r) }
        }
        router.post("/api/edit") { request, context in
            await body(request, context, EditRequest.self) { r throws(StudioError) in try api.edit(r) }
        }
        router.post("/api/estimate") { request, context in
            await body(request, context, EstimateRequest.self) { r throws(StudioError) in
                try await StudioWork.run { () throws(StudioError) in try api.estimate(r) }
            }
        }
        router.post("/api/play") { request, context in
            await body(request, context, PlayRequest.self) { r throws(StudioError) in
                try await StudioWork.run { () throws(StudioError) in try api.play(r) }
            }
        }
        router.post("/api/games") { request, context in
            await body(request, context, FinishedGameRequest.self) { r throws(StudioError) in
                try await StudioWork.run { () throws(StudioError) in try api.record(r, session: context.session) }
            }
        }
        router.post("/api/rate") { request, context in
            do {
                let r = try StudioAPI.decode(RateRequest.self, from: try await collect(request, context))
                return try rate(r, api: api, threads: threads)
            } catch let e as StudioError {
                return errorResponse(e)
            } catch {
                return errorResponse(StudioError(400, "\(error)"))
            }
        }
        router.post("/api/levels/:file/tune") { request, context in
            let file = context.parameters.get("file") ?? ""
            do {
                let r = try StudioAPI.decode(TuneRequest.self, from: try await collect(request, context))
                return try tune(StudioTune.Job(file: file.removingPercentEncoding ?? file, request: r, api: api), api: api, threads: threads)
            } catch let e as StudioError {
                return errorResponse(e)
            } catch {
                return errorResponse(StudioError(400, "\(error)"))
            }
        }
        return router
    }

    /// Serves the studio on `host:port` until the process gets SIGINT, SIGTERM or SIGHUP;
    /// `started` gets the URL. Requests must name `host` (or a loopback name when `host` is one,
    /// or one of `allowedHosts`) with the bound port: `StudioAddress`.
    /// With `share`, only holders of its tokens are answered (the command prints the links).
    public static func run(api: StudioAPI, host: String, port: Int, allowedHosts: [String] = [], threads: Int,
                           share: StudioShare? = nil, started: @escaping @Sendable (String) -> Void) async throws {
        let address = StudioAddress(host: host, port: port, allowedHosts: allowedHosts)
        StudioAPI.loadEstimateModel()
        let app = Application(router: router(api: api, threads: threads, address: address, share: share),
                              configuration: .init(address: .hostname(host, port: port)),
                              onServerRunning: { channel in
                                  // `--port 0`: the port is known only now; the guard reads it from here on.
                                  let p = channel.localAddress?.port ?? port
                                  address.bound(port: p)
                                  started("http://\(host.contains(":") ? "[\(host)]" : host):\(p)/")
                              },
                              logger: quietLogger())
        // A terminal closing (SIGHUP) or a service manager (SIGTERM) stops the studio as Ctrl-C
        // does: gracefully, so the command closes the database after it (every game in the file).
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint, .sighup])
    }

    // MARK: Helpers

    /// The server's own log says only what goes wrong: the command prints the URL itself.
    static func quietLogger() -> Logger {
        var logger = Logger(label: "peggle-studio")
        logger.logLevel = .warning
        return logger
    }

    static func page(_ bytes: [UInt8], _ type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? StudioJSON.encoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: data)))
    }

    static func errorResponse(_ e: StudioError) -> Response {
        json(["error": e.message], status: HTTPResponse.Status(code: e.status))
    }

    static func reply(_ work: () throws(StudioError) -> some Encodable) -> Response {
        do { return json(try work()) } catch { return errorResponse(error) }
    }

    static func collect(_ request: Request, _ context: StudioContext) async throws(StudioError) -> Data {
        do {
            return Data(buffer: try await request.body.collect(upTo: context.maxUploadSize))
        } catch let e as any HTTPResponseError where e.status == .contentTooLarge {
            throw StudioError(413, "the request body is larger than \(maxBody / 1024) KB")
        } catch {
            throw StudioError(400, "the request body could not be read (\(error))")
        }
    }

    static func body<T: Decodable>(_ request: Request, _ context: StudioContext, _ type: T.Type,
                                   _ work: (T) async throws(StudioError) -> some Encodable) async -> Response {
        do {
            let r = try StudioAPI.decode(T.self, from: try await collect(request, context))
            return json(try await work(r))
        } catch {
            return errorResponse(error)
        }
    }

    /// Starts the rating on its own threads and streams its events as JSON lines.
    static func rate(_ r: RateRequest, api: StudioAPI, threads: Int) throws(StudioError) -> Response {
        let level = try StudioAPI.level(r.level)
        if let issue = level.validate(rules: api.rules).first { throw .refused("the level cannot be rated yet: \(issue)") }
        let budget = r.budget ?? StudioRating.defaultBudget
        guard StudioRating.budgets.contains(budget) else {
            throw .badRequest("bad request: budget: \(budget) is outside \(StudioRating.budgets.lowerBound)...\(StudioRating.budgets.upperBound)")
        }
        try StudioRating.checkNotHeld(level, rules: api.rules, database: api.store)
        return try streamed { (send: @escaping @Sendable (StudioRating.Event) -> Void, stop) in
            do throws(StudioError) {
                send(.result(try StudioRating.rate(level, budget: budget, seed: r.seed ?? 0, threads: threads,
                                                   rules: api.rules, database: api.store, stop: stop, events: send)))
            } catch {
                send(.error(error.message))
            }
        }
    }

    /// Starts the tune on its own threads and streams its events as JSON lines.
    static func tune(_ job: StudioTune.Job, api: StudioAPI, threads: Int) throws(StudioError) -> Response {
        try streamed { (send: @escaping @Sendable (StudioTune.Event) -> Void, stop) in
            do throws(StudioError) {
                let (report, seconds) = try job.run(api: api, threads: threads, stop: stop, events: send)
                send(.result(report, seconds: seconds))
            } catch {
                send(.error(error.message))
            }
        }
    }

    /// Runs `work` on a thread of its own, its events streamed as JSON lines; refused (409) while
    /// another rating or tune runs: each uses every core. `stop` comes when the reader goes away
    /// (the connection closed: a write of `StudioStream`'s fails).
    static func streamed<Event: Encodable & Sendable>(
        _ work: @escaping @Sendable (_ send: @escaping @Sendable (Event) -> Void, _ stop: StudioStop) -> Void) throws(StudioError) -> Response {
        let busy = rating.withLock { running in
            if running { return true }
            running = true
            return false
        }
        if busy { throw .conflict("a rating is already running; wait for it to finish") }
        let stream = StudioStream()
        let encoder = StudioJSON.encoder()
        @Sendable func send(_ e: Event) {
            var data = (try? encoder.encode(e)) ?? Data()
            data.append(0x0A)
            stream.send(ByteBuffer(data: data))
        }
        StudioWork.start {
            defer {
                rating.withLock { $0 = false }
                stream.finish()
            }
            work(send, stream.stop)
        }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"],
                        body: stream.body)
    }
}
