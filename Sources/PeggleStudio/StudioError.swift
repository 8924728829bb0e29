/// A request the studio refuses: an HTTP status (4xx for the client's mistakes) and the reason,
/// worded as the CLI words it. The server answers `{"error": message}` and changes nothing.
public struct StudioError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var message: String

    public init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }

    static func badRequest(_ message: String) -> StudioError { StudioError(400, message) }
    static func notFound(_ message: String) -> StudioError { StudioError(404, message) }
    package static func conflict(_ message: String) -> StudioError { StudioError(409, message) }
    /// Well-formed, but the edit or level is refused (an overlap, a value out of range).
    static func refused(_ message: String) -> StudioError { StudioError(422, message) }
}
