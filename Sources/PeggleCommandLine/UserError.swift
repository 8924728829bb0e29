import ArgumentParser
import Foundation

/// Bad input from the user: printed as `error: ...` lines, exit code 2, nothing written.
package struct UserError: Error {
    package var lines: [String]
    package init(_ message: String) { lines = [message] }
    package init(lines: [String]) { self.lines = lines }
}

extension ParsableCommand {
    /// Runs the command `arguments` name, as both executables' `main()` does. Bad input exits
    /// with code 2 and one clear message on standard error. Argument-syntax errors (an unknown
    /// option, a missing value, a value that is not one of an option's choices) are bad input
    /// too: swift-argument-parser's own message, and code 2 instead of its 64. Help and version
    /// requests keep theirs.
    package static func runAsMain(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error as UserError {
            FileHandle.standardError.write(Data(error.lines.map { "error: \($0)\n" }.joined().utf8))
            Foundation.exit(2)
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
