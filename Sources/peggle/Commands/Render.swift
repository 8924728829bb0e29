import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleDrawing
import PeggleGame
import PeggleLevel

/// `peggle render LEVEL [--angles ...] -o FILE.svg`: the board as a picture, with shots drawn.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a level as SVG, with the trajectories of scripted shots.",
        discussion: "Pegs are coloured by kind; pegs the shots lit are marked with the shot's number. "
            + "Convert to PNG with e.g. `rsvg-convert -o board.png board.svg`.")

    @OptionGroup var script: ScriptedShots

    @Option(help: "Draw only the shots from this one on (1-based); earlier shots are played but not drawn.")
    var from: Int?

    @Option(name: [.short, .long], help: "Output SVG file.")
    var output: String

    @OptionGroup var physicsOption: PhysicsOption

    func run() throws {
        let rules = physicsOption.rules()
        guard output.hasSuffix(".svg") else { throw UserError("-o: '\(output)' should end in .svg") }
        try Files.checkOutput(output)
        let (lvl, aims) = try script.load(rules: rules)
        let renderer = SVGRenderer(rules: rules)
        var svg: String
        if aims.isEmpty {
            guard from == nil else { throw UserError("--from needs --angles") }
            svg = renderer.render(level: lvl)
        } else {
            let first = from ?? 1
            guard first >= 1 && first <= aims.count else {
                throw UserError("--from: \(first) is outside 1...\(aims.count) (the number of angles)")
            }
            var game = try GameState(level: lvl, rules: rules, seed: script.seed)
            for a in aims.prefix(first - 1) where !game.isOver { _ = try game.shoot(angle: a) }
            var shots: [ShotResult] = []
            for a in aims.dropFirst(first - 1) where !game.isOver {
                shots.append(try game.shoot(angle: a, recordTrajectory: true))
            }
            // The board after the shots, with the pegs they lit drawn where the ball met them.
            svg = renderer.render(game, shots: shots)
        }
        try Files.write(svg, to: output)
        printLine("wrote \(output)")
    }
}
