import Observability
import Redis
import Synchronization

/// Copies the session cache's counts into the metrics registry when
/// `/metrics` is scraped (the cache counts under its own lock).
final class SessionCacheMetrics: Sendable {
    private let cache: RedisTrackedCache
    private let current: Gauge
    private let entries: Gauge
    private let lookups: Counter
    private let invalidations: Counter
    private let flushes: Counter
    /// The counts at the previous scrape.
    private let seen = Mutex(RedisTrackedCache.Statistics())

    init(cache: RedisTrackedCache, metrics: MetricsRegistry) {
        self.cache = cache
        current = metrics.gauge("bff_session_cache_current",
                                help: "1 while the session cache may serve (tracking confirmed, heartbeat recent), else 0.")
        entries = metrics.gauge("bff_session_cache_entries", help: "Session records held by the session cache.")
        lookups = metrics.counter("bff_session_cache_lookups_total",
                                  help: "Session lookups between idle renewals, by result (hit: served from memory).",
                                  labels: ["result"])
        invalidations = metrics.counter("bff_session_cache_invalidations_total",
                                        help: "Session keys Redis announced as changed.")
        flushes = metrics.counter("bff_session_cache_flushes_total",
                                  help: "Times the session cache forgot what it held: its tracking connection lost, or Redis flushed (FLUSHALL).")
    }

    /// Brings the registry up to date with the cache.
    func update() {
        current.set([], to: cache.isCurrent ? 1 : 0)
        entries.set([], to: Double(cache.count))
        seen.withLock { seen in
            // Read under this lock: two scrapes at once (on two loops) must
            // not store an older reading over a newer one, which would
            // count its difference twice.
            let now = cache.statistics
            Self.advance(lookups, ["hit"], seen.hits, now.hits)
            Self.advance(lookups, ["miss"], seen.misses, now.misses)
            Self.advance(invalidations, [], seen.invalidations, now.invalidations)
            Self.advance(flushes, [], seen.flushes, now.flushes)
            seen = now
        }
    }

    private static func advance(_ counter: Counter, _ labels: [String], _ before: Int, _ now: Int) {
        if now > before { counter.increment(labels, by: Double(now - before)) }
    }
}
