import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The sessions a process holds, by handle. Handles count the sessions opened, from 1, and are
/// never reused; a registry made in the child of a fork goes on counting from its parent's count
/// and remembers it, so a handle the child inherited is told from a closed one without a lock.
final class Registry: Sendable {
    let sessions = Mutex<[Int32: NativeSession]>([:])
    let opened: Atomic<Int32>
    /// Handles up to this one were the parent process's (0 in the process that loaded the library).
    let inherited: Int32

    init(after inherited: Int32 = 0) {
        self.inherited = inherited
        opened = Atomic(inherited)
    }
}

/// What a handle names.
enum Lookup {
    case live(NativeSession)
    /// Closed, or never opened.
    case closed
    /// Opened in the process this one was forked from.
    case wrongProcess
}

/// The process's registry. Replaced only in the child of a fork, before the child runs anything
/// else, so reading it needs no lock. The child gets a new one because another thread of the
/// parent may have held the old one's lock at the fork, which no thread of the child would ever
/// release; the parent's sessions are left to the parent (the child never touches its copy of
/// their memory again, and never frees it).
enum Native {
    nonisolated(unsafe) static var registry = Registry()
    /// Why the latest call on no live handle was refused (a closed handle, a fork's, or
    /// `peggle_open`'s): `peggle_error` gives it for such handles.
    static let orphanError = Mutex<String>("")

    /// Installs the fork handler once, before the first session exists.
    static let forkHandler: Void = {
        _ = pthread_atfork(nil, nil, { Native.childAfterFork() })
    }()

    static func childAfterFork() {
        registry = Registry(after: registry.opened.load(ordering: .sequentiallyConsistent))
    }

    /// Registers a new session; its handle, or nil when every handle has been used.
    static func register(_ session: NativeSession) -> Int32? {
        _ = forkHandler
        let r = registry
        // Wrapping, so the last handles refuse instead of trapping.
        let handle = r.opened.wrappingAdd(1, ordering: .relaxed).newValue
        guard handle > r.inherited, handle < Int32.max else {
            orphanError.withLock { $0 = "every handle has been used (\(Int32.max - 1) sessions opened)" }
            return nil
        }
        r.sessions.withLock { $0[handle] = session }
        return handle
    }

    static func lookup(_ handle: Int32) -> Lookup {
        let r = registry
        guard handle > 0 else { return .closed }
        guard handle > r.inherited else { return .wrongProcess }
        return r.sessions.withLock { $0[handle] }.map(Lookup.live) ?? .closed
    }

    /// Removes a session from the registry; nil if it was not there.
    static func remove(_ handle: Int32) -> NativeSession? {
        let r = registry
        guard handle > r.inherited else { return nil }
        return r.sessions.withLock { $0.removeValue(forKey: handle) }
    }

    /// The refusal of a call on `handle` that names no live session, remembered for `peggle_error`.
    static func refusal(_ handle: Int32, _ lookup: Lookup) -> NativeError {
        let e: NativeError
        if case .wrongProcess = lookup {
            e = NativeError(NativeError.wrongProcess, "this environment (handle \(handle)) was made in the process this one "
                + "was forked from; make environments in the process that uses them")
        } else {
            e = NativeError(NativeError.closed, "no open environment has handle \(handle) (it was closed, or never opened)")
        }
        orphanError.withLock { $0 = e.message }
        return e
    }
}
