import Redis
import Sessions

/// The session cache: Redis's server-assisted client-side caching
/// (`RedisTrackedCache`, broadcast mode on the record prefix) as the
/// `SessionRecordCache` in front of a `RedisSessionStore`
/// (Docs/sessions.md, "Session cache"). It keeps the store's `HMGET`
/// replies and serves them while Redis's invalidations and heartbeats say
/// they are current.
public struct RedisRecordCache: SessionRecordCache {
    /// The tracked cache (its statistics feed the gateway's metrics).
    public let tracked: RedisTrackedCache
    private let store: RedisSessionStore

    /// `tracked` (made with `RedisSessionStore.recordCacheSettings`) in
    /// front of `store`'s records.
    public init(_ tracked: RedisTrackedCache, store: RedisSessionStore) {
        // A cache tracking another prefix would never hear of this store's writes.
        precondition(tracked.settings.keyPrefix == store.recordPrefix,
                     "the record cache must track the store's record prefix (recordCacheSettings(keyPrefix:))")
        self.tracked = tracked
        self.store = store
    }

    /// `SessionRecordCache.cached`: the cached reply, when there is one and
    /// it reads as a record (one that does not is left to `readThrough`,
    /// which reports it).
    public func cached(_ key: String) -> StoredRecord? {
        guard let reply = tracked.cached(key) else { return nil }
        return try? RedisSessionStore.record(from: reply)
    }

    /// `SessionRecordCache.readThrough`: one `HMGET`, whose reply is kept
    /// unless it found nothing or an invalidation of the key crossed it.
    public func readThrough(_ key: String) async throws(SessionStoreError) -> StoredRecord? {
        let redisKey = store.recordPrefix + key.utf8
        let reply = try await store.run { () async throws(RedisError) in
            try await tracked.fill(key) { () async throws(RedisError) in
                let reply = try await store.readRecord(redisKey)
                return (reply, !RedisSessionStore.isMissing(reply))
            }
        }
        return try RedisSessionStore.record(from: reply)
    }

    /// `SessionRecordCache.forget`.
    public func forget(_ key: String) {
        tracked.forget(key)
    }
}
