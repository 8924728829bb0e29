import Foundation
import PeggleLevel
import Testing

// Helpers for the level tests: decoding text, and checking refused edits.

/// Decodes JSON text, failing the test with the codec's error if it does not decode.
func decodeText(_ text: String) throws -> Level {
    try LevelCodec.decode(Data(text.utf8))
}

/// The codec's error for `text`, or nil if it decoded.
func formatError(_ text: String) -> LevelFormatError? {
    do {
        _ = try LevelCodec.decode(Data(text.utf8))
        return nil
    } catch {
        return error
    }
}

/// The editor's error for `edit` applied to `level`, checking that a refused edit leaves the
/// level exactly as it was.
func refused(_ level: inout Level, sourceLocation: SourceLocation = #_sourceLocation,
             _ edit: (inout Level) throws -> Void) -> EditError? {
    let before = level
    do {
        try edit(&level)
        return nil
    } catch {
        #expect(level == before, "a refused edit changed the level", sourceLocation: sourceLocation)
        #expect(error is EditError, "edits must throw EditError, not \(error)", sourceLocation: sourceLocation)
        return error as? EditError
    }
}
