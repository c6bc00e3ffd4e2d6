/// Leased locks beside the session records (the refresh lock): taken for a
/// lease that ends by itself, renewed and released only by their holder
/// (`LockToken`'s random value). `MemorySessionStore` and
/// `RedisSessionStore` both provide them; the same conformance suite
/// covers them.
public protocol SessionLockStore: Sendable {
    /// Takes the lock `name` for `lease`, or returns nil while someone else
    /// holds it. The lease ends by itself if the holder never releases it.
    func acquireLock(_ name: String, lease: Duration) async throws(SessionStoreError) -> LockToken?

    /// Extends a held lock to `lease` from now. False when the lease already
    /// ran out or the lock is held by someone else.
    func renewLock(_ token: LockToken, lease: Duration) async throws(SessionStoreError) -> Bool

    /// Releases the lock if `token` still holds it; a lock taken over by
    /// someone else after the lease ran out is left alone.
    ///
    /// - Returns: whether this token held the lock and released it.
    @discardableResult
    func releaseLock(_ token: LockToken) async throws(SessionStoreError) -> Bool
}
