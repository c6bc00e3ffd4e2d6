import Synchronization

/// The buffer between a transfer's write callback (on the loop) and the
/// task reading a streamed response body. Past `highWater` buffered bytes
/// the callback is told to pause the transfer; once the reader has drained
/// it below a quarter of that, `onDrained` asks the loop to resume it.
final class ResponseBodyChannel: Sendable {
    typealias Piece = Result<[UInt8]?, HTTPClientError>

    private struct State {
        var pieces = PieceQueue()
        var outcome: Result<Void, HTTPClientError>?
        var waiter: CheckedContinuation<Piece, Never>?
        var producerPaused = false
        var consumerGone = false

        mutating func take() -> Piece? {
            if let piece = pieces.popFirst() { return .success(piece) }
            if consumerGone { return .failure(.cancelled) }
            switch outcome {
            case .success?: return .success(nil)
            case .failure(let error)?: return .failure(error)
            case nil: return nil
            }
        }
    }

    private let state = Mutex(State())
    private let highWater: Int
    private let stats: HTTPClientStats
    private let onDrained: @Sendable () -> Void
    private let onAbandon: @Sendable () -> Void

    init(highWater: Int, stats: HTTPClientStats,
         onDrained: @escaping @Sendable () -> Void, onAbandon: @escaping @Sendable () -> Void) {
        self.highWater = max(1, highWater)
        self.stats = stats
        self.onDrained = onDrained
        self.onAbandon = onAbandon
    }

    // MARK: The transfer's side (loop thread)

    /// Takes received bytes, or refuses them (false) when the reader is
    /// behind: the caller then pauses the transfer, and libcurl offers the
    /// same bytes again after the resume.
    func offer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        enum Fate { case handed(CheckedContinuation<Piece, Never>), queued, dropped, refused }
        let fate = state.withLock { s -> Fate in
            if s.consumerGone { return .dropped }
            if let waiter = s.waiter {
                s.waiter = nil
                return .handed(waiter)
            }
            if s.pieces.bytes >= highWater {
                s.producerPaused = true
                return .refused
            }
            s.pieces.append(Array(bytes))
            // Counted under the lock, as the reader's take is: counted
            // outside, a take not yet subtracted would make the figure
            // (and its peak) more than the buffer ever held.
            stats.buffered(bytes.count)
            return .queued
        }
        switch fate {
        case .handed(let waiter): waiter.resume(returning: .success(Array(bytes)))
        case .queued, .dropped: break
        case .refused: return false
        }
        return true
    }

    /// The transfer ended: the reader gets what is buffered, then the end
    /// or the error.
    func finish(_ outcome: Result<Void, HTTPClientError>) {
        let waiter = state.withLock { s in
            if s.outcome == nil { s.outcome = outcome }
            defer { s.waiter = nil }
            return s.waiter
        }
        switch outcome {
        case .success: waiter?.resume(returning: .success(nil))
        case .failure(let error): waiter?.resume(returning: .failure(error))
        }
    }

    // MARK: The reader's side (any task)

    /// Whether a reader waits for the next piece now (for tests).
    var hasWaitingReader: Bool { state.withLock { $0.waiter != nil } }

    func next() async throws(HTTPClientError) -> [UInt8]? {
        // What has arrived is taken at once: no cancellation handler and no
        // continuation (a small answer is often complete before it is read).
        if !Task.isCancelled, let ready = takeReady(orWait: nil) { return try ready.get() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Piece, Never>) in
                if let ready = takeReady(orWait: continuation) { continuation.resume(returning: ready) }
            }
        } onCancel: {
            abandon()
        }
        return try result.get()
    }

    /// The next piece (or the end, or the failure) if there is one; else
    /// nil, with `waiter` (when given) left to be resumed by the producer.
    /// Resumes a paused producer once the buffer has drained enough.
    private func takeReady(orWait waiter: CheckedContinuation<Piece, Never>?) -> Piece? {
        let (ready, wake) = state.withLock { s -> (Piece?, Bool) in
            guard let piece = s.take() else {
                // One reader waits at a time: a second would overwrite the
                // first's continuation and leave that task hanging.
                if waiter != nil, s.waiter != nil { return (.failure(.cancelled), false) }
                if let waiter { s.waiter = waiter }
                return (nil, false)
            }
            if case .success(let bytes?) = piece { stats.buffered(-bytes.count) }
            let wake = s.producerPaused && s.pieces.bytes < highWater / 4
            if wake { s.producerPaused = false }
            return (piece, wake)
        }
        if wake { onDrained() }
        return ready
    }

    /// The reader gave up: the buffer is dropped, a waiting read fails with
    /// `.cancelled`, and the transfer is cancelled if still running.
    func abandon() {
        let (waiter, running) = state.withLock { s in
            let first = !s.consumerGone
            s.consumerGone = true
            if s.pieces.bytes > 0 { stats.buffered(-s.pieces.bytes) }
            s.pieces.removeAll()
            defer { s.waiter = nil }
            return (s.waiter, first && s.outcome == nil)
        }
        waiter?.resume(returning: .failure(.cancelled))
        if running { onAbandon() }
    }
}
