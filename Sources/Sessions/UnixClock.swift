#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall-clock source of the session layer: Unix time in milliseconds,
/// used for `authenticatedAt`, absolute expiries and index scores. Tests
/// inject a manual clock that conforms to this and to `Clock`.
public protocol UnixClock: Sendable {
    /// Now, as milliseconds since 1970-01-01T00:00:00Z.
    func unixMilliseconds() -> UInt64
}

/// The system's real-time clock (`CLOCK_REALTIME`).
public struct SystemUnixClock: UnixClock {
    /// The system clock.
    public init() {}

    /// Now, from `clock_gettime(CLOCK_REALTIME)`.
    public func unixMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(max(0, now.tv_sec)) &* 1000 &+ UInt64(max(0, now.tv_nsec) / 1_000_000)
    }
}

extension Duration {
    /// Whole milliseconds, rounded down, saturating at zero for negative
    /// durations and at `Int64.max`.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return .max }
        return product &+ attoseconds / 1_000_000_000_000_000
    }
}
