import Foundation
import Synchronization

/// Runs the engine's work for a request on a thread of its own. Simulation is CPU work: on the
/// server's event loops or Swift's cooperative threads it would hold up other requests.
public enum StudioWork {
    /// Stack of a work thread: the size a process's main thread gets, whatever the platform's default.
    public static let stackSize = 16 << 20

    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws(StudioError) -> T) async throws(StudioError) -> T {
        let result: Result<T, StudioError> = await withCheckedContinuation { continuation in
            start {
                do throws(StudioError) { continuation.resume(returning: .success(try body())) } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Starts `body` on a new thread with `stackSize`.
    public static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = stackSize
        thread.start()
    }
}

/// Tells streamed work that its reader went away (the page stopped it, or was closed): the work
/// stops at its next game instead of running to its end for nobody.
public final class StudioStop: Sendable {
    private let state = Mutex<(stopped: Bool, actions: [@Sendable () -> Void])>((false, []))

    public init() {}

    /// Calls `action` when the stop comes, or at once if it has.
    public func onStop(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if !s.stopped { s.actions.append(action) }
            return s.stopped
        }
        if now { action() }
    }

    /// Stops: every action registered runs, once.
    public func stop() {
        let actions = state.withLock { s -> [@Sendable () -> Void] in
            if s.stopped { return [] }
            s.stopped = true
            defer { s.actions = [] }
            return s.actions
        }
        for action in actions { action() }
    }
}
