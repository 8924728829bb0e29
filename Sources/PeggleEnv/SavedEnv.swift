import PeggleGame
import PegglePhysics
import PeggleUtilities

extension PeggleEnv {
    /// Everything an environment changes as it is reset and stepped, as plain values: put into
    /// an environment made from the same configuration (`restore`), it gives back this one's
    /// episodes bit for bit. Left out: the configuration and what it builds (`config`,
    /// `encoder`, `action`, the new game of each level, the caches of generated levels and start
    /// traces), and the encoder's `scratch`, whose kept traces are a cache (an encode without
    /// them writes the same observation). `SavedStateTests` holds this list to the stored
    /// properties.
    public struct Saved: Codable, Sendable, Equatable {
        var levelSeed: UInt64?
        var generatorSeed: UInt64?
        var game: GameState.Saved?
        var levelIndex: Int
        var shots: Int
        var isDone: Bool
        var lastShot: ShotResult?
        var rng: SeededGenerator
        var cursor: Int
        var noise: SeededGenerator
    }

    /// This environment's state, for `restore`.
    public var saved: Saved {
        Saved(levelSeed: levelSeed, generatorSeed: generatorSeed, game: game?.saved, levelIndex: levelIndex, shots: shots,
              isDone: isDone, lastShot: lastShot, rng: rng, cursor: cursor, noise: noise)
    }

    /// Puts `saved` back: the game is rebuilt from the level it was played on (a level file's
    /// new game, or the generator's level of its seed) and its state put into it. Refuses a state
    /// that does not fit this environment's configuration, naming what, and changes nothing then.
    public mutating func restore(_ saved: Saved) throws(EnvError) {
        func refuse(_ why: String) -> EnvError { EnvError(.badRequest, "the saved environment \(why)") }
        guard saved.shots >= 0, saved.cursor >= 0 else {
            throw refuse("counts \(saved.shots) shots and level cursor \(saved.cursor); both must be 0 or more")
        }
        var game: GameState?
        if let state = saved.game {
            var g: GameState
            if let p = config.procedural {
                guard let seed = saved.levelSeed, seed >= UInt64(p.startLevel), seed - UInt64(p.startLevel) < p.seedCount,
                      saved.levelIndex == Int(seed - UInt64(p.startLevel)) else {
                    throw refuse("plays level seed \(saved.levelSeed.map(String.init) ?? "none") as level \(saved.levelIndex); "
                        + "this environment's level seeds start at \(p.startLevel) and there are \(p.seedCount)")
                }
                let made = try newGame(p, seed: seed)
                guard made.1 == saved.generatorSeed else {
                    throw refuse("was generated from seed \(saved.generatorSeed.map(String.init) ?? "none"); "
                        + "level seed \(seed) gives \(made.1) here")
                }
                g = made.0
            } else {
                guard fresh.indices.contains(saved.levelIndex), saved.levelSeed == nil, saved.generatorSeed == nil else {
                    throw refuse("plays level \(saved.levelIndex); this environment has levels 0..<\(fresh.count)")
                }
                g = fresh[saved.levelIndex]
            }
            do {
                try g.restore(state)
            } catch {
                throw refuse("does not fit its level: \(error.description)")
            }
            game = g
        } else {
            guard saved.lastShot == nil, saved.shots == 0 else { throw refuse("has shots but no game") }
        }
        self.game = game
        levelSeed = saved.levelSeed
        generatorSeed = saved.generatorSeed
        levelIndex = saved.levelIndex
        shots = saved.shots
        isDone = saved.isDone
        lastShot = saved.lastShot
        rng = saved.rng
        cursor = saved.cursor
        noise = saved.noise
        scratch.aimScene.forgetTraces()
    }
}

extension VectorEnv {
    /// Every environment's state and what each returned last (the autoreset flags read them):
    /// with a vector made from the same configuration, `restore` gives back this one. The
    /// observations are written again from the games; only the same-step final observations
    /// of the last step are kept, since their games are gone.
    public struct Saved: Codable, Sendable, Equatable {
        var envs: [PeggleEnv.Saved]
        var slots: [EnvSlot]
        /// Row i of `finalObservations` for each environment i whose slot `hasFinal`, in order.
        var finalRows: [[Float]]
    }

    /// The vector's state, for `restore`.
    public var saved: Saved {
        let size = observationSize
        let finals = slots.indices.filter { slots[$0].hasFinal }.map { Array(finalObservations[$0 * size ..< ($0 + 1) * size]) }
        return Saved(envs: envs.map(\.saved), slots: slots, finalRows: finals)
    }

    /// Puts `saved` back into this vector (made from the configuration it was saved from), and
    /// writes each environment's observation again. Refuses a state that does not fit, naming
    /// what, and changes nothing then.
    public mutating func restore(_ saved: Saved) throws(EnvError) {
        guard saved.envs.count == count, saved.slots.count == count else {
            throw EnvError(.badRequest, "the saved state holds \(saved.envs.count) environments; \(count) were made")
        }
        let size = observationSize
        guard saved.finalRows.count == saved.slots.count(where: \.hasFinal), saved.finalRows.allSatisfy({ $0.count == size }) else {
            throw EnvError(.badRequest, "the saved state's final observations do not fit \(count) environments of \(size) floats")
        }
        var restored = envs
        for i in restored.indices {
            do {
                try restored[i].restore(saved.envs[i])
            } catch {
                throw EnvError(.badRequest, "environment \(i): \(error.message)")
            }
        }
        envs = restored
        slots = saved.slots
        observations.withUnsafeMutableBufferPointer { all in
            for i in envs.indices {
                envs[i].observe(into: UnsafeMutableBufferPointer(rebasing: all[i * size ..< (i + 1) * size]))
            }
        }
        for k in finalObservations.indices { finalObservations[k] = 0 }
        for (row, i) in slots.indices.filter({ slots[$0].hasFinal }).enumerated() {
            finalObservations.replaceSubrange(i * size ..< (i + 1) * size, with: saved.finalRows[row])
        }
    }
}
