import Foundation
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleStudio
import PeggleTestSupport
import Testing

@Suite struct StudioEstimateTests {
    struct Reply: Decodable, Equatable {
        var sigma50: Double, low: Double, high: Double
        var tier: String
        var outOfDistribution: Bool
        var distance: Double?
        var note: String?
    }

    /// The reply's snake_case keys read into `Reply`'s names.
    static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }

    /// The reply is `peggle estimate`'s numbers for the same level: the same built-in model on the
    /// same features (Sources/peggle/Commands/Estimate.swift calls the same `Sigma50Estimate`).
    @Test func theEstimateIsTheCommandsEstimateOfTheSameLevel() async throws {
        let folder = try StudioFolder()
        // Upside Down, hand-made, lies past the fitted levels' reach.
        let text = try #require(String(data: try Repository.data("Levels/upside-down.json"), encoding: .utf8))
        let expected = Sigma50Estimate(try PreparedLevel(try LevelCodec.decode(Data(text.utf8))), model: EstimateModel.builtIn)
        try await withStudio(folder) { client in
            let r = try await post(client, "/api/estimate", ["level": text])
            #expect(r.status == .ok)
            // JSONDecoder reads doubles exactly (Linux's JSONSerialization can be off by an ulp).
            let e = try Self.decoder.decode(Reply.self, from: Data(buffer: r.body))
            #expect(e == Reply(sigma50: expected.sigma50, low: expected.low, high: expected.high, tier: expected.tier.rawValue,
                               outOfDistribution: expected.outOfDistribution, distance: expected.distance,
                               note: "outside what the estimate was fitted on: rate it"))
            // Past the reach: the page says so.
            #expect(expected.outOfDistribution)
            #expect(Set(try json(r.body).keys) == ["sigma50", "low", "high", "tier", "out_of_distribution", "distance", "note"])
        }
    }

    @Test func anEditChangesTheEstimate() async throws {
        let folder = try StudioFolder()
        let mine = LevelCodec.encode(StudioFolder.mine)
        // A second orange peg far to the side: harder than one peg straight below the cannon.
        let two = try StudioFolder.mine.adding(Peg(id: 0, kind: .orange, center: .init(90, 520)))
        try await withStudio(folder) { client in
            let one = try json(try await post(client, "/api/estimate", ["level": mine]).body)
            let reply = try await post(client, "/api/estimate", ["level": LevelCodec.encode(two)])
            let after = try json(reply.body)
            let expected = Sigma50Estimate(try PreparedLevel(two), model: EstimateModel.builtIn)
            #expect(try Self.decoder.decode(Reply.self, from: Data(buffer: reply.body)).sigma50 == expected.sigma50)
            #expect(after["sigma50"] as? Double != one["sigma50"] as? Double)
        }
    }

    @Test func aLevelThatCannotBePlayedHasNoEstimateAndSaysWhy() async throws {
        try await withStudio(try StudioFolder()) { client in
            let empty = LevelCodec.encode(Level(name: "Empty"))
            let r = try await post(client, "/api/estimate", ["level": empty])
            #expect(r.status == .unprocessableContent)
            #expect(try errorText(r) == "the level cannot be estimated yet: pegs: a classic level needs at least one orange peg")
            let missing = try await post(client, "/api/estimate", ["lvl": empty])
            #expect(missing.status == .badRequest)
            #expect(try errorText(missing) == "bad request: level is missing")
        }
    }
}

extension Level {
    /// The level with `peg` added through the designer's editor (which gives it a fresh id).
    func adding(_ peg: Peg) throws -> Level {
        var level = self
        _ = try level.add(peg, rules: Rules())
        return level
    }
}
