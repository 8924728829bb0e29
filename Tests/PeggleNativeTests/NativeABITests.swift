// The library is tested as a C caller sees it: through peggle_env.h's declarations (the module
// CPeggleEnv), not PeggleNative's Swift ones, which this file does not import.
import CPeggleEnv
import Foundation
import PeggleEnv
import PeggleGame
import PeggleLevel
import PeggleServe
import PeggleTestSupport
import Testing

/// A session of the library, driven through its C functions as a C caller drives it, with
/// buffers of its own (allocated, so their addresses stay put).
final class Caller {
    let handle: Int32
    var count = 0, size = 0
    var actions = UnsafeMutableBufferPointer<Double>.allocate(capacity: 0)
    var mask = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0)
    var obsBuffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 0)
    var finalObsBuffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 0)
    var infoBuffer = UnsafeMutableBufferPointer<Int64>.allocate(capacity: 0)
    var finalInfoBuffer = UnsafeMutableBufferPointer<Int64>.allocate(capacity: 0)
    var realBuffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: 0)
    var finalRealBuffer = UnsafeMutableBufferPointer<Double>.allocate(capacity: 0)
    var bindStatus: Int32 = -1

    var obs: [Float] { Array(obsBuffer) }
    var finalObs: [Float] { Array(finalObsBuffer) }
    var info: [Int64] { Array(infoBuffer) }
    var real: [Double] { Array(realBuffer) }

    init(budget: Int64 = 0) {
        handle = peggle_open(budget)
    }

    init(handle: Int32) {
        self.handle = handle
    }

    deinit {
        _ = peggle_close(handle)  // before the buffers go
        for b in [UnsafeMutableRawBufferPointer(actions), UnsafeMutableRawBufferPointer(mask), UnsafeMutableRawBufferPointer(obsBuffer),
                  UnsafeMutableRawBufferPointer(finalObsBuffer), UnsafeMutableRawBufferPointer(infoBuffer),
                  UnsafeMutableRawBufferPointer(finalInfoBuffer), UnsafeMutableRawBufferPointer(realBuffer),
                  UnsafeMutableRawBufferPointer(finalRealBuffer)] { b.deallocate() }
    }

    /// A request line; its status and reply line.
    @discardableResult
    func request(_ line: String) -> (status: Int32, reply: String) {
        var lineLength: Int64 = 0, frameLength: Int64 = 0
        let bytes = Array(line.utf8)
        let status = bytes.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                peggle_request(handle, $0, Int64(b.count), &lineLength, &frameLength)
            }
        }
        var text = [CChar](repeating: 0, count: Int(lineLength) + 1)
        _ = peggle_reply(handle, &text, nil)
        return (status, String(decoding: text.prefix(Int(lineLength)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Makes environments and binds buffers sized for them.
    func make(_ fields: String, count: Int, size: Int) throws {
        let (status, reply) = request(#"{"cmd":"make",\#(fields)}"#)
        #expect(status == 0, "\(reply)")
        bind(count: count, size: size)
        try #require(bindStatus == 0, "\(error)")
    }

    /// New zeroed buffers for `count` environments of `size` floats, bound (`leave`: a buffer
    /// given as NULL).
    func bind(count: Int, size: Int, leave: String? = nil) {
        self.count = count
        self.size = size
        func fresh<T: Numeric>(_ n: Int, _ old: UnsafeMutableBufferPointer<T>) -> UnsafeMutableBufferPointer<T> {
            let b = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, n))
            b.initialize(repeating: 0)
            return b
        }
        let ints = Int(PEGGLE_INFO_INTS.rawValue), reals = Int(PEGGLE_INFO_REALS.rawValue)
        actions = fresh(count, actions)
        mask = fresh(count, mask)
        obsBuffer = fresh(count * size, obsBuffer)
        finalObsBuffer = fresh(count * size, finalObsBuffer)
        infoBuffer = fresh(count * ints, infoBuffer)
        finalInfoBuffer = fresh(count * ints, finalInfoBuffer)
        realBuffer = fresh(count * reals, realBuffer)
        finalRealBuffer = fresh(count * reals, finalRealBuffer)
        var b = peggle_buffers(num_envs: Int64(count), obs_size: Int64(size), actions: actions.baseAddress,
                               reset_mask: mask.baseAddress, obs: obsBuffer.baseAddress, final_obs: finalObsBuffer.baseAddress,
                               info: infoBuffer.baseAddress, info_real: realBuffer.baseAddress,
                               final_info: finalInfoBuffer.baseAddress, final_info_real: finalRealBuffer.baseAddress)
        if leave == "obs" { b.obs = nil }
        bindStatus = peggle_bind(handle, &b)
    }

    var error: String {
        let n = peggle_error(handle, nil, 0)
        var text = [CChar](repeating: 0, count: Int(n) + 1)
        _ = peggle_error(handle, &text, n)
        return String(decoding: text.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func column(_ c: peggle_info_int, _ row: Int, final: Bool = false) -> Int64 {
        (final ? finalInfoBuffer : infoBuffer)[row * Int(PEGGLE_INFO_INTS.rawValue) + Int(c.rawValue)]
    }
}

/// What the tests read of a `step` reply (rows layout).
struct StepReply: Decodable {
    struct Info: Decodable {
        var score: Int64
        var pegs_hit: Int64?
        var angle: Double?
    }
    var rewards: [Double]
    var infos: [Info?]
    var final_infos: [Info?]?
}

let firstSteps = Repository.url("Levels/first-steps.json").path
/// An observation's floats with 40 object slots (the objects encoder: 17 globals, 17 per slot).
let size40 = 697

@Suite("The native library's C functions")
struct NativeABITests {
    @Test("statuses name the protocol's error codes in order, then the library's own")
    func statusNames() {
        let names = (0..<Int32(PEGGLE_STATUS_COUNT.rawValue)).map { String(cString: peggle_status_name($0)!) }
        #expect(names == ["ok"] + ErrorCode.allCases.map(\.rawValue) + ["closed", "wrong_process", "bad_buffers"])
        #expect(peggle_status_name(-1) == nil && peggle_status_name(Int32(PEGGLE_STATUS_COUNT.rawValue)) == nil)
        #expect(peggle_abi_version() == PEGGLE_ABI_VERSION)
        #expect(String(cString: peggle_engine()!) == "peggle-gym \(PeggleGym.version)")
    }

    @Test("the hot path writes what serve's replies say: observations bit for bit, infos, rewards")
    func agreesWithServe() throws {
        let serve = ServeSession(loadLevel: { try LevelCodec.decode(Data(contentsOf: URL(fileURLWithPath: $0))) },
                                 renderSVG: { _, _ in "" })
        let native = Caller()
        let make = #"{"cmd":"make","level":"\#(firstSteps)","num_envs":3,"max_objects":40,"autoreset":"same_step","max_shots":2,"obs_encoding":"f32","info_layout":"rows"}"#
        _ = serve.handle(make)
        try native.make(#""level":"\#(firstSteps)","num_envs":3,"max_objects":40,"autoreset":"same_step","max_shots":2"#,
                        count: 3, size: size40)
        let reset = serve.handleWithFrame(#"{"cmd":"reset","seed":7}"#)
        #expect(peggle_reset(native.handle, 7, -1, 0) == 0)
        #expect(native.obs.withUnsafeBytes { Array($0) } == reset.frame)
        let angles = [[0.1, -0.5, 0.9], [0.3, 0.3, -0.2], [0.0, 0.7, -0.7]]
        for step in angles {
            let reply = serve.handleWithFrame(#"{"cmd":"step","actions":[\#(step.map { "\($0)" }.joined(separator: ","))]}"#)
            _ = native.actions.update(fromContentsOf: step)
            #expect(peggle_step(native.handle) == 0, "\(native.error)")
            // JSONDecoder reads numbers exactly (Foundation's JSONSerialization does not).
            let json = try JSONDecoder().decode(StepReply.self, from: Data(reply.line.utf8))
            let frame = reply.frame
            #expect(native.obs.withUnsafeBytes { Array($0) } == Array(frame.prefix(3 * size40 * 4)))
            for i in 0..<3 {
                let info = try #require(json.infos[i])
                #expect(native.realBuffer[i * 3 + Int(PEGGLE_R_REWARD.rawValue)] == json.rewards[i])
                #expect(native.column(PEGGLE_I_SCORE, i) == info.score)
                #expect(native.column(PEGGLE_I_PEGS_HIT, i) == info.pegs_hit ?? 0)
                #expect(native.column(PEGGLE_I_PRESENT, i) == (info.angle == nil ? 2 : 1))
                #expect(native.realBuffer[i * 3 + Int(PEGGLE_R_ANGLE.rawValue)] == info.angle ?? 0)
            }
            if let finals = json.final_infos {
                #expect(native.finalObs.withUnsafeBytes { Array($0) } == Array(frame.suffix(3 * size40 * 4)))
                for i in 0..<3 {
                    #expect(native.column(PEGGLE_I_HAS_FINAL, i) == (finals[i] == nil ? 0 : 1))
                    #expect(native.column(PEGGLE_I_SCORE, i, final: true) == finals[i]?.score ?? 0)
                }
            }
        }
    }

    @Test("a masked reset writes the reset environments' rows and zeros in the others")
    func maskedReset() throws {
        let c = Caller()
        try c.make(#""level":"\#(firstSteps)","num_envs":3,"max_objects":40"#, count: 3, size: size40)
        #expect(peggle_reset(c.handle, 1, -1, 0) == 0)
        c.mask[1] = 1
        #expect(peggle_reset(c.handle, -1, -1, 1) == 0, "\(c.error)")
        #expect((0..<3).map { c.column(PEGGLE_I_PRESENT, $0) } == [0, 2, 0])
        #expect((0..<Int(PEGGLE_INFO_INTS.rawValue)).allSatisfy { c.info[$0] == 0 })
        #expect(c.column(PEGGLE_I_GAME_SEED, 1) > 0 && c.column(PEGGLE_I_LEVEL_SEED, 1) == -1)
        c.mask[1] = 0
        #expect(peggle_reset(c.handle, -1, -1, 1) == PEGGLE_BAD_REQUEST.rawValue)
        #expect(c.error == "reset_mask resets no environment")
    }

    @Test("every refusal is a status and a message, and changes nothing")
    func refusals() throws {
        let c = Caller()
        #expect(peggle_step(c.handle) == PEGGLE_NOT_MADE.rawValue && c.error == "send make first")
        let (status, reply) = c.request(#"{"cmd":"make","level":"/nowhere.json"}"#)
        #expect(status == PEGGLE_LEVEL_ERROR.rawValue)
        #expect(reply == #"{"ok":false,"error":{"code":"level_error","message":"/nowhere.json: no such file"}}"#)
        #expect(c.error == "/nowhere.json: no such file")
        #expect(c.request("not json").status == PEGGLE_BAD_JSON.rawValue)
        #expect(c.request(#"{"cmd":"make","level":"\#(firstSteps)","max_objects":40}"#).status == 0)
        #expect(peggle_step(c.handle) == PEGGLE_BAD_BUFFERS.rawValue && c.error == "bind buffers (peggle_bind) after make")
        c.bind(count: 2, size: size40)
        #expect(c.bindStatus == PEGGLE_BAD_BUFFERS.rawValue && c.error == "the buffers hold 2 environments; 1 were made")
        c.bind(count: 1, size: 12)
        #expect(c.error == "the buffers hold observations of 12 floats; the environments' have 697")
        c.bind(count: 1, size: size40, leave: "obs")
        #expect(c.bindStatus == PEGGLE_BAD_BUFFERS.rawValue && c.error == "buffers missing: obs")
        #expect(peggle_bind(c.handle, nil) == PEGGLE_BAD_BUFFERS.rawValue)
        c.bind(count: 1, size: size40)
        #expect(peggle_step(c.handle) == PEGGLE_NOT_RESET.rawValue && c.error == "call reset before step")
        #expect(peggle_reset(c.handle, 3, -1, 0) == 0)
        let before = c.obs
        c.actions[0] = 1.5
        #expect(peggle_step(c.handle) == PEGGLE_BAD_ACTION.rawValue)
        #expect(c.error == "action 1.5 of environment 0 is not in the action space Box(-1.0, 1.0, (1,), float32)")
        c.actions[0] = .nan
        #expect(peggle_step(c.handle) == PEGGLE_BAD_ACTION.rawValue)
        #expect(c.obs == before && c.column(PEGGLE_I_SHOTS, 0) == 0)
        #expect(peggle_reset(c.handle, -2, -1, 0) == PEGGLE_BAD_REQUEST.rawValue)
        #expect(peggle_reset(c.handle, -1, 5, 0) == PEGGLE_BAD_REQUEST.rawValue && c.error == "level 5 is outside 0..<1")
        // A new make unbinds: the old buffers no longer fit what it made.
        #expect(c.request(#"{"cmd":"make","level":"\#(firstSteps)","max_objects":40,"num_envs":2}"#).status == 0)
        #expect(peggle_reset(c.handle, 1, -1, 0) == PEGGLE_BAD_BUFFERS.rawValue)
    }

    @Test("a closed or unknown handle is refused, a second close is harmless, handles are not reused")
    func handles() throws {
        let a = peggle_open(0), b = peggle_open(0)
        #expect(a > 0 && b == a + 1)
        #expect(peggle_close(a) == 0)
        #expect(peggle_close(a) == PEGGLE_CLOSED.rawValue)
        #expect(peggle_step(a) == PEGGLE_CLOSED.rawValue)
        let n = peggle_error(a, nil, 0)
        var text = [CChar](repeating: 0, count: Int(n) + 1)
        _ = peggle_error(a, &text, n)
        #expect(String(cString: text) == "no open environment has handle \(a) (it was closed, or never opened)")
        #expect(peggle_step(0) == PEGGLE_CLOSED.rawValue && peggle_step(-4) == PEGGLE_CLOSED.rawValue)
        #expect(peggle_open(-1) == 0)
        let m = peggle_error(0, nil, 0)
        text = [CChar](repeating: 0, count: Int(m) + 1)
        _ = peggle_error(0, &text, m)
        #expect(String(cString: text) == "memory_budget is -1 bytes; give 0 (the default) or more")
        let c = peggle_open(0)
        #expect(c > b)
        _ = peggle_close(b)
        _ = peggle_close(c)
    }

    @Test("a copy steps on its own from the same state, without the snapshots")
    func copies() throws {
        let c = Caller()
        #expect(peggle_copy(c.handle) == 0 && c.error == "copy: send make first")
        try c.make(#""level":"\#(firstSteps)","num_envs":2,"max_objects":40,"aim_noise":0.05"#, count: 2, size: size40)
        #expect(peggle_reset(c.handle, 11, -1, 0) == 0)
        _ = c.actions.update(fromContentsOf: [0.2, -0.4])
        #expect(peggle_step(c.handle) == 0)
        #expect(c.request(#"{"cmd":"snapshot"}"#).reply == #"{"ok":true,"snapshot":1}"#)
        let copy = Caller(handle: peggle_copy(c.handle))
        copy.bind(count: 2, size: size40)
        #expect(copy.bindStatus == 0)
        for a in [[0.5, 0.1], [-0.3, 0.8]] {
            _ = c.actions.update(fromContentsOf: a)
            _ = copy.actions.update(fromContentsOf: a)
            #expect(peggle_step(c.handle) == 0 && peggle_step(copy.handle) == 0)
            #expect(c.obs == copy.obs && c.info == copy.info && c.real == copy.real)
        }
        #expect(copy.request(#"{"cmd":"restore","snapshot":1}"#).status == PEGGLE_NO_SNAPSHOT.rawValue)
    }

    @Test("the memory budget holds as serve's does")
    func memoryBudget() throws {
        let c = Caller(budget: 1 << 20)
        let (status, reply) = c.request(#"{"cmd":"make","level":"\#(firstSteps)","num_envs":64}"#)
        #expect(status == PEGGLE_MEMORY_BUDGET.rawValue)
        #expect(reply.contains(#""message":"make: 64 environments of 2193 observation floats would hold about"#), "\(reply)")
        #expect(reply.contains("this server's budget is 1 MiB"))
    }

    @Test("procedural levels: names by generator seed, and trajectories as serve writes them")
    func namesAndTrajectories() throws {
        let c = Caller()
        try c.make(#""num_levels":5,"start_level":40,"distribution_mode":"easy","num_envs":2,"trajectory":true"#, count: 2, size: 2193)
        #expect(peggle_reset(c.handle, 3, -1, 0) == 0)
        let seed = c.column(PEGGLE_I_GENERATOR_SEED, 0)
        #expect(seed >= 40 && seed < 45 && c.column(PEGGLE_I_LEVEL_SEED, 0) == seed)
        let n = peggle_level_name(c.handle, seed, nil, 0)
        var text = [CChar](repeating: 0, count: Int(n) + 1)
        #expect(peggle_level_name(c.handle, seed, &text, n) == n)
        let name = String(cString: text)
        #expect(name.hasSuffix("\(seed) (easy)"), "\(name)")
        _ = c.actions.update(fromContentsOf: [0.1, 0.2])
        #expect(peggle_step(c.handle) == 0)
        #expect(c.column(PEGGLE_I_TRAJECTORY, 0) == 1)
        let m = peggle_trajectories(c.handle, 0, nil, 0)
        var json = [CChar](repeating: 0, count: Int(m) + 1)
        _ = peggle_trajectories(c.handle, 0, &json, m)
        let paths = try JSONSerialization.jsonObject(with: Data(String(cString: json).utf8)) as! [[[[Double]]]]
        #expect(paths.count == 2 && paths[0][0][0] == [400, 20])
        let files = Caller()
        try files.make(#""level":"\#(firstSteps)","max_objects":40"#, count: 1, size: size40)
        #expect(peggle_level_name(files.handle, 1, nil, 0) == -1)
        #expect(files.error == #"level names come from the make reply's "levels": these are level files"#)
    }
}
