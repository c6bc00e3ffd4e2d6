/// A byte store for sessions: records, fencing versions and a set index,
/// behind one small protocol so the manager never sees the backend (the
/// oauth2-proxy layering); leased locks are a protocol of their own
/// (`SessionLockStore`), and a record cache for the request path's reads
/// is a decorator (`CachingSessionStore`). `MemorySessionStore` serves tests
/// and single-process runs; `RedisSessionStore` (target `SessionsRedis`)
/// serves production. Both pass the same conformance suite.
///
/// Keys are logical names chosen by the caller (`bff:` namespacing is the
/// implementation's job). Every operation is one round trip to the backend
/// and is atomic on its own. Durations are measured on the store's clock;
/// `StoredRecord.absoluteExpiry` is Unix time in milliseconds on the
/// store's `UnixClock`. A TTL that would reach past a record's absolute
/// expiry is cut to it: nothing outlives its session.
///
/// Errors are typed: `.unavailable` when the backend cannot be reached,
/// `.timedOut` when it did not answer in time (the outcome is then unknown).
public protocol SessionStore: Sendable {
    /// Writes `record` under `key` (replacing any record there), to expire
    /// after `ttl` or at `record.absoluteExpiry`, whichever comes first. A
    /// record already past its absolute expiry is not stored (and any old
    /// one under `key` is removed).
    func save(_ key: String, record: StoredRecord, ttl: Duration) async throws(SessionStoreError)

    /// Reads the record under `key`, or nil when there is none (or it expired).
    ///
    /// With `touch`, the record's time to live is renewed in the same round
    /// trip to `min(touch, record.absoluteExpiry − now)`, without rewriting
    /// the record: the idle timeout is renewed on use. A record found past
    /// its absolute expiry is removed and nil is returned.
    func load(_ key: String, touch: Duration?) async throws(SessionStoreError) -> StoredRecord?

    /// Reads and removes the record under `key` in one atomic step, so that
    /// of two concurrent callers at most one gets it (single-use records).
    func take(_ key: String) async throws(SessionStoreError) -> StoredRecord?

    /// Removes the records under `keys`; missing keys are not an error.
    func delete(_ keys: [String]) async throws(SessionStoreError)

    /// Fencing write: replaces the record under `key` only when its current
    /// version is `expectedVersion`. The record is stored with version
    /// `expectedVersion + 1` (`record.version` is replaced by it) and the
    /// time to live rule of `save`.
    ///
    /// - Returns: false when there is no record or another writer got there
    ///   first (the version differs); nothing is written then.
    func compareAndSet(
        _ key: String, expectedVersion: UInt64, record: StoredRecord, ttl: Duration
    ) async throws(SessionStoreError) -> Bool

    /// Adds `member` to the set `index` until `ttl` from now (each member
    /// expires on its own; adding again renews it).
    func addToIndex(_ index: String, member: String, ttl: Duration) async throws(SessionStoreError)

    /// The members of `index` that have not expired, in no particular order.
    func indexMembers(_ index: String) async throws(SessionStoreError) -> [String]

    /// Removes `member` from `index`; a missing member is not an error.
    func removeFromIndex(_ index: String, member: String) async throws(SessionStoreError)

    /// One round trip that proves the store answers (for `/readyz`).
    func checkAvailability() async throws(SessionStoreError)
}
