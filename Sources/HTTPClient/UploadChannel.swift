import Synchronization
import System

/// The buffer between the task pulling a streamed request body from its
/// source and the transfer's read callback (on the loop). The pump waits
/// while `highWater` bytes are buffered; the callback pauses the transfer
/// when the buffer is empty, and `onReadable` asks the loop to resume it
/// when the next piece arrives.
final class UploadChannel: Sendable {
    enum ReadResult: Equatable {
        case bytes(Int)
        case pause
        case end
        case failed
    }

    private struct State {
        var pieces = PieceQueue()
        var ended = false
        var failed = false
        var closed = false
        var readerPaused = false
        var spaceWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let highWater: Int
    private let stats: HTTPClientStats
    private let onReadable: @Sendable () -> Void

    init(highWater: Int, stats: HTTPClientStats, onReadable: @escaping @Sendable () -> Void) {
        self.highWater = max(1, highWater)
        self.stats = stats
        self.onReadable = onReadable
    }

    // MARK: The pump's side (a task)

    /// Queues a piece; suspends while the buffer is full. Returns false once
    /// the transfer has ended and wants no more.
    func push(_ bytes: [UInt8]) async -> Bool {
        let (accepted, wake) = state.withLock { s -> (Bool, Bool) in
            guard !s.closed else { return (false, false) }
            s.pieces.append(bytes)
            stats.buffered(bytes.count)   // under the lock, as the read's take is
            defer { s.readerPaused = false }
            return (true, s.readerPaused)
        }
        guard accepted else { return false }
        if wake { onReadable() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { s in
                guard !s.closed, s.pieces.bytes >= highWater else { return false }
                s.spaceWaiter = continuation
                return true
            }
            if !wait { continuation.resume() }
        }
        return state.withLock { !$0.closed }
    }

    /// Pulls `body` from its source into this channel on `loop`, checking
    /// the declared length; the transfer cancels the task when it ends.
    func startPump(from body: HTTPClientRequestBody, on loop: EventLoop) -> Task<Void, Never> {
        Task(executorPreference: loop) { [self] in
            var sent = 0
            do {
                while let piece = try await body.next() {
                    if piece.isEmpty { continue }
                    sent += piece.count
                    if let length = body.length, sent > length { break }
                    guard await push(piece) else { return }
                }
                finish(failed: body.length.map { $0 != sent } ?? false)
            } catch {
                finish(failed: true)
            }
        }
    }

    /// The source ended (`failed` false) or threw (true).
    func finish(failed: Bool) {
        let wake = state.withLock { s -> Bool in
            if failed { s.failed = true } else { s.ended = true }
            defer { s.readerPaused = false }
            return s.readerPaused
        }
        if wake { onReadable() }
    }

    /// The transfer ended: buffered bytes are dropped and the pump stops.
    func close() {
        let waiter = state.withLock { s in
            s.closed = true
            if s.pieces.bytes > 0 { stats.buffered(-s.pieces.bytes) }
            s.pieces.removeAll()
            defer { s.spaceWaiter = nil }
            return s.spaceWaiter
        }
        waiter?.resume()
    }

    // MARK: The read callback's side (loop thread)

    /// Copies buffered bytes into libcurl's buffer.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        let (result, waiter) = state.withLock { s -> (ReadResult, CheckedContinuation<Void, Never>?) in
            let copied = s.pieces.take(into: buffer)
            if copied > 0 { stats.buffered(-copied) }
            var waiter: CheckedContinuation<Void, Never>?
            if s.pieces.bytes < highWater / 2 {
                waiter = s.spaceWaiter
                s.spaceWaiter = nil
            }
            if copied > 0 { return (.bytes(copied), waiter) }
            if s.failed { return (.failed, waiter) }
            if s.ended { return (.end, waiter) }
            s.readerPaused = true
            return (.pause, waiter)
        }
        waiter?.resume()
        return result
    }
}
