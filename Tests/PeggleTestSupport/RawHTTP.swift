import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 request over a plain socket, so a test can send any `Host` (a client library
/// sends its own). `head` is the request line and headers, each ending in CRLF.
public enum RawHTTP {
    public static func request(port: Int, _ head: String, body: String = "") throws -> (status: Int, body: String) {
        split(try read(port: port, head + "Connection: close\r\n\r\n" + body) { _ in false })
    }

    /// Sends a request, reads until the first line of the reply's body has arrived, and closes the
    /// socket, as a page that stops a streamed reply (or a tab closed) does: the status and that line.
    public static func hangUpAfterFirstLine(port: Int, _ head: String, body: String = "") throws -> (status: Int, line: String) {
        // The body is chunked: a chunk's size line, then its data, whose first line ends in "\n".
        func firstLine(_ content: String) -> String? {
            guard let data = content.split(separator: "\r\n", maxSplits: 1).dropFirst().first,
                  let end = data.firstIndex(of: "\n") else { return nil }
            return String(data[..<end])
        }
        let (status, content) = split(try read(port: port, head + "\r\n" + body) { reply in
            let (status, content) = split(reply)
            return status != 0 && (status != 200 || firstLine(content) != nil)
        })
        return (status, status == 200 ? firstLine(content) ?? content : content)
    }

    /// Sends `text`, then reads the reply until the server closes or `enough` holds of what came.
    static func read(port: Int, _ text: String, until enough: ([UInt8]) -> Bool) throws -> [UInt8] {
        let fd = try open(port: port, text)
        defer { close(fd) }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !enough(reply) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            reply += buffer[..<n]
        }
        return reply
    }

    /// `body` (a blocking request) on a thread of its own, for an async test: a thread of Swift's
    /// concurrency pool (two on a two-core machine) blocked in recv can starve the in-process
    /// server it waits for, or another test's, until both hang.
    public static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { done in
            Thread { done.resume(with: Result { try body() }) }.start()
        }
    }

    static func open(port: Int, _ text: String) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw CocoaError(.fileReadUnknown)
        }
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                close(fd)
                throw CocoaError(.fileWriteUnknown)
            }
            sent += n
        }
        return fd
    }

    /// A reply's status and what follows its head.
    static func split(_ reply: [UInt8]) -> (status: Int, body: String) {
        let text = String(decoding: reply, as: UTF8.self)
        let status = Int(text.split(separator: " ", maxSplits: 2).dropFirst().first ?? "") ?? 0
        let content = text.range(of: "\r\n\r\n").map { String(text[$0.upperBound...]) } ?? ""
        return (status, content)
    }
}
