import CPeggleEnv
import PeggleEnv
import PeggleGame
import PeggleServe
import Synchronization

/// A refused call: its `peggle_status` and message.
struct NativeError: Error {
    var status: peggle_status
    var message: String

    init(_ status: peggle_status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// A protocol refusal, with the status of its error code (1 to 11, in `ErrorCode`'s order).
    init(_ e: EnvError) {
        self.init(NativeError.status(of: e.code), e.message)
    }

    static func status(of code: ErrorCode) -> peggle_status {
        let k = ErrorCode.allCases.firstIndex(of: code) ?? ErrorCode.allCases.count - 1
        return peggle_status(rawValue: UInt32(k + 1))
    }

    static let closed = peggle_status(rawValue: PEGGLE_CLOSED.rawValue)
    static let wrongProcess = peggle_status(rawValue: PEGGLE_WRONG_PROCESS.rawValue)
    static let badBuffers = peggle_status(rawValue: PEGGLE_BAD_BUFFERS.rawValue)
    static let badRequest = status(of: .badRequest)
}

extension NativeError {
    static func closedByCaller(_ handle: Int32) -> NativeError {
        NativeError(NativeError.closed, "environment \(handle) was closed")
    }
}

/// One session of the native library: `peggle serve`'s session and the caller's buffers,
/// behind one lock, so calls on one handle from several threads take turns.
final class NativeSession: Sendable {
    let state: Mutex<NativeState>

    init(_ session: sending ServeSession) {
        state = Mutex(NativeState(session: session))
    }
}

/// What a session's lock guards.
struct NativeState {
    let session: ServeSession
    /// The caller's buffers (nil until bound, and after a `make` or close).
    var buffers: peggle_buffers?
    /// The `makes` count the buffers were bound after.
    var boundAfter = -1
    /// Set by `peggle_close`: a call that found the session before it was removed is refused.
    var closed = false
    /// The latest refusal's message.
    var error = ""
    /// The latest reply line and frame of `peggle_request`.
    var line: [UInt8] = []
    var frame: [UInt8] = []
    /// Scratch kept from call to call, so the hot path allocates nothing: actions and a reset mask.
    var actions: [Double] = []
    var mask: [Bool] = []
    /// Rewards as the serve protocol's readers get them (`ServeSession.wireReward`), by the
    /// float's bits: an environment's rewards take few values, and the conversion goes through
    /// the float's decimal text (a few hundred nanoseconds a step of a single environment).
    var rewards: [UInt32: Double] = [:]

    init(session: ServeSession) {
        self.session = session
    }

    /// The bound buffers, refused when missing or bound before the latest `make`.
    func bound() throws(NativeError) -> peggle_buffers {
        guard session.vec != nil else { throw NativeError(EnvError(.notMade, "send make first")) }
        guard let b = buffers, boundAfter == session.makes else {
            throw NativeError(NativeError.badBuffers, "bind buffers (peggle_bind) after make")
        }
        return b
    }

    // MARK: Binding

    mutating func bind(_ b: peggle_buffers) throws(NativeError) {
        guard let v = session.vec else { throw NativeError(EnvError(.notMade, "send make first")) }
        guard b.num_envs == Int64(v.count) else {
            throw NativeError(NativeError.badBuffers, "the buffers hold \(b.num_envs) environments; \(v.count) were made")
        }
        guard b.obs_size == Int64(v.observationSize) else {
            throw NativeError(NativeError.badBuffers,
                              "the buffers hold observations of \(b.obs_size) floats; the environments' have \(v.observationSize)")
        }
        let missing = [("actions", b.actions == nil), ("reset_mask", b.reset_mask == nil), ("obs", b.obs == nil),
                       ("final_obs", b.final_obs == nil), ("info", b.info == nil), ("info_real", b.info_real == nil),
                       ("final_info", b.final_info == nil), ("final_info_real", b.final_info_real == nil)]
            .filter(\.1).map(\.0)
        guard missing.isEmpty else {
            throw NativeError(NativeError.badBuffers, "buffers missing: \(missing.joined(separator: ", "))")
        }
        buffers = b
        boundAfter = session.makes
        actions = Array(repeating: 0, count: v.count)
        mask = Array(repeating: false, count: v.count)
    }

    // MARK: The hot path

    mutating func reset(seed: Int64, level: Int64, masked: Bool) throws(NativeError) {
        let b = try bound()
        guard seed >= -1 else { throw NativeError(EnvError.badRequest("seed is \(seed); give -1 (none) or 0 ... 2^63 - 1")) }
        guard level >= -1 else { throw NativeError(EnvError.badRequest("level is \(level); give -1 (none) or a level index")) }
        if masked {
            for i in mask.indices { mask[i] = b.reset_mask[i] != 0 }
        }
        let request = ResetRequest(seed: seed < 0 ? nil : UInt64(seed), mask: masked ? mask : nil,
                                   level: level < 0 ? nil : .index(Int(level)))
        let v = try run(into: b) { s throws(EnvError) in try s.performReset(request) }
        v.slots.withUnsafeBufferPointer { slots in
            for i in slots.indices {
                write(slots[i].info, of: slots[i], present: masked && !mask[i] ? 0 : 2, into: b.info, b.info_real, row: i)
            }
        }
    }

    mutating func step() throws(NativeError) {
        let b = try bound()
        for i in actions.indices { actions[i] = b.actions[i] }
        let actions = self.actions
        let v = try run(into: b) { s throws(EnvError) in try s.performStep(actions) }
        var anyFinal = false
        v.slots.withUnsafeBufferPointer { slots in
            for i in slots.indices {
                write(slots[i].info, of: slots[i], present: slots[i].info.shot == nil ? 2 : 1, into: b.info, b.info_real, row: i)
                if slots[i].hasFinal { anyFinal = true }
            }
            guard anyFinal else { return }
            for i in slots.indices {
                write(slots[i].finalInfo, of: slots[i], present: slots[i].hasFinal ? 1 : 0, into: b.final_info, b.final_info_real,
                      row: i)
            }
        }
        if anyFinal { Self.copy(v.finalObservations, to: b.final_obs) }
    }

    /// Does `work` to the session's environments and copies their observations into the
    /// buffers; the environments after it.
    func run(into b: peggle_buffers, _ work: (ServeSession) throws(EnvError) -> Void) throws(NativeError) -> VectorEnv {
        do {
            try work(session)
        } catch {
            throw NativeError(error)
        }
        let v = session.vec!
        Self.copy(v.observations, to: b.obs)
        return v
    }

    /// Row `row` of a pair of info buffers: one of the slot's infos (the latest, or the ended
    /// episode's), its flags and reward; all zeros without an info.
    mutating func write(_ info: EnvInfo, of slot: EnvSlot, present: Int64, into infos: UnsafeMutablePointer<Int64>,
                        _ realRows: UnsafeMutablePointer<Double>, row: Int) {
        let ints = infos + row * Int(PEGGLE_INFO_INTS.rawValue)
        let reals = realRows + row * Int(PEGGLE_INFO_REALS.rawValue)
        Self.write(info, present: present, ints: ints, reals: reals)
        guard present != 0 else { return }
        ints[Int(PEGGLE_I_TERMINATED.rawValue)] = slot.terminated ? 1 : 0
        ints[Int(PEGGLE_I_TRUNCATED.rawValue)] = slot.truncated ? 1 : 0
        ints[Int(PEGGLE_I_HAS_FINAL.rawValue)] = slot.hasFinal ? 1 : 0
        reals[Int(PEGGLE_R_REWARD.rawValue)] = wire(slot.reward)
    }

    /// `ServeSession.wireReward(reward)`, remembered (at most 4,096 values).
    mutating func wire(_ reward: Float) -> Double {
        if reward == 0 { return 0 }
        if let known = rewards[reward.bitPattern] { return known }
        let value = ServeSession.wireReward(reward)
        if rewards.count < 4096 { rewards[reward.bitPattern] = value }
        return value
    }

    /// One info as a row of `peggle_info_int` and `peggle_info_real` columns. The presence rules
    /// are those of `ServeSession.infoKeys`: `game_seed` on a reset's info only, the shot's keys
    /// on a step's, `level_seed` with procedural levels (NativeABITests hold them equal).
    static func write(_ info: EnvInfo, present: Int64, ints: UnsafeMutablePointer<Int64>, reals: UnsafeMutablePointer<Double>) {
        guard present != 0 else {
            ints.update(repeating: 0, count: Int(PEGGLE_INFO_INTS.rawValue))
            reals.update(repeating: 0, count: Int(PEGGLE_INFO_REALS.rawValue))
            return
        }
        func set(_ c: peggle_info_int, _ v: Int64) { ints[Int(c.rawValue)] = v }
        set(PEGGLE_I_PRESENT, present)
        set(PEGGLE_I_LEVEL, Int64(info.level))
        set(PEGGLE_I_LEVEL_SEED, info.levelSeed.map { Int64(bitPattern: $0) } ?? -1)
        set(PEGGLE_I_GENERATOR_SEED, info.generatorSeed.map { Int64(bitPattern: $0) } ?? 0)
        set(PEGGLE_I_SCORE, Int64(info.score))
        set(PEGGLE_I_BALLS_LEFT, Int64(info.ballsLeft))
        set(PEGGLE_I_ORANGE_LEFT, Int64(info.orangeLeft))
        set(PEGGLE_I_SHOTS, Int64(info.shots))
        set(PEGGLE_I_STATUS, statusCode(info.status))
        set(PEGGLE_I_GAME_SEED, present == 2 ? Int64(bitPattern: info.gameSeed) : -1)
        let shot = present == 1 ? info.shot : nil
        set(PEGGLE_I_PEGS_HIT, Int64(shot?.hits.total ?? 0))
        set(PEGGLE_I_HITS_BLUE, Int64(shot?.hits.blue ?? 0))
        set(PEGGLE_I_HITS_ORANGE, Int64(shot?.hits.orange ?? 0))
        set(PEGGLE_I_HITS_GREEN, Int64(shot?.hits.green ?? 0))
        set(PEGGLE_I_HITS_PURPLE, Int64(shot?.hits.purple ?? 0))
        set(PEGGLE_I_HITS_ZOMBIE, Int64(shot?.hits.zombie ?? 0))
        set(PEGGLE_I_HITS_CONFUSEMENT, Int64(shot?.hits.confusement ?? 0))
        set(PEGGLE_I_POINTS, Int64(shot?.points ?? 0))
        set(PEGGLE_I_FREE_BALLS, Int64(shot?.freeBalls ?? 0))
        set(PEGGLE_I_CAUGHT, Int64(shot?.caught ?? 0))
        set(PEGGLE_I_TRAJECTORY, shot?.trajectory == nil ? 0 : 1)
        reals[Int(PEGGLE_R_ANGLE.rawValue)] = shot?.angle ?? 0
        reals[Int(PEGGLE_R_FIRED_ANGLE.rawValue)] = shot?.firedAngle ?? 0
    }

    /// `PEGGLE_I_STATUS`'s code of a game status, in `GameStatus`'s order.
    static func statusCode(_ s: GameStatus) -> Int64 {
        switch s {
        case .playing: 0
        case .won: 1
        case .lost: 2
        }
    }

    static func copy(_ values: [Float], to out: UnsafeMutablePointer<Float>) {
        values.withUnsafeBufferPointer { src in
            guard let base = src.baseAddress else { return }
            out.update(from: base, count: src.count)
        }
    }
}
