#if canImport(Glibc)
import Glibc
#endif

/// Process resource limits the gateway adjusts at start.
public enum ResourceLimits {
    /// Raises the soft limit on open files to the hard limit, so the
    /// connection cap, not the descriptor limit, is what binds. Returns the
    /// limit now in force.
    @discardableResult
    public static func raiseOpenFileLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }

    /// The limit on open files `raiseOpenFileLimit` would raise to (the
    /// hard limit), without raising it; 0 when it cannot be read.
    public static func openFileHardLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return UInt64(limit.rlim_max)
    }
}
