import ArgumentParser
import PeggleGame

// The closed choices of the package as option values: argument-parser lists their raw values in
// the help and refuses any other text with its own message (exit code 2, as all bad input).

extension GameModeKind: ExpressibleByArgument {}
extension Power: ExpressibleByArgument {}
