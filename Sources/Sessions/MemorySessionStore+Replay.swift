extension MemorySessionStore: ReplayCache {
    /// `ReplayCache.recordFirstUse`: a lock with nobody to release it, on
    /// the same clock.
    public func recordFirstUse(_ key: String, ttl: Duration) throws(SessionStoreError) -> Bool {
        try checkAvailable()
        let name = "replay:" + key
        if let held = locks[name], held.expiresAt > clock.now { return false }
        locks[name] = Lock(value: "1", expiresAt: clock.now.advanced(by: ttl))
        sweepNowAndThen()
        return true
    }

    /// `ReplayCache.forgetUse`.
    public func forgetUse(_ key: String) throws(SessionStoreError) {
        try checkAvailable()
        locks["replay:" + key] = nil
    }
}
