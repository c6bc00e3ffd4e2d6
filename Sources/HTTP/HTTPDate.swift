#if canImport(Glibc)
import Glibc
#endif

/// The `Date` header value (IMF-fixdate), recomputed at most once a second.
/// One instance per event loop, used only on that loop's thread.
final class HTTPDateCache {
    private var second = -1
    private var cached: [UInt8] = []

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The current date as header bytes, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    func current() -> [UInt8] {
        var now = time(nil)
        if now == second { return cached }
        second = now
        var parts = tm()
        gmtime_r(&now, &parts)
        cached = Array(Self.format(parts).utf8)
        return cached
    }

    static func format(_ t: tm) -> String {
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }
}
