import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The simulator's wall clock: real time plus an offset that
/// `POST /dev/clock` can move forward, so tests can expire codes, tokens
/// and rate-limit windows without sleeping through them. Every lifetime
/// and bucket in the simulator reads this clock.
final class SimClock: Sendable {
    private let offset = Mutex<Double>(0)
    /// Real time at the moment of `freeze()`; nil while the clock runs.
    private let frozenAt = Mutex<Double?>(nil)

    /// Seconds since the Unix epoch, with the offset applied.
    func now() -> Double {
        (frozenAt.withLock { $0 } ?? Self.realNow()) + offset.withLock { $0 }
    }

    /// Stops real time from moving the clock; only `advance` moves it then.
    /// For tests that assert exact lifetimes on a machine that may stall.
    func freeze() {
        frozenAt.withLock { $0 = Self.realNow() }
    }

    private static func realNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Moves the clock forward; returns the total offset.
    @discardableResult
    func advance(by seconds: Double) -> Double {
        offset.withLock { value in
            value += max(0, seconds)
            return value
        }
    }

    var offsetSeconds: Double { offset.withLock { $0 } }

    func reset() {
        offset.withLock { $0 = 0 }
        frozenAt.withLock { $0 = nil }
    }
}
