import Synchronization

/// A streamed response body: the pieces in order as they arrive. Reading
/// slowly pauses the upstream transfer (bounded memory); dropping every
/// copy of the body (and its iterators) before the end, cancelling the
/// reading task, or calling `cancel` aborts the transfer.
public struct HTTPClientResponseBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = HTTPClientError

    private let reader: Reader

    init(channel: ResponseBodyChannel) {
        reader = Reader(channel: channel)
    }

    /// A body that had all arrived with the head: one piece, then the end.
    init(whole: [UInt8]) {
        reader = Reader(whole: whole)
    }

    /// Whether the body came whole with its head (no channel).
    var arrivedWhole: Bool { reader.channel == nil }

    /// An iterator over the pieces; the body is read once, whichever
    /// iterator reads it.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }

    /// Iterates the pieces; ends with nil, or throws the transfer's error.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        fileprivate let reader: Reader

        /// The next piece, or nil at the end.
        public mutating func next() async throws(HTTPClientError) -> [UInt8]? {
            try await reader.next()
        }

        /// The next piece, or nil at the end.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPClientError) -> [UInt8]? {
            try await reader.next()
        }
    }

    /// Reads the whole rest of the body, refusing more than `limit` bytes.
    public func collect(upTo limit: Int) async throws(HTTPClientError) -> [UInt8] {
        var bytes: [UInt8] = []
        var iterator = makeAsyncIterator()
        while let piece = try await iterator.next() {
            guard bytes.count + piece.count <= limit else {
                cancel()
                throw .responseTooLarge
            }
            if bytes.isEmpty { bytes = piece } else { bytes.append(contentsOf: piece) } // one piece: no copy
        }
        return bytes
    }

    /// The body, taken at once without suspending, when it came whole with
    /// its head, is unread and holds at most `limit` bytes; else nil and
    /// the body is left as it was (read it with `collect` or as a
    /// sequence). A small answer usually comes whole, and this spares its
    /// reader the asynchronous reads.
    public func takeWhole(upTo limit: Int) -> [UInt8]? {
        guard reader.channel == nil else { return nil }
        return reader.whole.withLock { state in
            guard case .unread(let bytes) = state, bytes.count <= limit else { return nil }
            state = .read
            return bytes
        }
    }

    /// Aborts the transfer if it is still running; later reads fail with
    /// `.cancelled`.
    public func cancel() { reader.cancel() }

    /// Owns the reading end: its end of life abandons the channel. A
    /// whole body is handed out once, like a channel's pieces.
    fileprivate final class Reader: Sendable {
        enum Whole { case unread([UInt8]), read, cancelled }

        let channel: ResponseBodyChannel?
        let whole: Mutex<Whole>

        init(channel: ResponseBodyChannel) {
            self.channel = channel
            whole = Mutex(.read)
        }

        init(whole: [UInt8]) {
            channel = nil
            self.whole = Mutex(.unread(whole))
        }

        func next() async throws(HTTPClientError) -> [UInt8]? {
            if let channel { return try await channel.next() }
            // As with a channel: a cancelled reader gives the body up.
            if Task.isCancelled { cancel() }
            let piece = whole.withLock { state -> Result<[UInt8]?, HTTPClientError> in
                switch state {
                case .unread(let bytes):
                    state = .read
                    return .success(bytes.isEmpty ? nil : bytes)
                case .read: return .success(nil)
                case .cancelled: return .failure(.cancelled)
                }
            }
            return try piece.get()
        }

        func cancel() {
            if let channel { return channel.abandon() }
            whole.withLock { $0 = .cancelled }
        }

        deinit { channel?.abandon() }
    }
}
