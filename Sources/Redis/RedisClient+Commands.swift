/// Typed helpers for the commands the session store needs. Keys and values
/// are bytes; nothing here is ever logged.
extension RedisClient {
    /// `GET`: the value, or nil when the key does not exist.
    public func get(_ key: [UInt8]) async throws(RedisError) -> [UInt8]? {
        switch try await send([Command.get, key]) {
        case .string(let bytes): return bytes
        case .null: return nil
        default: throw .protocolError
        }
    }

    /// `SET`, with `PX` when `ttl` is given (rounded up to whole milliseconds).
    public func set(_ key: [UInt8], _ value: [UInt8], ttl: Duration? = nil) async throws(RedisError) {
        var arguments = [Command.set, key, value]
        if let ttl { arguments += [Command.px, Self.milliseconds(ttl)] }
        _ = try await send(arguments)
    }

    /// `SET NX PX`: stores the value only when the key does not exist.
    /// True when it was stored.
    public func setIfAbsent(_ key: [UInt8], _ value: [UInt8], ttl: Duration) async throws(RedisError) -> Bool {
        try await send([Command.set, key, value, Command.nx, Command.px, Self.milliseconds(ttl)]).isOK
    }

    /// `DEL`: how many of the keys existed.
    /// For a cluster, one `DEL` per key: the keys may live in different slots.
    @discardableResult
    public func delete(_ keys: [[UInt8]]) async throws(RedisError) -> Int {
        guard !keys.isEmpty else { return 0 }
        guard router != nil, keys.count > 1 else { return try await send([Command.del] + keys).integer ?? 0 }
        var count = 0
        for key in keys { count += try await send([Command.del, key]).integer ?? 0 }
        return count
    }

    /// `PEXPIRE`: true when the key exists and now expires after `ttl`.
    @discardableResult
    public func expire(_ key: [UInt8], after ttl: Duration) async throws(RedisError) -> Bool {
        try await send([Command.pexpire, key, Self.milliseconds(ttl)]).integer == 1
    }

    /// Runs a Lua script by its SHA-1 (`EVALSHA`); on `NOSCRIPT` (a restarted
    /// or flushed server) loads it with `SCRIPT LOAD` and runs it again.
    /// The script is loaded on the server that runs it (for a cluster, the
    /// node of the first key).
    public func eval(_ script: RedisScript, keys: [[UInt8]] = [], arguments: [[UInt8]] = []) async throws(RedisError) -> RedisValue {
        let evalsha = [Command.evalsha, Array(script.sha1.utf8), Array(String(keys.count).utf8)] + keys + arguments
        return try await routed(keys.first.map(ClusterSlot.of)) { connection, asking throws(RedisError) in
            if asking { return try await ScriptRun(script: script, commands: [evalsha], asking: true).run(on: connection)[0] }
            do throws(RedisError) {
                return try await connection.send(evalsha)
            } catch {
                guard error.serverErrorCode == "NOSCRIPT" else { throw error }
            }
            _ = try await connection.send([Command.script, Command.load, Array(script.source.utf8)])
            return try await connection.send(evalsha)
        }
    }

    /// `PUBLISH`: how many subscribers received the message.
    @discardableResult
    public func publish(_ channel: [UInt8], _ message: [UInt8]) async throws(RedisError) -> Int {
        try await send([Command.publish, channel, message]).integer ?? 0
    }

    /// `SPUBLISH` (Redis 7 sharded pub/sub): to the node serving the
    /// channel's slot; how many subscribers there received the message.
    @discardableResult
    public func spublish(_ channel: [UInt8], _ message: [UInt8]) async throws(RedisError) -> Int {
        try await send([Command.spublish, channel, message]).integer ?? 0
    }

    /// `PING`: succeeds when a connection answers.
    public func ping() async throws(RedisError) {
        _ = try await send([Command.ping])
    }

    /// A duration as whole milliseconds (at least 1), rounded up.
    static func milliseconds(_ duration: Duration) -> [UInt8] {
        let ms = max(1, (duration.nanoseconds + 999_999) / 1_000_000)
        return Array(String(ms).utf8)
    }
}

/// Command names, encoded once.
enum Command {
    static let get = Array("GET".utf8)
    static let set = Array("SET".utf8)
    static let del = Array("DEL".utf8)
    static let px = Array("PX".utf8)
    static let nx = Array("NX".utf8)
    static let pexpire = Array("PEXPIRE".utf8)
    static let evalsha = Array("EVALSHA".utf8)
    static let script = Array("SCRIPT".utf8)
    static let load = Array("LOAD".utf8)
    static let publish = Array("PUBLISH".utf8)
    static let ping = Array("PING".utf8)
    static let wait = Array("WAIT".utf8)
    static let ssubscribe = Array("SSUBSCRIBE".utf8)
    static let sunsubscribe = Array("SUNSUBSCRIBE".utf8)
    static let spublish = Array("SPUBLISH".utf8)
    static let asking = [Array("ASKING".utf8)]
    static let subscribe = Array("SUBSCRIBE".utf8)
    static let unsubscribe = Array("UNSUBSCRIBE".utf8)
}
