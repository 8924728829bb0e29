import PeggleGame
import PeggleUtilities

/// Gymnasium 1.x autoreset modes.
public enum AutoresetMode: String, Sendable, CaseIterable {
    /// An environment whose episode ended is reset on the next `step` (its action is ignored,
    /// reward 0, terminated and truncated false, the reset's info).
    case nextStep = "next_step"
    /// It is reset within the step that ended it; the final observation and info are handed
    /// back in `finalObservations` and `finalInfos`.
    case sameStep = "same_step"
    /// It is not reset until `reset(mask:)` names it; stepping it before is an error.
    case disabled
}

/// How a vector of environments is made. The defaults are the serve protocol's too.
public struct VectorConfig: Sendable, Equatable {
    /// Environments.
    public var count = 1
    public var autoreset = AutoresetMode.nextStep
    /// Threads to step with (results do not depend on it).
    public var threads = 1
    /// Environment i's generator starts from `seed + i` until a seeded reset.
    public var seed: UInt64 = 0

    public init() {}
}

/// What one environment of a vector returned on the last call.
public struct EnvSlot: Sendable, Equatable, Codable {
    public var reward: Float = 0
    public var terminated = false
    public var truncated = false
    public var info = EnvInfo()
    /// Same-step mode: the episode ended on this step; `finalInfo` and the environment's row of
    /// `finalObservations` hold where it ended, before the reset.
    public var hasFinal = false
    public var finalInfo = EnvInfo()
    /// The episode ended on the last step (Gymnasium's autoreset flag).
    public var ended = false
}

/// N environments stepped together, in parallel (threads take small contiguous chunks of
/// environments in turn), into one observation buffer of N rows. Every environment is independent, so the results are the same,
/// bit for bit, for any thread count. A value: copying it is a snapshot of all N.
public struct VectorEnv: Sendable {
    public internal(set) var envs: [PeggleEnv]
    /// Per environment: reward, flags and info of the last call.
    public internal(set) var slots: [EnvSlot]
    public let autoreset: AutoresetMode
    /// Threads to step with (chunks of environments run at once).
    public var threads: Int
    /// N rows of `observationSize` floats.
    public internal(set) var observations: [Float]
    /// Same-step mode: N rows; row i holds where environment i's episode ended when
    /// `slots[i].hasFinal`, and zeros otherwise.
    public internal(set) var finalObservations: [Float]
    /// Per-step scratch, kept so a step allocates nothing: each environment's checked angle,
    /// and each chunk's first error.
    private var angles: [Double]
    private var errors: [EnvError?]

    /// `count` environments; environment i's generator starts from `seed + i` until a seeded reset.
    public init(config: EnvConfig, count: Int, autoreset: AutoresetMode = VectorConfig().autoreset,
                threads: Int = VectorConfig().threads, seed: UInt64 = VectorConfig().seed) throws(EnvError) {
        var vector = VectorConfig()
        vector.count = count
        vector.autoreset = autoreset
        vector.threads = threads
        vector.seed = seed
        try self.init(config: config, vector: vector)
    }

    /// The vector `vector` describes.
    public init(config: EnvConfig, vector: VectorConfig) throws(EnvError) {
        let count = vector.count, seed = vector.seed
        guard count >= 1 else { throw EnvError(.badRequest, "num_envs must be at least 1") }
        let first = try PeggleEnv(config: config, seed: seed)
        envs = (0..<count).map { i in
            var e = first
            e.rng = SeededGenerator(seed: seed &+ UInt64(i))
            return e
        }
        slots = Array(repeating: EnvSlot(), count: count)
        autoreset = vector.autoreset
        threads = max(1, vector.threads)
        observations = Array(repeating: 0, count: count * first.observationSize)
        finalObservations = Array(repeating: 0, count: count * first.observationSize)
        angles = Array(repeating: 0, count: count)
        errors = Array(repeating: nil, count: count)
    }

    public var count: Int { envs.count }
    public var observationSize: Int { envs[0].observationSize }
    public var observationSpace: Space { envs[0].observationSpace }
    public var actionSpace: Space { envs[0].actionSpace }
    public var rewards: [Float] { slots.map(\.reward) }
    public var terminated: [Bool] { slots.map(\.terminated) }
    public var truncated: [Bool] { slots.map(\.truncated) }
    public var infos: [EnvInfo] { slots.map(\.info) }

    /// Resets every environment, or those in `mask`. With a seed, environment i is reset with
    /// `seed + i` (as Gymnasium does); without one each continues its own generator.
    public mutating func reset(seed: UInt64? = nil, mask: [Bool]? = nil, level: Int? = nil) throws(EnvError) {
        if let mask {
            guard mask.count == count else {
                throw EnvError(.badRequest, "reset_mask has \(mask.count) entries; num_envs is \(count)")
            }
            guard mask.contains(true) else { throw EnvError(.badRequest, "reset_mask resets no environment") }
        }
        if let level { try envs[0].checkLevel(level) }
        try run { (env, slot, i, row, _) throws(EnvError) in
            guard mask?[i] ?? true else { return }
            slot = EnvSlot(info: try env.reset(seed: seed.map { $0 &+ UInt64(i) }, level: level, into: row))
        }
    }

    /// Steps every environment with its action (see `ActionMode`), in parallel.
    public mutating func step(_ actions: [Double]) throws(EnvError) {
        guard actions.count == count else {
            throw EnvError(.badAction, "got \(actions.count) actions for \(count) environments")
        }
        // Check everything first, so a refused step changes nothing.
        for i in 0..<count {
            guard envs[i].game != nil else { throw EnvError(.notReset, "call reset before step") }
            if autoreset == .disabled && slots[i].ended {
                throw EnvError(.episodeOver, "environment \(i) has ended; reset it with a reset_mask first")
            }
            if autoreset == .nextStep && slots[i].ended { continue }  // reset instead; the action is ignored
            guard let a = envs[i].angle(for: actions[i]) else {
                throw EnvError(.badAction, "action \(actions[i]) of environment \(i) is not in the action space \(actionSpace)")
            }
            angles[i] = a
        }
        let size = observationSize, mode = autoreset
        let angles = self.angles  // shared with the closure, not copied (nothing writes it during the run)
        try run { (env, slot, i, row, final) throws(EnvError) in
            let wasEnded = slot.ended
            // Rows of environments that did not just end are zeros (clear what an earlier end left).
            if slot.hasFinal { for k in 0..<size { final[k] = 0 } }
            slot.hasFinal = false
            if mode == .nextStep && wasEnded {
                slot = EnvSlot(info: try env.reset(into: row))
                return
            }
            let out = env.shoot(angle: angles[i], into: row)
            slot.reward = out.reward
            slot.terminated = out.terminated
            slot.truncated = out.truncated
            slot.info = out.info
            slot.ended = out.terminated || out.truncated
            if mode == .sameStep && slot.ended {
                for k in 0..<size { final[k] = row[k] }
                slot.finalInfo = out.info
                slot.hasFinal = true
                slot.info = try env.reset(into: row)
            }
        }
    }

    /// Runs `body` for every environment on `threads` threads. The environments are cut into
    /// small contiguous chunks that the threads take in turn from a shared counter, so a thread
    /// that drew short shots takes more chunks instead of waiting (shots vary tenfold in length).
    /// Each call gets only its own environment, slot, observation row and final-observation row,
    /// so chunks never share memory, and the results cannot depend on who ran what. The first
    /// error (lowest chunk) is thrown after all chunks finish.
    mutating func run(
        _ body: (inout PeggleEnv, inout EnvSlot, Int, UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>)
            throws(EnvError) -> Void
    ) throws(EnvError) {
        let n = count, size = observationSize
        let chunks = Parallel.chunkCount(n, threads: threads)
        // At most one chunk per environment, so the scratch is large enough.
        for c in 0..<chunks { errors[c] = nil }
        withoutActuallyEscaping(body) { body in
            envs.withUnsafeMutableBufferPointer { envPtr in
                slots.withUnsafeMutableBufferPointer { slotPtr in
                    observations.withUnsafeMutableBufferPointer { obsPtr in
                        finalObservations.withUnsafeMutableBufferPointer { finPtr in
                            errors.withUnsafeMutableBufferPointer { errPtr in
                                let shared = Shared(envs: envPtr, slots: slotPtr, obs: obsPtr, fin: finPtr, errors: errPtr,
                                                    body: body)
                                Parallel.forEachChunk(n, threads: threads) { c, range in
                                    for i in range {
                                        let row = UnsafeMutableBufferPointer(rebasing: shared.obs[(i * size)..<((i + 1) * size)])
                                        let fin = UnsafeMutableBufferPointer(rebasing: shared.fin[(i * size)..<((i + 1) * size)])
                                        do throws(EnvError) {
                                            try shared.body(&shared.envs[i], &shared.slots[i], i, row, fin)
                                        } catch {
                                            shared.errors[c] = error
                                            return
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        for c in 0..<chunks { if let e = errors[c] { throw e } }
    }
}

/// The buffers a parallel run shares; each chunk touches only its own environments' parts.
private struct Shared: @unchecked Sendable {
    let envs: UnsafeMutableBufferPointer<PeggleEnv>
    let slots: UnsafeMutableBufferPointer<EnvSlot>
    let obs: UnsafeMutableBufferPointer<Float>
    let fin: UnsafeMutableBufferPointer<Float>
    let errors: UnsafeMutableBufferPointer<EnvError?>
    let body: (inout PeggleEnv, inout EnvSlot, Int, UnsafeMutableBufferPointer<Float>, UnsafeMutableBufferPointer<Float>)
        throws(EnvError) -> Void
}
