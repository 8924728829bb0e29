/// Why a call was refused, as the serve protocol reports it (docs/protocol.md has when each
/// happens). The raw values are the protocol's, stable across versions.
public enum ErrorCode: String, Sendable, CaseIterable {
    /// The line is not a JSON object.
    case badJSON = "bad_json"
    /// `cmd` names no command.
    case unknownCommand = "unknown_command"
    /// A field is missing, of the wrong type, out of range or unknown.
    case badRequest = "bad_request"
    /// A level file is missing or invalid, or too large for the encoder.
    case levelError = "level_error"
    /// A command that needs environments before `make`.
    case notMade = "not_made"
    /// `step` or `render` before `reset`.
    case notReset = "not_reset"
    /// Wrong number of actions, or an action outside the action space.
    case badAction = "bad_action"
    /// Stepping an environment whose episode ended (autoreset `disabled`, or one environment).
    case episodeOver = "episode_over"
    /// `restore` or `drop_snapshot` of an unknown snapshot.
    case noSnapshot = "no_snapshot"
    /// `make` or `snapshot` past the session's memory budget.
    case memoryBudget = "memory_budget"
    /// A bug.
    case `internal`
}

/// Why an environment call (or a serve request) was refused: one of the protocol's codes and a
/// message for people.
public struct EnvError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A `bad_request`: the commonest refusal.
    public static func badRequest(_ message: String) -> EnvError { EnvError(.badRequest, message) }

    public var description: String { "\(code.rawValue): \(message)" }
}
