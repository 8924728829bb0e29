import PeggleLevel

/// What an environment's `pixels` observation needs to draw a board. `PeggleEnv` does not depend
/// on `PeggleDrawing` (docs/architecture.md), so the rasteriser, PeggleDrawing's `PixelRenderer`,
/// is given to it (`EnvConfig.rasterizer`, `ServeSession`'s `rasterizer`); each environment
/// draws with its own copy.
public protocol BoardRasterizer: Sendable {
    /// Draws `state`'s board, without shot paths, `width` pixels across (`Rules.pictureHeight`
    /// rows), into `rgb`: rows top to bottom, three bytes R, G, B a pixel; resized when its count
    /// differs, every byte written.
    mutating func drawBoard(_ state: GameState, width: Int, into rgb: inout [UInt8])
}

extension Rules {
    /// Tallest picture of a board, pixels.
    public static let maxPictureHeight = 16_384

    /// Rows of a picture of the board `width` pixels across: the board's aspect ratio (3:4 if the
    /// board has no size), rounded, at least 1 and at most `maxPictureHeight`.
    public func pictureHeight(width: Int) -> Int {
        let board = physics
        let ratio = board.boardWidth > 0 && board.boardHeight > 0 ? board.boardHeight / board.boardWidth : 0.75
        // Clamped before converting, so an extreme board cannot trap; no valid board comes near.
        let h = min(max((Double(width) * ratio).rounded(), 1), Double(Self.maxPictureHeight))
        return h.isFinite ? Int(h) : 1
    }
}
