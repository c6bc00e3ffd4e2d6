#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds on the monotonic clock: for deadlines, never for wall time.
public enum MonotonicClock {
    @inline(__always)
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at zero for negative durations.
    public var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
