import PeggleGame

/// The colours of the SVG pictures: a dark board so lit pegs and trajectories stand out.
enum SVGPalette {
    static let page = "#0b1120"
    static let board = "#0e1626"
    static let lane = "#16223a"
    static let laneLine = "#3b4a66"
    static let wall = "#5b6b86"
    static let pegStroke = "#070b14"
    static let panel = "#121a2b"
    static let panelBorder = "#2a3650"
    static let text = "#e8ecf3"
    static let dim = "#9aa6ba"
    static let heading = "#ffffff"
    static let blockFill = "#465164"
    static let blockStroke = RGB(0x9ca3af)
    /// Outline of a block with springiness 1 (plain blocks use `blockStroke`; in between is mixed).
    static let springStroke = RGB(0x2ef2b0)
    static let bucket = "#d9dee7"
    static let cannon = "#c9ced6"
    static let cannonBarrel = "#8d96a5"
    static let blastFill = "#ff5a1f"
    static let blastStroke = "#ff9a52"
    static let won = "#5ee38a"
    static let lost = "#ff6b6b"
    static let playing = "#ffd166"

    /// Fill of a peg of `kind`.
    static func peg(_ kind: PegKind) -> RGB {
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
    static func litPeg(_ kind: PegKind) -> RGB { peg(kind).mixed(with: RGB(0xffffff), 0.6) }

    /// Colours of shots, by shot index (cycling).
    static let shots = ["#ffe14d", "#38e1ff", "#ff6ec7", "#a3ff4d", "#ffffff", "#ff9f43", "#b69cff", "#ff5c5c"]

    static func shot(_ index: Int) -> String { shots[((index % shots.count) + shots.count) % shots.count] }

    /// Outline colour of a block of `springiness` (0...1).
    static func blockOutline(_ springiness: Double) -> String {
        blockStroke.mixed(with: springStroke, springiness).hex
    }
}
