import Dispatch
import Foundation
import PeggleAnalytics
import PeggleGame

extension Bench {
    /// Aims (radians) of the shots played before `bench --render` draws the board, so the picture
    /// has lit pegs, removed pegs and a ball path, as a mid-game frame does.
    static let renderAngles = [0.25, -0.6, 0.9]

    /// `bench --render`: time to draw one mid-game frame with the rasteriser (`rgb`, pixels into a
    /// reused buffer) and, for comparison, as SVG text.
    func runRender(_ lvl: Level) throws -> [[String: Any]] {
        var game = try GameState(level: lvl, seed: 0)
        var shots: [ShotResult] = []
        for a in Self.renderAngles where !game.isOver {
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
        for _ in 0..<`repeat` {
            var start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<renders {
                try rasteriser.render(game, shots: shots, width: width, into: &pixels)
                checksum &+= Int(pixels[pixels.count / 2])
            }
            rgbRuns.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<renders { checksum &+= svg.render(game, shots: shots).utf8.count }
            svgRuns.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let rgb = rgbRuns.sorted()[rgbRuns.count / 2], text = svgRuns.sorted()[svgRuns.count / 2]
        let row: [String: Any] = [
            "mode": "render", "level": lvl.name, "width": size.width, "height": size.height, "renders": renders,
            "ms_per_rgb_render": Self.round(1000 * rgb / Double(renders), 3),
            "ms_per_svg_render": Self.round(1000 * text / Double(renders), 3),
            "rgb_runs_ms": rgbRuns.map { Self.round(1000 * $0 / Double(renders), 3) },
            "checksum": checksum, "cores": ProcessInfo.processInfo.activeProcessorCount,
        ]
        if json { printLine(JSON.text(row)) } else {
            printLine("render \(size.width) x \(size.height): rgb \(row["ms_per_rgb_render"]!) ms, "
                + "svg \(row["ms_per_svg_render"]!) ms per frame (\(renders) frames, median of \(`repeat`))")
        }
        return [row]
    }
}
