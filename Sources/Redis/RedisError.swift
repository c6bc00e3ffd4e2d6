/// Why a Redis call failed. None of the cases carries a command's arguments,
/// so an error can be logged as is.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not connected (connecting, backing off, or closed). Returned at once,
    /// never queued: the caller answers 503 with `Retry-After`.
    case unavailable
    /// No reply within ``RedisConfiguration/commandTimeout``.
    case timedOut
    /// The connection dropped while the command was pending; it may or may
    /// not have run.
    case connectionLost
    /// An error reply: the command name, then the server's error code and
    /// message cut before the first quote (Redis quotes arguments it echoes),
    /// e.g. `GET: WRONGTYPE Operation against a key holding the wrong kind of value`.
    case server(String)
    /// The command could not be encoded (an empty argument list).
    case protocolError

    /// One line for a log; no arguments, no secrets.
    public var description: String {
        switch self {
        case .unavailable: "redis unavailable"
        case .timedOut: "redis command timed out"
        case .connectionLost: "redis connection lost"
        case .server(let text): "redis error: \(text)"
        case .protocolError: "redis protocol error"
        }
    }

    /// The server's error code (`ERR`, `NOSCRIPT`, `WRONGTYPE`, …) of a
    /// ``server(_:)`` error.
    public var serverErrorCode: Substring? {
        guard case .server(let text) = self else { return nil }
        let message = text.firstRange(of: ": ").map { text[$0.upperBound...] } ?? text[...]
        return message.prefix { $0 != " " }
    }
}

/// Error text as Redis sent it, made safe to keep: cut before the first quote
/// (where Redis echoes a command's arguments or a script's strings) and at
/// 160 bytes.
func sanitizedServerError(_ text: String) -> String {
    var kept = text.prefix { $0 != "'" && $0 != "\"" && $0 != "\r" && $0 != "\n" }
    while kept.last == " " || kept.last == "," || kept.last == ":" { kept.removeLast() }
    if kept.utf8.count > 160 { kept = kept.prefix(160) }
    return String(kept)
}

/// The command name of an encoded argument list, upper-cased, for errors.
func commandName(_ name: [UInt8]) -> String {
    let printable = name.prefix(32).map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
    guard printable.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return "?" }
    return String(decoding: printable, as: UTF8.self)
}
