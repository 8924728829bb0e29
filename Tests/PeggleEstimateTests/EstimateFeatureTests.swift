import Foundation
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleTestSupport
import Testing

/// The features' one declaration (`EstimateFeature`) against the model file and the computation.
@Suite("The estimate's feature declaration")
struct EstimateFeatureTests {
    /// The built-in model file as written, not through `EstimateModel.decode` (which refuses a
    /// mismatch as a whole, so it cannot say which name differs).
    @Test func theDeclaredNamesAreUniqueAndTheModelFilesInOrder() throws {
        let file = try #require(try JSONSerialization.jsonObject(with: EstimateModel.builtInFile) as? [String: Any])
        let names = EstimateFeature.all.map(\.name)
        #expect(Set(names).count == names.count)
        let fitted = try #require(file["features"] as? [String])
        #expect(fitted.count == names.count)
        for (k, (declared, inFile)) in zip(names, fitted).enumerated() { #expect(declared == inFile, "column \(k)") }
        #expect(file["features_version"] as? Int == LevelFeatures.version)
        // The shipped model is `scripts/fit-estimate --signs monotone`: its signs are the declared
        // monotone ones, feature by feature (the measured ones left free).
        #expect(file["signs"] as? [Int] == EstimateFeature.all.map(\.trend.monotone))
    }

    /// Every mode takes its own branches through the groups (the one-hot columns, the knobs, the
    /// rollouts' paces): each must write every column of its group, one value per declared feature.
    @Test(arguments: [GameMode.classic(balls: 10), .beatTheScore(targetScore: 3000, timeLimit: 45), .dodge(shots: 3)])
    func everyModeGetsOneValuePerDeclaredFeature(mode: GameMode) throws {
        let p = try PreparedLevel(makeLevel(mode: mode, pegs: [peg(1, .orange, 400, 300), peg(2, .blue, 300, 350),
                                                              peg(3, .orange, 500, 200)]))
        let values = LevelFeatures(p).values
        #expect(values.count == EstimateFeature.all.count)
        #expect(values.allSatisfy { $0.isFinite })
        let named = Dictionary(uniqueKeysWithValues: zip(EstimateFeature.all.map(\.name), values))
        #expect(named["mode_\(mode.kind.rawValue)"] == 1, "\(mode.kind)")
    }

    /// Each group's columns lie together, in `groups`' order, where `FeatureRow` places them.
    @Test func theGroupsAreContiguousAndPlacedAtTheirOffsets() {
        var seen: [String] = []
        for (k, f) in EstimateFeature.all.enumerated() where seen.last != f.group {
            #expect(!seen.contains(f.group), "\(f.group) split at column \(k)")
            #expect(EstimateFeature.offsets[f.group] == k, "\(f.group)")
            seen.append(f.group)
        }
        #expect(seen == EstimateFeature.groups.map { $0.group })
    }
}
