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

    /// Seconds since the Unix epoch, with the offset applied.
    func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9 + offset.withLock { $0 }
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

    func reset() { offset.withLock { $0 = 0 } }
}
