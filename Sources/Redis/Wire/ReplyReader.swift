import CHiredis

/// hiredis's RESP parser, without hiredis's connection: bytes go in as
/// they arrive from the socket, whole replies come out as ``RedisValue``s.
/// Confined to the thread of the connection that owns it.
final class ReplyReader {
    enum Next {
        case reply(RedisValue)
        /// The bytes so far end inside a reply.
        case needMore
        /// The stream is not RESP; the connection cannot go on.
        case broken
    }

    private let reader: UnsafeMutablePointer<redisReader>

    init() {
        guard let reader = redisReaderCreate() else { fatalError("out of memory creating a RESP reader") }
        self.reader = reader
    }

    deinit {
        redisReaderFree(reader)
    }

    /// Appends received bytes; false when the reader refuses them (out of
    /// memory, or after a protocol error).
    func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK
    }

    /// The next whole reply, copied out of hiredis's reply tree (which is
    /// freed here).
    func next() -> Next {
        var reply: UnsafeMutableRawPointer?
        guard redisReaderGetReply(reader, &reply) == REDIS_OK else { return .broken }
        guard let reply else { return .needMore }
        defer { freeReplyObject(reply) }
        return .reply(RedisValue(reply: reply.assumingMemoryBound(to: redisReply.self)))
    }
}
