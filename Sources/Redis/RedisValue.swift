/// A reply from Redis (RESP2). Bulk strings are bytes, binary-safe.
public enum RedisValue: Sendable, Equatable, Hashable {
    /// A nil bulk string or nil array (a missing key, a failed `SET NX`).
    case null
    /// A bulk string: arbitrary bytes.
    case string([UInt8])
    /// A simple status such as `OK` or `PONG`.
    case status(String)
    /// An integer reply (`INCR`, `DEL`, `PUBLISH`, …).
    case integer(Int)
    /// A multi-bulk reply; elements may be of any kind.
    case array([RedisValue])
    /// An error reply inside a batch or an array. A lone command's error
    /// reply is thrown as ``RedisError/server(_:)`` instead. The text is
    /// cut before the first quote so it does not echo what was sent.
    case error(String)

    /// The bytes of a bulk string or status; nil otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case .string(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// A bulk string or status as UTF-8 text; nil otherwise or when the
    /// bytes are not UTF-8.
    public var text: String? {
        switch self {
        case .string(let bytes): String(validating: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// The value of an integer reply.
    public var integer: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The elements of an array reply.
    public var array: [RedisValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether this is ``null``.
    public var isNull: Bool { self == .null }

    /// Whether this is the status `OK`.
    public var isOK: Bool { self == .status("OK") }
}
