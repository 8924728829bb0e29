import CPeggleEnv
import PeggleEnv
import PeggleGame
import PeggleHost
import PeggleServe
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The C functions of peggle_env.h (Sources/CPeggleEnv/include), the library's whole interface.
// Each finds its session by handle, takes the session's lock, and turns every refusal into a
// status and a message; nothing here may trap, abort or print, since the host is someone else's
// process. Strings handed out (`peggle_engine`, `peggle_status_name`) live as long as the process.

/// Static C strings, made once and never freed.
private enum CStrings {
    nonisolated(unsafe) static let engine: UnsafeMutablePointer<CChar>? = strdup("peggle-gym \(PeggleGym.version)")
    /// Indexed by `peggle_status`: "ok", the protocol's codes, then the library's own.
    nonisolated(unsafe) static let statusNames: [UnsafeMutablePointer<CChar>?] =
        (["ok"] + ErrorCode.allCases.map(\.rawValue) + ["closed", "wrong_process", "bad_buffers"]).map { strdup($0) }
}

/// Runs `body` on the live session `handle` names, under its lock; the status it ends with.
private func withSession(_ handle: Int32, _ body: (inout NativeState) throws(NativeError) -> Void) -> Int32 {
    let found = Native.lookup(handle)
    guard case let .live(session) = found else { return Int32(Native.refusal(handle, found).status.rawValue) }
    return session.state.withLock { st -> Int32 in
        do throws(NativeError) {
            guard !st.closed else { throw NativeError.closedByCaller(handle) }
            try body(&st)
            return Int32(PEGGLE_OK.rawValue)
        } catch {
            st.error = error.message
            return Int32(error.status.rawValue)
        }
    }
}

/// Copies `bytes` into `out` (up to `capacity`); their whole count, as the text functions return.
private func give(_ bytes: [UInt8], _ out: UnsafeMutablePointer<CChar>?, _ capacity: Int64) -> Int64 {
    if let out, capacity > 0 {
        bytes.withUnsafeBufferPointer { b in
            let n = min(b.count, Int(capacity))
            if n > 0, let base = b.baseAddress { UnsafeMutableRawPointer(out).copyMemory(from: base, byteCount: n) }
        }
    }
    return Int64(bytes.count)
}

@_cdecl("peggle_abi_version")
public func peggle_abi_version() -> Int32 { PEGGLE_ABI_VERSION }

@_cdecl("peggle_engine")
public func peggle_engine() -> UnsafePointer<CChar>? { UnsafePointer(CStrings.engine) }

@_cdecl("peggle_status_name")
public func peggle_status_name(_ status: Int32) -> UnsafePointer<CChar>? {
    guard status >= 0, Int(status) < CStrings.statusNames.count else { return nil }
    return UnsafePointer(CStrings.statusNames[Int(status)])
}

@_cdecl("peggle_open")
public func peggle_open(_ memoryBudget: Int64) -> Int32 {
    guard memoryBudget >= 0 else {
        Native.orphanError.withLock { $0 = "memory_budget is \(memoryBudget) bytes; give 0 (the default) or more" }
        return 0
    }
    let budget = memoryBudget == 0 ? ServeSession.defaultMemoryBudget : Int(memoryBudget)
    return Native.register(NativeSession(StandardSession.make(memoryBudget: budget))) ?? 0
}

@_cdecl("peggle_close")
public func peggle_close(_ handle: Int32) -> Int32 {
    guard let session = Native.remove(handle) else {
        return Int32(Native.refusal(handle, Native.lookup(handle)).status.rawValue)
    }
    // Waits for a call in progress on another thread, so the caller may free its buffers once
    // this returns; a call that found the session before its removal is refused afterwards.
    session.state.withLock { st in
        st.closed = true
        st.buffers = nil
    }
    return Int32(PEGGLE_OK.rawValue)
}

@_cdecl("peggle_copy")
public func peggle_copy(_ handle: Int32) -> Int32 {
    var copy: ServeSession?
    let status = withSession(handle) { st throws(NativeError) in
        guard st.session.vec != nil else { throw NativeError(EnvError(.notMade, "copy: send make first")) }
        let made = StandardSession.make(memoryBudget: st.session.memoryBudget)
        made.adoptEnvironments(of: st.session)
        copy = made
    }
    guard status == PEGGLE_OK.rawValue, let copy else { return 0 }
    return Native.register(NativeSession(copy)) ?? 0
}

@_cdecl("peggle_request")
public func peggle_request(_ handle: Int32, _ line: UnsafePointer<CChar>?, _ length: Int64,
                           _ lineLength: UnsafeMutablePointer<Int64>?, _ frameLength: UnsafeMutablePointer<Int64>?) -> Int32 {
    var replied: peggle_status = PEGGLE_OK
    let status = withSession(handle) { st throws(NativeError) in
        guard length >= 0, line != nil || length == 0 else {
            throw NativeError(NativeError.badRequest, "the request line is \(length) bytes at \(line == nil ? "NULL" : "an address")")
        }
        let text = line.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(length)), as: UTF8.self) } ?? ""
        let reply = st.session.handleWithFrame(text)
        st.line = Array(reply.line.utf8)
        st.frame = reply.frame
        if let e = st.session.lastError {
            st.error = e.message
            replied = NativeError.status(of: e.code)
        }
        lineLength?.pointee = Int64(st.line.count)
        frameLength?.pointee = Int64(st.frame.count)
    }
    return status == PEGGLE_OK.rawValue ? Int32(replied.rawValue) : status
}

@_cdecl("peggle_reply")
public func peggle_reply(_ handle: Int32, _ line: UnsafeMutablePointer<CChar>?, _ frame: UnsafeMutablePointer<UInt8>?) -> Int32 {
    withSession(handle) { st in
        if let line { _ = give(st.line, line, Int64(st.line.count)) }
        if let frame {
            st.frame.withUnsafeBufferPointer { b in
                if let base = b.baseAddress { frame.update(from: base, count: b.count) }
            }
        }
    }
}

@_cdecl("peggle_bind")
public func peggle_bind(_ handle: Int32, _ buffers: UnsafePointer<peggle_buffers>?) -> Int32 {
    withSession(handle) { st throws(NativeError) in
        guard let buffers else { throw NativeError(NativeError.badBuffers, "the buffers are NULL") }
        try st.bind(buffers.pointee)
    }
}

@_cdecl("peggle_reset")
public func peggle_reset(_ handle: Int32, _ seed: Int64, _ level: Int64, _ masked: Int32) -> Int32 {
    withSession(handle) { st throws(NativeError) in try st.reset(seed: seed, level: level, masked: masked != 0) }
}

@_cdecl("peggle_step")
public func peggle_step(_ handle: Int32) -> Int32 {
    withSession(handle) { st throws(NativeError) in try st.step() }
}

@_cdecl("peggle_level_name")
public func peggle_level_name(_ handle: Int32, _ generatorSeed: Int64, _ out: UnsafeMutablePointer<CChar>?,
                              _ capacity: Int64) -> Int64 {
    var length: Int64 = -1
    _ = withSession(handle) { st throws(NativeError) in
        guard let p = st.session.procedural else {
            throw NativeError(EnvError.badRequest("level names come from the make reply's \"levels\": these are level files"))
        }
        length = give(Array(p.name(generatorSeed: UInt64(bitPattern: generatorSeed)).utf8), out, capacity)
    }
    return length
}

@_cdecl("peggle_trajectories")
public func peggle_trajectories(_ handle: Int32, _ final: Int32, _ out: UnsafeMutablePointer<CChar>?, _ capacity: Int64) -> Int64 {
    var length: Int64 = -1
    _ = withSession(handle) { st throws(NativeError) in
        guard st.session.vec != nil else { throw NativeError(EnvError(.notMade, "send make first")) }
        length = give(st.session.trajectoriesJSON(final: final != 0), out, capacity)
    }
    return length
}

@_cdecl("peggle_error")
public func peggle_error(_ handle: Int32, _ out: UnsafeMutablePointer<CChar>?, _ capacity: Int64) -> Int64 {
    let message: String
    if case let .live(session) = Native.lookup(handle) {
        message = session.state.withLock { $0.error }
    } else {
        message = Native.orphanError.withLock { $0 }
    }
    return give(Array(message.utf8), out, capacity)
}
