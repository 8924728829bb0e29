import Foundation
import Hummingbird
import PeggleLevel

/// Who a request comes from when the studio is shared (`peggle studio --share`).
public enum StudioRole: String, Sendable, Encodable {
    /// Every right: design, save, estimate, rate, tune, play, record. The designer's own link.
    case designer
    /// Play levels and record finished games, nothing else. The link the designer hands out.
    case playtester
}

/// The tokens of a shared studio (docs/studio.md, "Playtests from other machines"), as Jupyter
/// Server does it: each a random token of 192 bits drawn when the studio starts (so a link from an
/// earlier run is refused), sent once in a link, then kept in an HttpOnly, SameSite=Strict cookie.
public final class StudioShare: Sendable {
    /// The designer's token: every right.
    public let designerToken: String
    /// The playtesters' token: play and record only.
    public let playtestToken: String

    /// Random bytes per token (48 hex digits): over the 128 bits a guess must beat.
    public static let tokenBytes = 24
    /// Random bytes of a browser session's id (`peggle-session-PORT` cookie).
    public static let sessionBytes = 16

    public init(designerToken: String = StudioShare.randomHex(tokenBytes),
                playtestToken: String = StudioShare.randomHex(tokenBytes)) {
        precondition(designerToken != playtestToken, "the two roles need two tokens")
        self.designerToken = designerToken
        self.playtestToken = playtestToken
    }

    /// `bytes` random bytes as lower-case hex. `SystemRandomNumberGenerator` is the system's
    /// CSPRNG: on Linux the standard library fills it with getrandom(2) (the kernel's generator,
    /// the one /dev/urandom serves), never a seeded or user-space generator.
    public static func randomHex(_ bytes: Int) -> String {
        var system = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for _ in 0..<bytes {
            let b = UInt8.random(in: .min ... .max, using: &system)
            text += [hex[Int(b >> 4)], hex[Int(b & 15)]]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The role `presented` grants, or nil. Both tokens are always compared, each in constant time.
    public func role(of presented: String) -> StudioRole? {
        let designer = Self.same(presented, designerToken)
        let playtester = Self.same(presented, playtestToken)
        return designer ? .designer : playtester ? .playtester : nil
    }

    /// Whether `a` equals `b`, in a time that depends on their lengths only (a token's length is
    /// public: 48 hex digits), never on where they first differ, so timing a wrong guess tells
    /// nothing about the token. Every byte is read and folded with OR; no early exit.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// Whether `text` can be a session id this studio issued (so a forged cookie is not stored).
    static func isSession(_ text: String) -> Bool {
        text.utf8.count == 2 * sessionBytes && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Cookie names carry the port: browsers share a host's cookies across its ports, so two
    /// studios on one machine must not overwrite each other's tokens.
    static func tokenCookie(_ port: Int) -> String { "peggle-studio-\(port)" }
    static func sessionCookie(_ port: Int) -> String { "peggle-session-\(port)" }

    /// What a playtester may do: read the page, the config and the levels, and play and record.
    /// An allow-list, so a route added later is the designer's until it is listed here.
    static func playtesterMay(_ method: HTTPRequest.Method, _ path: String) -> Bool {
        switch method {
        case .get: ["/", "/studio.css", "/studio.js", "/api/config", "/api/levels", "/api/new"].contains(path)
            || (path.hasPrefix("/api/levels/") && !path.dropFirst("/api/levels/".count).contains("/"))
        case .post: ["/api/play", "/api/games"].contains(path)
        default: false
        }
    }
}

/// With `--share`, after `StudioGuard` (Host, Origin, JSON): a request must hold one of the
/// studio's tokens (its cookie, or `Authorization: Bearer TOKEN` from a script) or it is refused
/// with 403; a playtester's request may only play and record. `GET /?token=TOKEN`, the printed
/// link, sets the cookies and moves the page to `/`, so the token leaves the address bar.
public struct StudioAccessGuard: RouterMiddleware {
    public typealias Context = StudioContext
    public let share: StudioShare
    public let address: StudioAddress

    public init(share: StudioShare, address: StudioAddress) {
        self.share = share
        self.address = address
    }

    public func handle(_ request: Request, context: StudioContext,
                       next: (Request, StudioContext) async throws -> Response) async throws -> Response {
        // StudioGuard answers before the port is known; this runs after it.
        let port = address.port ?? 0
        let path = request.uri.path
        let what = "\(request.method.rawValue) \(LevelCodec.cut(path))"
        let cookies = request.cookies
        let session = cookies[StudioShare.sessionCookie(port)]?.value.description
        let knownSession = session.flatMap { StudioShare.isSession($0) ? $0 : nil }
        if request.method == .get, path == "/", let token = request.uri.queryParameters.get("token") {
            guard share.role(of: token) != nil else {
                return refuse("refused: the link's token is not this studio's: a link from an earlier run of the studio "
                    + "(each run draws new tokens) or a mistyped one; ask for the link the studio printed")
            }
            return link(token: token, port: port, newSession: knownSession == nil)
        }
        let presented = cookies[StudioShare.tokenCookie(port)]?.value.description ?? Self.bearer(request)
        guard let presented else {
            return refuse("refused: \(what) holds no token: this studio is shared (--share) and answers only "
                + "the links it printed (http://...?token=...)")
        }
        guard let role = share.role(of: presented) else {
            return refuse("refused: \(what): the token is not this studio's: a token from an earlier run of the studio "
                + "(each run draws new tokens) or a mistyped one; open the link the studio printed")
        }
        if role == .playtester && !StudioShare.playtesterMay(request.method, path) {
            return refuse("refused: \(what): a playtester may only play and record games "
                + "(no save, edit, estimate, rate or tune); the designer's link has every right")
        }
        var context = context
        context.role = role
        context.session = knownSession
        var response = try await next(request, context)
        if path == "/" && knownSession == nil { response.setCookie(sessionCookie(port)) }
        return response
    }

    /// The printed link's answer: the cookies, and a page that moves to `/`. A page, not a 303: a
    /// redirect that follows a click on another site stays cross-site, so the browser would not
    /// send the SameSite=Strict cookie to `/`; the page's own refresh is a same-site navigation.
    func link(token: String, port: Int, newSession: Bool) -> Response {
        let html = #"<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/">"#
            + #"<title>Peggle Studio</title><p><a href="/">Open Peggle Studio</a></p>"#
        var response = Response(status: .ok,
                                headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                          HTTPFields.Element.Name("Referrer-Policy")!: "no-referrer"],
                                body: .init(byteBuffer: ByteBuffer(string: html)))
        response.setCookie(Cookie(name: StudioShare.tokenCookie(port), value: token, path: "/", httpOnly: true, sameSite: .strict))
        if newSession { response.setCookie(sessionCookie(port)) }
        return response
    }

    /// A new browser session's cookie: its id is stored with the games played in that browser.
    func sessionCookie(_ port: Int) -> Cookie {
        Cookie(name: StudioShare.sessionCookie(port), value: StudioShare.randomHex(StudioShare.sessionBytes), path: "/",
               httpOnly: true, sameSite: .strict)
    }

    /// `Authorization: Bearer TOKEN`, for scripts (a browser's page never sends one).
    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers[.authorization] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    func refuse(_ message: String) -> Response { StudioServer.errorResponse(StudioError(403, message)) }
}
