import Foundation

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
