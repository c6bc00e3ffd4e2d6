/// Remembers one-time identifiers (a logout token's `jti`) for a while, so
/// that a second use is recognised, at any instance sharing the backend.
/// `MemorySessionStore` and `RedisSessionStore` implement it; both pass
/// the same conformance tests.
public protocol ReplayCache: Sendable {
    /// Records `key` for `ttl` unless it is recorded already: one atomic
    /// step (Redis: `SET key 1 NX PX ttl`).
    ///
    /// - Returns: true for the first use within `ttl`, false for a replay.
    func recordFirstUse(_ key: String, ttl: Duration) async throws(SessionStoreError) -> Bool

    /// Forgets `key`, so that its next use counts as the first: for a use
    /// recorded by a request that then failed before doing its work (the
    /// sender retries, and the retry must not pass for a replay). A key not
    /// recorded is not an error.
    func forgetUse(_ key: String) async throws(SessionStoreError)
}
