#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the wall-clock time as RFC 3339 UTC with milliseconds,
/// `2026-11-30T16:40:00.123Z`, from `clock_gettime` and `gmtime_r`:
/// no Foundation formatter, no allocation beyond the buffer.
enum Timestamp {
    /// Appends the current time (24 bytes).
    static func appendNow(to buffer: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        append(seconds: now.tv_sec, milliseconds: Int(now.tv_nsec / 1_000_000), to: &buffer)
    }

    /// Appends the given instant; separated out so tests can pin the time.
    static func append(seconds: time_t, milliseconds: Int, to buffer: inout [UInt8]) {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        appendDigits(Int(parts.tm_year) + 1900, width: 4, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mon) + 1, width: 2, to: &buffer)
        buffer.append(UInt8(ascii: "-"))
        appendDigits(Int(parts.tm_mday), width: 2, to: &buffer)
        buffer.append(UInt8(ascii: "T"))
        appendDigits(Int(parts.tm_hour), width: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_min), width: 2, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        appendDigits(Int(parts.tm_sec), width: 2, to: &buffer)
        buffer.append(UInt8(ascii: "."))
        appendDigits(milliseconds, width: 3, to: &buffer)
        buffer.append(UInt8(ascii: "Z"))
    }

    private static func appendDigits(_ value: Int, width: Int, to buffer: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = max(0, value)
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
