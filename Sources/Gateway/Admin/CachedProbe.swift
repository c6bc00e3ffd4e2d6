import Synchronization

/// A yes/no check whose answer is reused for `lifetime`, so frequent
/// readiness probes cost the dependency one call every few seconds.
final class CachedProbe: Sendable {
    private let lifetime: Duration
    private let probe: @Sendable () async -> Bool
    private let last = Mutex<(ContinuousClock.Instant, Bool)?>(nil)

    init(lifetime: Duration, probe: @escaping @Sendable () async -> Bool) {
        self.lifetime = lifetime
        self.probe = probe
    }

    func value() async -> Bool {
        let now = ContinuousClock.now
        if let (at, value) = last.withLock({ $0 }), now - at < lifetime { return value }
        let value = await probe()
        last.withLock { $0 = (now, value) }
        return value
    }
}
