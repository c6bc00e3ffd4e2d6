/// The time the refresh runs on: the lock's renewal, the waits for
/// another request's refresh, the pause between retried writes. Made from
/// any `Clock` measured in `Duration`, so a test can hand in a manual
/// clock and advance it instead of sleeping.
public struct RefreshClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let pause: @Sendable (Duration) async throws -> Void

    /// Time read from, and sleeps taken on, `clock`.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        pause = { duration in try await clock.sleep(for: duration) }
    }

    /// The system's monotonic clock.
    public static let continuous = RefreshClock(ContinuousClock())

    /// Time since this value was made: a point on a monotonic line, to
    /// compare with other readings of the same value.
    public var now: Duration { elapsed() }

    /// Sleeps for `duration` on the clock; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await pause(duration)
    }
}

extension Duration {
    /// The duration in seconds, for histograms.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
