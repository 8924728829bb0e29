import PeggleDrawing
import PeggleEnv
import PeggleGame
import PeggleTestSupport
import Testing

/// The `pixels` encoder: the rasteriser's picture of the board, channels first, as an image
/// space SB3's CnnPolicy takes (issue 15).
@Suite("Pixels encoder")
struct PixelEncoderTests {
    /// A config with the pixels encoder `width` pixels wide, without its rasteriser.
    static func pixels(width: Int = ObservationEncoder.defaultPixelWidth) throws -> EnvConfig {
        var c = config([try bundled("first-steps")], encoder: .pixels)
        c.pixelWidth = width
        return c
    }

    /// A config with the pixels encoder and the rasteriser it draws with.
    func drawn(width: Int = ObservationEncoder.defaultPixelWidth) throws -> EnvConfig {
        var c = try Self.pixels(width: width)
        c.rasterizer = PixelRenderer()
        return c
    }

    @Test func spaceIsAChannelsFirstByteImage() throws {
        let env = try PeggleEnv(config: drawn())
        #expect(env.observationSpace == .image(shape: [3, 72, 96]))
        #expect(env.observationSpace.description == "Box(0, 255, (3, 72, 96), uint8)")
        #expect(env.observationSize == 3 * 72 * 96)
        // The smallest width gives NatureCNN's smallest height, 36 rows.
        #expect(try Self.pixels(width: 48).observationEncoder.shape == [3, 36, 48])
    }

    /// The observation is exactly `PixelRenderer`'s picture of the state without shots, R, G and
    /// B planes in turn.
    @Test func observationIsTheRasterisersPictureChannelsFirst() throws {
        var env = try PeggleEnv(config: drawn())
        var obs = try env.reset(seed: 3).observation
        for a in [0.2, -0.4] { obs = try env.step(a).observation }
        var renderer = PixelRenderer()
        var rgb: [UInt8] = []
        let (w, h) = try renderer.render(env.game!, width: 96, into: &rgb)
        #expect((w, h) == (96, 72))
        let plane = w * h
        var expected = [Float](repeating: 0, count: 3 * plane)
        for p in 0..<plane {
            for c in 0..<3 { expected[c * plane + p] = Float(rgb[3 * p + c]) }
        }
        #expect(obs == expected)
        #expect(Set(obs.map { $0 == $0.rounded() && $0 >= 0 && $0 <= 255 }) == [true])
    }

    /// Same seed and actions, same bytes, on any thread count; pinned so a change to the
    /// rasteriser or the encoder is seen.
    @Test func framesAreDeterministicAndPinned() throws {
        var hashes: [UInt64] = []
        for threads in [1, 2] {
            var vec = try VectorEnv(config: drawn(), count: 3,
                                    autoreset: .sameStep, threads: threads)
            try vec.reset(seed: 7)
            var h = FNV1a()
            for step in 0..<4 {
                try vec.step(actions(3, seed: UInt64(step)))
                h.add(vec.observations)
            }
            hashes.append(h.value)
        }
        #expect(hashes[0] == hashes[1])
        #expect(hashes[0] == 16_184_018_582_350_464_853)
    }

    @Test func widthOutsideTheRangeIsRefused() throws {
        #expect(throws: EnvError(.badRequest, "pixel_width is 47; it must be in 48...800 pixels")) {
            try PeggleEnv(config: drawn(width: 47))
        }
    }

    /// PeggleEnv depends on PeggleGame alone: the rasteriser is given, and without one the
    /// encoder is refused when the environment is made.
    @Test func withoutARasteriserThePixelsEncoderIsRefused() throws {
        #expect(throws: EnvError(.badRequest,
                                 "the pixels encoder needs a rasteriser: set EnvConfig.rasterizer (PeggleDrawing's PixelRenderer())")) {
            try PeggleEnv(config: Self.pixels())
        }
    }
}
