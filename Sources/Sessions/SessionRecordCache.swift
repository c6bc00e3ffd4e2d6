/// Memory of records lately read that the backend keeps current (Redis's
/// tracked cache, `RedisRecordCache`), consulted by `CachingSessionStore`
/// for the request path's reads. It is told of this process's writes
/// (`forget`); the backend tells it of everyone else's.
public protocol SessionRecordCache: Sendable {
    /// The record held for `key` while the memory is current, without
    /// waiting; nil when the backend has to be asked.
    func cached(_ key: String) -> StoredRecord?

    /// Reads the record under `key` from the backend (like
    /// `SessionStore.load(key, touch: nil)`) and keeps it, unless a change
    /// of the key, a flush or a lost connection crossed the read.
    func readThrough(_ key: String) async throws(SessionStoreError) -> StoredRecord?

    /// Drops what is held for `key` (before and after this process writes it).
    func forget(_ key: String)
}
