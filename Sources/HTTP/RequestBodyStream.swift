import Synchronization

/// The buffer between a connection that receives body bytes and a handler
/// that reads them. The connection pushes, the handler pulls; when the
/// buffer passes `highWater` the connection stops reading the socket until
/// the handler has drained it below `lowWater` (back-pressure).
final class RequestBodyStream: Sendable {
    static let highWater = 256 * 1024
    static let lowWater = 64 * 1024

    private struct State {
        var pieces: [[UInt8]] = []
        var head = 0
        var buffered = 0
        var finished = false
        var failure: HTTPBodyError?
        var waiter: CheckedContinuation<Result<[UInt8]?, HTTPBodyError>, Never>?
        var producerPaused = false
        var demanded = false

        mutating func take() -> Result<[UInt8]?, HTTPBodyError>? {
            if head < pieces.count {
                let piece = pieces[head]
                pieces[head] = [] // release the bytes now, not when the queue drains
                head += 1
                buffered -= piece.count
                if head == pieces.count {
                    pieces.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= 64 {
                    pieces.removeFirst(head)
                    head = 0
                }
                return .success(piece)
            }
            if let failure { return .failure(failure) }
            if finished { return .success(nil) }
            return nil
        }
    }

    private let state = Mutex(State())
    /// Called (from any thread) when the reader wants more: the connection
    /// resumes reading, sends `100 Continue` and arms the body timeout.
    private let onDemand: @Sendable () -> Void

    init(onDemand: @escaping @Sendable () -> Void) {
        self.onDemand = onDemand
    }

    /// A finished stream holding `bytes`.
    convenience init(complete bytes: [UInt8]) {
        self.init(onDemand: {})
        if !bytes.isEmpty { push(bytes) }
        finish()
    }

    func next() async throws(HTTPBodyError) -> [UInt8]? {
        let (ready, wake) = state.withLock { s -> (Result<[UInt8]?, HTTPBodyError>?, Bool) in
            let result = s.take()
            let wake = result != nil && s.producerPaused && s.buffered < Self.lowWater
            if wake { s.producerPaused = false }
            return (result, wake)
        }
        if wake { onDemand() }
        if let ready { return try ready.get() }
        let result = await withCheckedContinuation { continuation in
            let immediate = state.withLock { s -> Result<[UInt8]?, HTTPBodyError>? in
                if let result = s.take() { return result }
                s.waiter = continuation
                s.demanded = true
                s.producerPaused = false
                return nil
            }
            if let immediate { continuation.resume(returning: immediate) } else { onDemand() }
        }
        return try result.get()
    }

    // MARK: The connection's side

    /// Adds received bytes. Returns false when the reader is behind and the
    /// connection should pause reading until `onDemand`.
    @discardableResult
    func push(_ bytes: [UInt8]) -> Bool {
        let (waiter, keepReading) = state.withLock { s -> (CheckedContinuation<Result<[UInt8]?, HTTPBodyError>, Never>?, Bool) in
            if let waiter = s.waiter {
                s.waiter = nil
                return (waiter, true)
            }
            s.pieces.append(bytes)
            s.buffered += bytes.count
            if s.buffered >= Self.highWater { s.producerPaused = true }
            return (nil, !s.producerPaused)
        }
        waiter?.resume(returning: .success(bytes))
        return keepReading
    }

    func finish() {
        let waiter = state.withLock { s in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: .success(nil))
    }

    func fail(_ error: HTTPBodyError) {
        let waiter = state.withLock { s in
            if !s.finished { s.failure = error }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: .failure(error))
    }

    /// Whether a reader is waiting for bytes (the body timeout runs).
    var readerWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// Whether the reader has ever asked for bytes (for `100 Continue`).
    var demanded: Bool { state.withLock { $0.demanded } }
}
