import Synchronization

/// Where an event loop reads the time: its timers, and the deadlines kept
/// by the connections on it, are nanoseconds on this clock.
public protocol LoopClock: Sendable {
    /// Nanoseconds since a fixed, arbitrary point; never decreases.
    func now() -> UInt64
}

/// A clock that moves only when told to (tests): after `advance`,
/// `EventLoop.runExpiredTimers` runs what came due on a loop reading it.
public final class ManualLoopClock: LoopClock {
    private let current: Atomic<UInt64>

    /// Starts at `start` nanoseconds (not 0: deadlines use 0 for none).
    public init(start: UInt64 = 1_000_000_000) {
        current = Atomic(start)
    }

    /// `LoopClock.now`: where the test has moved the clock to.
    public func now() -> UInt64 { current.load(ordering: .acquiring) }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        current.add(duration.nanoseconds, ordering: .acquiringAndReleasing)
    }
}
