#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds on the monotonic clock: for deadlines, never for wall time.
/// The event loops' clock unless a test gives them a `ManualLoopClock`.
public struct MonotonicClock: LoopClock {
    /// The clock; it has no state of its own.
    public init() {}

    /// Inlinable: the request path reads it several times per request, and
    /// a call (through the thunks function merging puts before it) costs
    /// more than `clock_gettime` through the vDSO itself.
    @inlinable
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// `LoopClock.now`: the monotonic clock's nanoseconds.
    @inlinable
    public func now() -> UInt64 { Self.now() }
}

extension Duration {
    /// Whole nanoseconds, saturating at zero for negative durations.
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
