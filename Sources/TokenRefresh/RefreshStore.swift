import Sessions

/// What the token refresh keeps beside the sessions, behind one small
/// protocol so the refresh never sees the backend: the session's refresh
/// lock (`SessionLockStore`: a lease, renewed while Modgud is asked,
/// released by its holder only), the memo of a failed refresh (a record
/// kept for a moment), and the outcome messages every instance's waiters
/// listen to.
/// `MemoryRefreshStore` serves tests and single-process runs;
/// `RedisRefreshStore` (target `TokenRefreshRedis`) serves production.
/// Both pass the same conformance suite.
///
/// The session record itself (the fencing read, the outcome-unknown mark,
/// the compare-and-set write of the successor tokens) goes through
/// `SessionManager` (`reload`, `update`, `take`): it is sealed, and its
/// fencing version belongs to the session layer.
///
/// Names are logical (`bff:` namespacing is the implementation's job).
/// Every operation is one round trip, atomic on its own. Errors are the
/// session store's: `.unavailable` (nothing happened), `.timedOut` (the
/// outcome is unknown).
public protocol RefreshStore: SessionLockStore {
    /// Keeps `record` (a failed refresh's authenticated outcome) under
    /// `name` for `hold`, replacing any earlier one. The reader checks
    /// `record.absoluteExpiry` itself, so a store may keep it that long or
    /// drop it sooner.
    func rememberFailure(_ name: String, record: StoredRecord, hold: Duration) async throws(SessionStoreError)

    /// The failure record under `name`, or nil when there is none (or its
    /// hold ran out).
    func recentFailure(_ name: String) async throws(SessionStoreError) -> StoredRecord?

    /// Sends an outcome message about the refresh of `lockName` to every
    /// instance's listener (this one's included). Best effort: a lost
    /// message only makes waiters poll.
    func publish(_ message: [UInt8], about lockName: String) async throws(SessionStoreError)

    /// The outcome messages published from now on, by any instance.
    func outcomeMessages() async -> AsyncStream<[UInt8]>

    /// Stops delivering outcome messages and releases the subscription.
    func close() async
}
