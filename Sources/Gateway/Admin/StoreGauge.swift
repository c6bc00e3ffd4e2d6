import Observability
import Redis

/// `bff_redis_ready`: whether the gateway can send commands to Redis, read
/// from the client's connections when `/metrics` is scraped. Every session,
/// sign-in and refresh needs Redis, so 0 means the gateway answers `503`.
final class StoreGauge: Sendable {
    private let redis: RedisClient
    private let ready: Gauge

    init(redis: RedisClient, metrics: MetricsRegistry) {
        self.redis = redis
        ready = metrics.gauge("bff_redis_ready", help: "1 while at least one connection to Redis can take commands, else 0.")
    }

    /// Brings the gauge up to date.
    func update() {
        ready.set([], to: redis.isReady ? 1 : 0)
    }
}
