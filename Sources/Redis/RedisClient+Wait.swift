extension RedisClient {
    /// Runs a Lua script, then `WAIT replicas timeout` on the same
    /// connection in the same write, so the reply comes once the write
    /// reached `replicas` replicas or `timeout` passed. Returns the script's
    /// reply and how many replicas acknowledged. `timeout` must stay under
    /// the connection's command timeout (`WAIT` holds the connection).
    public func eval(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], thenWaitFor replicas: Int,
                     timeout: Duration) async throws(RedisError) -> (reply: RedisValue, acknowledged: Int) {
        let evalsha = [Command.evalsha, Array(script.sha1.utf8), Array(String(keys.count).utf8)] + keys + arguments
        let wait = [Command.wait, Array(String(replicas).utf8), Self.milliseconds(timeout)]
        let connection = try connection()
        var replies = try await connection.send(batch: [evalsha, wait])
        if case .error(let text) = replies[0], text.hasPrefix("NOSCRIPT") {
            _ = try await connection.send([Command.script, Command.load, Array(script.source.utf8)])
            replies = try await connection.send(batch: [evalsha, wait])
        }
        if case .error(let text) = replies[0] { throw .server("EVALSHA: \(text)") }
        guard let acknowledged = replies[1].integer else { throw .protocolError }
        return (replies[0], acknowledged)
    }
}
