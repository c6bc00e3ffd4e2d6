import Redis

extension RedisSessionStore {
    /// How many replicas must hold a record write before it counts:
    /// `WAIT replicas timeout` follows every save and compare-and-set on the
    /// same connection, so a new session or a rotated refresh token is on
    /// `replicas` replicas before the browser hears of it, and a failover
    /// right afterwards keeps it. When fewer acknowledge within `timeout`,
    /// the write stands (it is on the master) and `shortfall` is told how
    /// many did; the caller counts and logs it.
    public struct Durability: Sendable {
        public var replicas: Int
        public var timeout: Duration
        public var shortfall: @Sendable (_ acknowledged: Int) -> Void

        public init(replicas: Int, timeout: Duration, shortfall: @escaping @Sendable (_ acknowledged: Int) -> Void = { _ in }) {
            self.replicas = replicas
            self.timeout = timeout
            self.shortfall = shortfall
        }
    }

    /// Runs a record-writing script, followed by `WAIT` when durability is set.
    func write(_ script: RedisScript, key: [UInt8], arguments: [[UInt8]]) async throws(RedisError) -> RedisValue {
        guard let durability, durability.replicas > 0 else { return try await client.eval(script, keys: [key], arguments: arguments) }
        let (reply, acknowledged) = try await client.eval(script, keys: [key], arguments: arguments,
                                                          thenWaitFor: durability.replicas, timeout: durability.timeout)
        if acknowledged < durability.replicas { durability.shortfall(acknowledged) }
        return reply
    }
}
