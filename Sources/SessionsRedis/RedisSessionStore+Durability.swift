import Redis
import Synchronization

extension RedisSessionStore {
    /// How many replicas must hold a record write before it counts:
    /// `WAIT replicas timeout` follows every save and compare-and-set on the
    /// same connection, so a new session or a rotated refresh token is on
    /// `replicas` replicas before the browser hears of it, and a failover
    /// right afterwards keeps it.
    ///
    /// When fewer acknowledge within `timeout`, the write stands (it is on
    /// the master) and `shortfall` is told how many did. `WAIT` holds its
    /// connection, and every command queued behind it, for the whole
    /// timeout: these writes go through `client`, connections of their own
    /// when given, so reads and locks never queue behind a `WAIT`; and after
    /// a shortfall the writes of the next `pause` go without `WAIT` (each
    /// reported to `shortfall` with nil) before one waits again, so a
    /// replica that is gone costs one timeout per pause, not one per write.
    public struct Durability: Sendable {
        public var replicas: Int
        public var timeout: Duration
        public var pause: Duration
        /// The client the waited writes use; nil: the store's.
        public var client: RedisClient?
        public var shortfall: @Sendable (_ acknowledged: Int?) -> Void
        let skipping = SkipWindow()

        public init(replicas: Int, timeout: Duration, pause: Duration = .seconds(1), client: RedisClient? = nil,
                    shortfall: @escaping @Sendable (_ acknowledged: Int?) -> Void = { _ in }) {
            self.replicas = replicas
            self.timeout = timeout
            self.pause = pause
            self.client = client
            self.shortfall = shortfall
        }
    }

    /// Runs a record-writing script, followed by `WAIT` when durability is set.
    func write(_ script: RedisScript, key: [UInt8], arguments: [[UInt8]]) async throws(RedisError) -> RedisValue {
        guard let durability, durability.replicas > 0 else { return try await client.eval(script, keys: [key], arguments: arguments) }
        if durability.skipping.isOpen {
            let reply = try await client.eval(script, keys: [key], arguments: arguments)
            durability.shortfall(nil)
            return reply
        }
        let writer = durability.client ?? client
        let (reply, acknowledged) = try await writer.eval(script, keys: [key], arguments: arguments,
                                                          thenWaitFor: durability.replicas, timeout: durability.timeout)
        if acknowledged < durability.replicas {
            durability.skipping.open(for: durability.pause)
            durability.shortfall(acknowledged)
        }
        return reply
    }
}

/// Until when writes skip `WAIT` after a shortfall.
final class SkipWindow: Sendable {
    private let until = Mutex<ContinuousClock.Instant?>(nil)

    var isOpen: Bool { until.withLock { $0.map { ContinuousClock.now < $0 } ?? false } }

    func open(for duration: Duration) {
        until.withLock { $0 = ContinuousClock.now + duration }
    }
}
