import Foundation
import PeggleGame
import PeggleStore

/// A fresh folder under the system's temporary directory, removed when the value goes away.
final class TempDir {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("peggle-store-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Kinds as the store sees them, data: PeggleAgents declares the real ones, which the store does not know.
extension AgentKind {
    static let random = AgentKind(declaring: "random")
    static let linear = AgentKind(declaring: "linear")
}

enum Fixture {
    static let startedAt = Date(timeIntervalSince1970: 1_750_000_000)

    static func level(_ i: Int, name: String? = nil) -> LevelRecord {
        LevelRecord(contentHash: String(format: "%016x", 0xabc0_0000 + i), name: name ?? "level \(i)",
                    json: "{\"name\":\"level \(i)\"}", mode: .classic, power: .none, pegCount: 10 + i, blue: 5 + i,
                    orange: 3, green: 1, purple: 1, zombie: 0, confusement: 0, blockCount: i)
    }

    static func agent(_ i: Int, weightsHash: String? = nil) -> AgentRecord {
        AgentRecord(kind: .greedy, parameters: "{\"candidates\":\(8 * (i + 1))}", weightsHash: weightsHash,
                    label: "greedy(candidates=\(8 * (i + 1)))")
    }

    /// A game to insert: the game, the ids of its level and agent, and the run that played it.
    struct Item {
        var game: PlayedGame
        var levelID: Int64
        var agentID: Int64
        var runID: Int64
    }

    /// A game whose every number follows from its key, with `shotCount` shots. Its identity
    /// (level hash and name, agent label) is blank and its agent kind a placeholder: the store
    /// fills them from the ids when it reads the game back (see `outcome`).
    static func episode(run: Int64, level: Int64, agent: Int64, seed: UInt64, sigma: Double,
                        shotCount: Int = 3) -> Item {
        let won = seed % 3 == 0
        let shots = (0..<shotCount).map { k in
            var hits = KindCounts()
            hits.blue = k
            hits.orange = k % 2
            return PlayedShot(index: k, chosen: 0.1 * Double(k), angle: 0.1 * Double(k) + sigma / 2, hits: hits,
                              points: 10 * k, freeBalls: 0, caught: k == 1 ? 1 : 0, orangeCleared: k % 2, seconds: 4.5)
        }
        let game = PlayedGame(levelHash: "", levelName: "", agentKind: .random, agentLabel: "", seed: seed, sigma: sigma,
                              status: won ? .won : .lost, score: Int(seed % 10_000) * 10, shots: shotCount,
                              orangeCleared: won ? 3 : 1, orangeTotal: 3, ballsUsed: shotCount,
                              gameSeconds: Double(shotCount) * 4.5, shotLog: shots)
        return Item(game: game, levelID: level, agentID: agent, runID: run)
    }

    /// `game` with its identity blanked (the kind back to the placeholder), to compare what was
    /// read with what was inserted.
    static func outcome(_ game: PlayedGame) -> PlayedGame {
        var g = game
        g.levelHash = ""
        g.levelName = ""
        g.agentKind = .random
        g.agentLabel = ""
        return g
    }

    /// Every episode of a rating plan (levels × agents × sigmas × seeds), cut into batches, with
    /// the ids the plan's levels and agents have in `store`.
    static func plan(_ store: PeggleStore, run: Int64, levels: Int = 2, agents: Int = 2, sigmas: [Double] = [0, 0.02],
                     seeds: [UInt64] = Array(1...6), batchSize: Int = 5) throws -> [[Item]] {
        var all: [Item] = []
        for l in 0..<levels {
            let levelID = try store.level(level(l))
            for a in 0..<agents {
                let agentID = try store.agent(agent(a))
                for sigma in sigmas {
                    for seed in seeds {
                        all.append(episode(run: run, level: levelID, agent: agentID, seed: seed, sigma: sigma,
                                           shotCount: 1 + Int(seed % 4)))
                    }
                }
            }
        }
        return stride(from: 0, to: all.count, by: batchSize).map { Array(all[$0..<min($0 + batchSize, all.count)]) }
    }

    /// Every shot in the store with the identity of its episode instead of ids, in a stable order.
    static func allShots(_ store: PeggleStore) throws -> [String] {
        try store.writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT l.content_hash || ' ' || a.label || ' ' || e.seed || ' ' || e.sigma || ' ' || s.idx || ' '
                       || s.chosen_angle || ' ' || s.angle || ' ' || s.points || ' ' || s.caught || ' ' || s.seconds
                FROM shot s JOIN episode e ON e.id = s.episode_id JOIN level l ON l.id = e.level_id
                JOIN agent a ON a.id = e.agent_id
                ORDER BY l.content_hash, a.label, e.sigma, e.seed, s.idx
                """)
        }
    }
}

extension PeggleStore {
    /// Inserts fixture items of one run.
    func insert(_ items: [Fixture.Item]) throws -> Int {
        guard let run = items.first?.runID else { return try insert([], runID: 0) }
        precondition(items.allSatisfy { $0.runID == run }, "one run per batch")
        return try insert(items.map { ($0.game, $0.levelID, $0.agentID) }, runID: run)
    }
}
