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
        let replies = try await routed(keys.first.map(ClusterSlot.of)) { connection, asking throws(RedisError) in
            try await ScriptRun(script: script, commands: [evalsha, wait], asking: asking).run(on: connection)
        }
        guard let acknowledged = replies[1].integer else { throw .protocolError }
        return (replies[0], acknowledged)
    }
}

/// A script's `EVALSHA` with the commands that follow it in one batch
/// (`WAIT`), after `ASKING` when a cluster asks for it: the script is
/// loaded on that connection's server when it lacks it, and the batch sent
/// again. The script's error reply is thrown, so a redirect is followed.
struct ScriptRun {
    let script: RedisScript
    let commands: [[[UInt8]]]
    let asking: Bool

    func run(on connection: RedisConnection) async throws(RedisError) -> [RedisValue] {
        let batch = asking ? [Command.asking] + commands : commands
        var replies = Array(try await connection.send(batch: batch).dropFirst(asking ? 1 : 0))
        if case .error(let text) = replies[0], text.hasPrefix("NOSCRIPT") {
            _ = try await connection.send([Command.script, Command.load, Array(script.source.utf8)])
            replies = Array(try await connection.send(batch: batch).dropFirst(asking ? 1 : 0))
        }
        if case .error(let text) = replies[0] { throw .server("EVALSHA: \(text)") }
        return replies
    }
}
