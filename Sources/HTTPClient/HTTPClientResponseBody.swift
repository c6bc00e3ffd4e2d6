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

    /// An iterator over the pieces; the body is read once, whichever
    /// iterator reads it.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }

    /// Iterates the pieces; ends with nil, or throws the transfer's error.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        fileprivate let reader: Reader

        /// The next piece, or nil at the end.
        public mutating func next() async throws(HTTPClientError) -> [UInt8]? {
            try await reader.channel.next()
        }

        /// The next piece, or nil at the end.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HTTPClientError) -> [UInt8]? {
            try await reader.channel.next()
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

    /// Aborts the transfer if it is still running; later reads fail with
    /// `.cancelled`.
    public func cancel() { reader.channel.abandon() }

    /// Owns the reading end: its end of life abandons the channel.
    fileprivate final class Reader: Sendable {
        let channel: ResponseBodyChannel
        init(channel: ResponseBodyChannel) { self.channel = channel }
        deinit { channel.abandon() }
    }
}
