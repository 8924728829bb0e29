import Foundation
import PeggleDifficulty
import PeggleEstimate
import PeggleGame
import PeggleLevel
import PeggleTestSupport
import Testing

/// The built-in estimate against the committed ratings of two hand-made sets nobody fitted on
/// (issue 35 item 5; docs/estimate-checks.md, "The hand-made held-out set"): the 25 levels of
/// Levels/handmade (Levels/handmade/difficulty.csv) and the 14 rated bundled levels
/// (Reports/difficulty.csv). No game is played: the ratings are read, the estimate computed.
///
/// What the estimate scores is pinned as measured (Spearman's rho to 3 decimals, the levels
/// outside the 95% interval and whether each is flagged out of distribution), so a refit or a
/// feature change that moves it fails here and the table in docs/estimate-checks.md is updated with it.
/// Issue 35's bar (rho >= 0.85, >= 90% inside, every level outside flagged) is a separate test,
/// marked a known issue for the sets that miss it today, so it fails the day they pass.
@Suite("The estimate on the hand-made held-out sets")
struct HeldOutEstimateTests {
    struct HeldOut: CustomStringConvertible, Sendable {
        var name: String
        var levels: String       // a folder of level files (its *.json)
        var ratings: String      // peggle report's difficulty.csv of those levels
        var rho: Int             // Spearman's rho x 1000, rounded
        var outside: [String: Bool]   // level name: flagged out of distribution
        var meetsTheBar: Bool
        var description: String { name }
    }

    static let sets: [HeldOut] = [
        // 1 of 25 outside, not flagged (features version 5, 1,579 fitted levels, the emphasis):
        // Diamond Mine, rated 0.016, estimated 0.0023, its interval ending at 0.013. rho 0.850 and
        // 24 of 25 inside meet the bar; the flag misses it.
        HeldOut(name: "hand-made", levels: "Levels/handmade", ratings: "Levels/handmade/difficulty.csv", rho: 850,
                outside: ["Diamond Mine": false],
                meetsTheBar: false),
        // None of 14 outside: rho 0.890, the bar met.
        HeldOut(name: "bundled", levels: "Levels", ratings: "Reports/difficulty.csv", rho: 890, outside: [:],
                meetsTheBar: true),
    ]

    /// A level, its rated sigma50 (a bound counts as the range's end, as scripts/fit-estimate
    /// scores it) and its estimate.
    struct Scored { var name: String; var rated: Double; var estimate: Sigma50Estimate }

    /// The rated levels of `set`: every row of the ratings file matched to a level file by content hash.
    static func scored(_ set: HeldOut) throws -> [Scored] {
        let data = try Repository.data(set.ratings)
        let text = try #require(String(data: data, encoding: .utf8))
        let rows = try #require(readCSV(text), "\(set.ratings) is not RFC 4180")
        let header = try #require(rows.first)
        let hashColumn = try #require(header.firstIndex(of: "level_hash"))
        let relationColumn = try #require(header.firstIndex(of: "sigma50_relation"))
        let sigmaColumn = try #require(header.firstIndex(of: "sigma50_rad"))
        var rated: [String: Double] = [:]
        for row in rows.dropFirst() {
            let value = try #require(Double(row[sigmaColumn]), "\(set.ratings): sigma50_rad \(row[sigmaColumn])")
            switch row[relationColumn] {
            case "=": rated[row[hashColumn]] = value
            case "<": rated[row[hashColumn]] = SkillModel.lowest
            case ">": rated[row[hashColumn]] = SkillModel.highest
            default: Issue.record("\(set.ratings): sigma50_relation \(row[relationColumn])")
            }
        }
        #expect(rated.count == rows.count - 1, "\(set.ratings): a level is rated twice")
        let folder = Repository.url(set.levels)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        var out: [Scored] = []
        for file in files {
            let level = try LevelCodec.decode(try Data(contentsOf: folder.appendingPathComponent(file)))
            guard let sigma = rated.removeValue(forKey: level.contentHash) else { continue }
            out.append(Scored(name: level.name, rated: sigma, estimate: Sigma50Estimate(try PreparedLevel(level), model: .builtIn)))
        }
        #expect(rated.isEmpty, "\(set.ratings) rates levels that are not in \(set.levels): \(rated.keys.sorted())")
        return out
    }

    static func rho(_ s: [Scored]) -> Double? {
        Stats.spearman(s.map { log($0.rated) }, s.map { log($0.estimate.sigma50) })
    }

    static func outside(_ s: [Scored]) -> [String: Bool] {
        Dictionary(uniqueKeysWithValues: s.filter { !($0.estimate.low...$0.estimate.high).contains($0.rated) }
            .map { ($0.name, $0.estimate.outOfDistribution) })
    }

    /// Every hand-made level is valid, canonical and rated; the bundled file rates the 14 levels
    /// besides bench-grid.
    @Test func theRatingsCoverEveryHandmadeLevel() throws {
        let folder = Repository.url("Levels/handmade")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 20)
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let level = try LevelCodec.decode(data)
            #expect(level.validate().isEmpty, "\(file): \(level.validate())")
            #expect(LevelCodec.encode(level) == String(data: data, encoding: .utf8), "\(file) is not in canonical form")
        }
        #expect(try Self.scored(Self.sets[0]).count == files.count)
        #expect(try Self.scored(Self.sets[1]).count == 14)
    }

    @Test(arguments: sets)
    func theEstimateScoresAsMeasured(_ set: HeldOut) throws {
        let s = try Self.scored(set)
        let rho = try #require(Self.rho(s))
        #expect(Int((rho * 1000).rounded()) == set.rho, "\(set.name): rho \(rho)")
        #expect(Self.outside(s) == set.outside)
    }

    @Test(arguments: sets)
    func theEstimateMeetsIssue35sBar(_ set: HeldOut) throws {
        let s = try Self.scored(set)
        let rho = try #require(Self.rho(s))
        let outside = Self.outside(s)
        let check = {
            #expect(rho >= 0.85, "\(set.name): rho \(rho)")
            #expect(Double(s.count - outside.count) >= 0.9 * Double(s.count), "\(set.name): \(outside.count) of \(s.count) outside")
            #expect(outside.values.allSatisfy { $0 }, "\(set.name): outside and not flagged: \(outside.filter { !$0.value }.keys.sorted())")
        }
        if set.meetsTheBar {
            check()
        } else {
            withKnownIssue("issue 35: the estimate misses the bar on this set (docs/metrics.md)") { check() }
        }
    }
}
