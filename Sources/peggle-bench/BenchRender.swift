import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleDrawing
import PeggleGame

/// `peggle-bench render`: time to draw one mid-game frame with the rasteriser (`rgb`, pixels into
/// a reused buffer) and, for comparison, as SVG text.
struct BenchRender: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Drawing one mid-game frame: the rasteriser (rgb) and the SVG renderer, ms per frame.",
        discussion: "Three shots (0.25, -0.6 and 0.9 rad) are played with trajectories, then that state with the last "
            + "shot is drawn --renders times into one reused buffer, and as many times as SVG text.")

    /// Aims (radians) of the shots played before the board is drawn, so the picture has lit pegs,
    /// removed pegs and a ball path, as a mid-game frame does.
    static let angles = [0.25, -0.6, 0.9]

    @OptionGroup var workload: BenchLevel

    @Option(help: "Frames per run.")
    var renders = 200

    @Option(help: "Picture width, pixels (default: the rasteriser's, one pixel per board unit).")
    var width: Int?

    @OptionGroup var output: BenchOutputOptions

    /// The one row.
    struct Row: BenchRow {
        struct Columns: Encodable {
            var mode: String, width: Int, height: Int, renders: Int, msPerRgbRender: Double, msPerSvgRender: Double
        }
        struct Extra: Encodable {
            var level: String, rgbRunsMs: [Double], checksum: Int, cores: Int
        }
        var columns: Columns
        var extra: Extra
    }

    func run() throws {
        let level = try workload.load()
        guard renders >= 1 else { throw UserError("--renders: \(renders) must be at least 1") }
        var out = try BenchOutput<Row>(output)
        var game = try GameState(level: level, seed: 0)
        var shots: [ShotResult] = []
        for a in Self.angles where !game.isOver {
            shots = [try game.shoot(angle: a, recordTrajectory: true)]
        }
        var rasteriser = PixelRenderer()
        var pixels: [UInt8] = []
        let size: (width: Int, height: Int)
        do {
            size = try rasteriser.render(game, shots: shots, width: width, into: &pixels)  // sizes the buffers
        } catch {
            throw UserError("--width: \(error)")
        }
        let svg = SVGRenderer()
        var rgbRuns: [Double] = [], svgRuns: [Double] = []
        var checksum = 0
        for _ in 0..<workload.repeat {
            var start = BenchClock.now()
            for _ in 0..<renders {
                try rasteriser.render(game, shots: shots, width: width, into: &pixels)
                checksum &+= Int(pixels[pixels.count / 2])
            }
            rgbRuns.append(BenchClock.seconds(since: start))
            start = BenchClock.now()
            for _ in 0..<renders { checksum &+= svg.render(game, shots: shots).utf8.count }
            svgRuns.append(BenchClock.seconds(since: start))
        }
        let rgb = rgbRuns.sorted()[rgbRuns.count / 2], text = svgRuns.sorted()[svgRuns.count / 2]
        let round = BenchClock.round
        let row = Row(
            columns: .init(mode: "render", width: size.width, height: size.height, renders: renders,
                           msPerRgbRender: round(1000 * rgb / Double(renders), 3), msPerSvgRender: round(1000 * text / Double(renders), 3)),
            extra: .init(level: level.name, rgbRunsMs: rgbRuns.map { round(1000 * $0 / Double(renders), 3) }, checksum: checksum,
                         cores: BenchClock.cores))
        try out.emit(row, text: "render \(size.width) x \(size.height): rgb \(row.columns.msPerRgbRender) ms, "
            + "svg \(row.columns.msPerSvgRender) ms per frame (\(renders) frames, median of \(workload.repeat))")
        try out.finish()
    }
}
