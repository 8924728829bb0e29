import PeggleGame
import PeggleLevel

/// The colours of the SVG pictures: a dark board so lit pegs and trajectories stand out.
package enum SVGPalette {
    package static let page = "#0b1120"
    package static let board = "#0e1626"
    package static let lane = "#16223a"
    package static let laneLine = "#3b4a66"
    package static let wall = "#5b6b86"
    package static let pegStroke = "#070b14"
    package static let panel = "#121a2b"
    package static let panelBorder = "#2a3650"
    package static let text = "#e8ecf3"
    package static let dim = "#9aa6ba"
    package static let heading = "#ffffff"
    package static let blockFill = "#465164"
    package static let blockStroke = RGB(0x9ca3af)
    /// Outline of a block with springiness 1 (plain blocks use `blockStroke`; in between is mixed).
    package static let springStroke = RGB(0x2ef2b0)
    package static let bucket = "#d9dee7"
    package static let cannon = "#c9ced6"
    package static let cannonBarrel = "#8d96a5"
    package static let blastFill = "#ff5a1f"
    package static let blastStroke = "#ff9a52"
    package static let won = "#5ee38a"
    package static let lost = "#ff6b6b"
    package static let playing = "#ffd166"

    /// Fill of a peg of `kind`.
    package static func peg(_ kind: PegKind) -> RGB {
        switch kind {
        case .blue: RGB(0x3a7bfd)
        case .orange: RGB(0xff7a1a)
        case .green: RGB(0x2ecc55)
        case .purple: RGB(0x9b4dff)
        case .zombie: RGB(0xb7bdc8)
        case .confusement: RGB(0xff3fa4)
        }
    }

    /// Fill of a lit peg of `kind`: the kind's colour, much brighter.
    package static func litPeg(_ kind: PegKind) -> RGB { peg(kind).mixed(with: RGB(0xffffff), 0.6) }

    /// Colours of shots, by shot index (cycling).
    package static let shots = ["#ffe14d", "#38e1ff", "#ff6ec7", "#a3ff4d", "#ffffff", "#ff9f43", "#b69cff", "#ff5c5c"]

    package static func shot(_ index: Int) -> String { shots[((index % shots.count) + shots.count) % shots.count] }

    /// The heatmap's scale, 0...1: blue (0), pale yellow (1/2), red (1), as "#rrggbb".
    package static func heat(_ t: Double) -> String {
        let t = min(max(t.isFinite ? t : 0, 0), 1)
        let low = RGB(0x2c7bb6), mid = RGB(0xffffbf), high = RGB(0xd7191c)
        return (t < 0.5 ? low.mixed(with: mid, t * 2) : mid.mixed(with: high, t * 2 - 1)).hex
    }

    /// Outline colour of a block of `springiness` (0...1).
    package static func blockOutline(_ springiness: Double) -> String {
        blockStroke.mixed(with: springStroke, springiness).hex
    }
}
