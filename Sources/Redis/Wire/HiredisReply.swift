import CHiredis

extension RedisValue {
    /// Copies a hiredis reply tree into Swift values. The reply is owned by
    /// hiredis and freed after the callback returns, so nothing may keep a
    /// pointer into it.
    init(reply: UnsafePointer<redisReply>) {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STRING:
            if let str = r.str, r.len > 0 {
                self = .string(Array(UnsafeRawBufferPointer(start: str, count: r.len)))
            } else {
                self = .string([])
            }
        case REDIS_REPLY_STATUS:
            self = .status(Self.text(r.str, r.len))
        case REDIS_REPLY_ERROR:
            self = .error(sanitizedServerError(Self.text(r.str, r.len)))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(truncatingIfNeeded: r.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisValue] = []
            elements.reserveCapacity(r.elements)
            if let element = r.element {
                for i in 0..<r.elements {
                    if let child = element[i] { elements.append(RedisValue(reply: child)) } else { elements.append(.null) }
                }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func text(_ str: UnsafeMutablePointer<CChar>?, _ len: Int) -> String {
        guard let str, len > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: str, count: len), as: UTF8.self)
    }
}

extension RedisValue {
    /// What a subscribed connection receives unasked: an array whose first
    /// element names a pub/sub event (a message, or a (un)subscribe
    /// confirmation, plain, pattern or sharded).
    var isPush: Bool {
        guard case .array(let items) = self, items.count >= 3, case .string(let kind) = items[0] else { return false }
        return Self.pushKinds.contains(kind)
    }

    private static let pushKinds: Set<[UInt8]> = Set(["message", "subscribe", "unsubscribe", "pmessage", "psubscribe", "punsubscribe",
                                                      "smessage", "ssubscribe", "sunsubscribe"].map { Array($0.utf8) })
}
