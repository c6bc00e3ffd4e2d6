import Sessions
import Synchronization

/// A clock that moves only when a test says so: a `Clock` for the memory
/// store's TTLs and leases and a `UnixClock` for absolute expiries, both
/// reading the same offset so they never disagree.
final class ManualClock: Clock, UnixClock, Sendable {
    struct Instant: InstantProtocol, Hashable {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let offset = Mutex(Duration.zero)
    private let unixStart: UInt64

    /// A clock whose Unix time starts at `unixStart` (ms).
    init(unixStart: UInt64 = 1_780_000_000_000) { self.unixStart = unixStart }

    var now: Instant { Instant(offset: offset.withLock { $0 }) }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        while now < deadline { try await Task.sleep(for: .milliseconds(1)) }
    }

    func advance(by duration: Duration) { offset.withLock { $0 += duration } }

    func unixMilliseconds() -> UInt64 {
        unixStart + UInt64(offset.withLock { $0 }.wholeMilliseconds)
    }
}
