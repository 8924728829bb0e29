import Foundation
import Hummingbird
import PeggleLevel
import Synchronization

/// The addresses the studio answers to: the host names a request's `Host` may name and its
/// `Origin` may be, each with the port the server is bound to (docs/studio.md, "Security").
///
/// Any web page the designer visits can send requests to 127.0.0.1. Two checks keep such a page
/// out, as Jupyter Server's `check_host` and `check_origin` do:
/// - `Host` must name the studio: a DNS-rebinding page (its own name, later resolved to
///   127.0.0.1) is same-origin to the browser but sends its own name as `Host`.
/// - `Origin`, when present, must be the studio's page: other sites' requests carry theirs.
/// The third check, JSON bodies only, is `StudioGuard`'s: it keeps out the "simple" cross-origin
/// requests (form posts, `text/plain` fetches) a browser sends without asking first.
public final class StudioAddress: Sendable {
    /// Host names (lower case; IPv6 addresses in brackets) a request may name.
    public let hosts: Set<String>
    /// Whether any literal IP address is accepted as a host name: the studio listens on every
    /// interface (`--host 0.0.0.0`). A literal address cannot be rebound (a rebinding page has a
    /// DNS name), so this opens the studio to the network, as asked, and not to other sites.
    public let anyAddress: Bool
    /// The port the server is bound to; nil until it is known (`--port 0` picks one when the
    /// server starts), and until then every request is refused: none is answered on a guess.
    private let boundPort: Mutex<Int?>

    /// The names that reach this machine's loopback interface. `localhost` is resolved by the
    /// browser itself (RFC 6761: Chromium and Firefox never ask DNS for it), so it cannot be rebound.
    public static let loopbackNames: Set<String> = ["localhost", "127.0.0.1", "[::1]"]

    /// - Parameters:
    ///   - host: the address the server listens on (`--host`).
    ///   - port: the port it listens on, or nil (or 0) when it is known only once the server runs
    ///     (then `bound(port:)` gives it).
    ///   - allowedHosts: more host names to accept (`--allow-host`), e.g. this machine's name on
    ///     the network when serving on another interface on purpose.
    public init(host: String, port: Int?, allowedHosts: [String] = []) {
        let listen = Self.normalized(host)
        var names = Set(allowedHosts.map(Self.normalized))
        let wildcard = ["0.0.0.0", "[::]", ""].contains(listen)
        if wildcard || Self.isLoopback(listen) { names.formUnion(Self.loopbackNames) }
        if !wildcard { names.insert(listen) }
        hosts = names
        anyAddress = wildcard
        boundPort = Mutex(port == 0 ? nil : port)
    }

    /// Records the port the server is bound to (from `onServerRunning`).
    public func bound(port: Int) { boundPort.withLock { $0 = port } }

    public var port: Int? { boundPort.withLock { $0 } }

    /// Whether `authority` (a `Host` value: `name`, `name:port`, `[v6]:port`) names the studio.
    public func allows(authority: String) -> Bool {
        guard let (name, port) = Self.split(authority), port == self.port else { return false }
        return hosts.contains(name) || (anyAddress && Self.isAddress(name))
    }

    /// Whether `origin` (an `Origin` value: `http://name:port`) is the studio's own page.
    public func allows(origin: String) -> Bool {
        let prefix = "http://"
        guard origin.lowercased().hasPrefix(prefix) else { return false }
        return allows(authority: String(origin.dropFirst(prefix.count)))
    }

    /// The addresses accepted, for the refusals' messages: `127.0.0.1:8080, localhost:8080`
    /// (with `scheme` "http://", the origins).
    public func accepted(_ scheme: String = "") -> String {
        let port = self.port.map { ":\($0)" } ?? ""
        var list = hosts.sorted().map { scheme + $0 + port }
        if anyAddress { list.append(scheme + "(any IP address)" + port) }
        return list.joined(separator: ", ")
    }

    // MARK: Parsing

    /// A host name as compared: lower case, an IPv6 address in brackets.
    static func normalized(_ host: String) -> String {
        let h = host.lowercased()
        return !h.hasPrefix("[") && isAddress("[\(h)]") ? "[\(h)]" : h
    }

    /// Whether `text` is a host name or IP address alone (no port, scheme or path): what
    /// `--allow-host` takes.
    public static func isHostName(_ text: String) -> Bool {
        let n = normalized(text)
        return split(n).map { $0.0 == n } ?? false
    }

    /// `name[:port]` as (name, port), the port 80 when absent (the scheme is http); nil when it is
    /// not a host and port (a bare IPv6 address, an empty name, a path, a bad port).
    static func split(_ authority: String) -> (String, Int)? {
        let a = authority.lowercased()
        var name = Substring(a), portText: Substring?
        if a.hasPrefix("[") {
            guard let close = a.firstIndex(of: "]") else { return nil }
            name = a[...close]
            let rest = a[a.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
        } else if let colon = a.firstIndex(of: ":") {
            name = a[..<colon]
            portText = a[a.index(after: colon)...]
        }
        guard !name.isEmpty, !name.contains(where: { "/?#@ \\".contains($0) }) else { return nil }
        guard let portText else { return (String(name), 80) }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let port = Int(portText),
              (1...65535).contains(port) else { return nil }
        return (String(name), port)
    }

    /// Whether `name` is a literal IPv4 address or a bracketed IPv6 one.
    static func isAddress(_ name: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        if name.hasPrefix("[") && name.hasSuffix("]") {
            return inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &buffer) == 1
        }
        return inet_pton(AF_INET, name, &buffer) == 1
    }

    static func isLoopback(_ name: String) -> Bool {
        loopbackNames.contains(name) || (name.hasPrefix("127.") && isAddress(name))
    }
}

/// Refuses, with 403 and `{"error": ...}` before any route runs, a request that is not from the
/// studio's own page: a `Host` that does not name the studio, a present `Origin` that is not the
/// studio's, and a state-changing request (any method but GET, HEAD, OPTIONS) whose body is not
/// declared `application/json`.
public struct StudioGuard<Context: RequestContext>: RouterMiddleware {
    public let address: StudioAddress

    public init(address: StudioAddress) { self.address = address }

    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = refusal(request) { return StudioServer.errorResponse(StudioError(403, refusal)) }
        return try await next(request, context)
    }

    /// Why `request` is refused, or nil.
    func refusal(_ request: Request) -> String? {
        let head = request.head
        let what = "\(head.method.rawValue) \(LevelCodec.cut(head.path ?? ""))"
        guard address.port != nil else { return "refused: the studio is still starting (its port is not known yet); try again" }
        // HTTP/1 puts `Host` in the authority; a `Host` field left beside it is checked as well
        // (HTTPTypes marks the `.host` name unavailable, hence the filter).
        let hosts = (head.authority.map { [$0] } ?? []) + request.headers.filter { $0.name.canonicalName == "host" }.map(\.value)
        if hosts.isEmpty { return "refused: \(what) has no Host header; the studio answers requests to \(address.accepted()) only" }
        if let host = hosts.first(where: { !address.allows(authority: $0) }) {
            return "refused: Host '\(LevelCodec.cut(host))' is not this studio's address (\(address.accepted())): "
                + "a page reaching the studio through another name (DNS rebinding) may not read or write it; "
                + "`peggle studio --allow-host NAME` accepts another name"
        }
        if let origin = request.headers[values: .origin].first(where: { !address.allows(origin: $0) }) {
            return "refused: Origin '\(LevelCodec.cut(origin))' is not this studio's page ("
                + address.accepted("http://") + "): another site may not read or write the studio"
        }
        if ![.get, .head, .options].contains(head.method) {
            let types = request.headers[values: .contentType]
            let media = types.count == 1 ? types[0].split(separator: ";", maxSplits: 1).first
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } : nil
            if media != "application/json" {
                let given = types.isEmpty ? "none" : "'\(LevelCodec.cut(types.joined(separator: ", ")))'"
                return "refused: \(what) needs Content-Type: application/json (given: \(given)); "
                    + "the studio takes JSON bodies only, so no other site's form or simple request can write"
            }
        }
        return nil
    }
}
