import Foundation
import Hummingbird
import Synchronization

/// The lines a streamed reply (a rating, a tune) sends, handed from the work's threads to the
/// response's writer. Not an `AsyncStream`: a reader that goes away mid-stream cancels an
/// `AsyncStream`'s iteration, and under that cancellation the whole Swift suite aborted with a
/// corrupted heap (docs/lab/2026-12-06-library-index.md, "The crash"). Here nothing depends on
/// cancellation: the writer learns the reader is gone when a write fails, and then stops the work.
final class StudioStream: Sendable {
    private struct State {
        var lines: [ByteBuffer] = []
        var finished = false
        var readerGone = false
        var waiting: CheckedContinuation<ByteBuffer?, Never>?
    }
    private let state = Mutex(State())
    /// Told when the reader goes away.
    let stop = StudioStop()

    /// Queues a line for the reader (dropped once the reader is gone).
    func send(_ line: ByteBuffer) {
        let waiting = state.withLock { s -> CheckedContinuation<ByteBuffer?, Never>? in
            if s.finished || s.readerGone { return nil }
            if let w = s.waiting {
                s.waiting = nil
                return w
            }
            s.lines.append(line)
            return nil
        }
        waiting?.resume(returning: line)
    }

    /// No more lines: the reply ends after those queued.
    func finish() {
        let waiting = state.withLock { s -> CheckedContinuation<ByteBuffer?, Never>? in
            s.finished = true
            defer { s.waiting = nil }
            return s.waiting
        }
        waiting?.resume(returning: nil)
    }

    /// The next line, or nil once the work has finished and every line is sent.
    func next() async -> ByteBuffer? {
        await withCheckedContinuation { (c: CheckedContinuation<ByteBuffer?, Never>) in
            let now: ByteBuffer?? = state.withLock { s in
                if !s.lines.isEmpty { return .some(s.lines.removeFirst()) }
                if s.finished { return .some(nil) }
                s.waiting = c
                return nil
            }
            if let now { c.resume(returning: now) }
        }
    }

    /// The response's body: every line as it comes; a failed write (the connection closed) stops
    /// the work at its next game and drops what it still sends.
    var body: ResponseBody {
        ResponseBody { writer in
            while let line = await self.next() {
                do {
                    try await writer.write(line)
                } catch {
                    self.state.withLock { $0.readerGone = true; $0.lines = [] }
                    self.stop.stop()
                    throw error
                }
            }
            try await writer.finish(nil)
        }
    }
}
