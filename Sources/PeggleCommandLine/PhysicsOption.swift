import ArgumentParser
import PeggleLevel

extension PhysicsVersion: ExpressibleByArgument {
    public init?(argument: String) {
        guard let n = Int(argument) else { return nil }
        self.init(rawValue: n)
    }
    public static var allValueStrings: [String] { allCases.map(\.description) }

    /// How a command's output names this physics: nil for version 1, whose output is what it
    /// always was; else its number (a JSON object's `physics`).
    package var outputNumber: Int? { self == .standard ? nil : rawValue }

    /// The end of a command's text line: empty for version 1, else " [physics 2]".
    package var outputSuffix: String { outputNumber.map { " [physics \($0)]" } ?? "" }
}

/// `--physics`: which physics plays (issue 51). One option for `play`, `rate` and the benchmarks,
/// so its default and help are declared once.
package struct PhysicsOption: ParsableArguments {
    package init() {}

    @Option(help: "The physics: 1 (fixed steps, every stored rating's) or 2 (times of impact for one ball on a fixed board, version 1's steps where several balls or a turning board come in; being measured).")
    package var physics = PhysicsVersion.standard

    /// `rules` played under this physics.
    package func rules(_ rules: Rules = Rules()) -> Rules {
        var r = rules
        r.physicsVersion = physics
        return r
    }
}
