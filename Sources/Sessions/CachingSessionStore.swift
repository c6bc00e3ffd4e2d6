/// A byte store with an optional record cache in front of its reads for
/// the request path: `loadRecent` and `recentInMemory` answer from the
/// cache while it is current; every write of a record drops the cached
/// copy before it is sent and again once it is answered, and so does an
/// idle renewal (a `load` with `touch`), so the next read goes to the
/// backend. The other operations go to the backend as they are.
///
/// Without a cache, `loadRecent` is `load(key, touch: nil)` and
/// `recentInMemory` answers nil.
public struct CachingSessionStore: SessionStore {
    /// The backend.
    public let base: any SessionStore
    /// The cache in front of its reads, if any.
    public let cache: (any SessionRecordCache)?

    /// `base`, with `cache` in front of its request-path reads.
    public init(_ base: any SessionStore, cache: (any SessionRecordCache)? = nil) {
        self.base = base
        self.cache = cache
    }

    /// Reads the record under `key` like `load(key, touch: nil)`, but from
    /// the cache while it holds the record and is current (at most its
    /// staleness bound behind). For the request path only: whoever writes
    /// depending on what it read (the refresh) uses `load`.
    public func loadRecent(_ key: String) async throws(SessionStoreError) -> StoredRecord? {
        guard let cache else { return try await base.load(key, touch: nil) }
        if let record = cache.cached(key) { return record }
        return try await cache.readThrough(key)
    }

    /// What `loadRecent` would answer from memory, without waiting: nil
    /// when it would have to ask the backend (or there is no cache). The
    /// request path tries this first, so a request served from memory
    /// enters no async call.
    public func recentInMemory(_ key: String) -> StoredRecord? {
        cache?.cached(key)
    }

    /// `SessionStore.save`, dropping the cached copy.
    public func save(_ key: String, record: StoredRecord, ttl: Duration) async throws(SessionStoreError) {
        try await writing([key]) { () async throws(SessionStoreError) in try await base.save(key, record: record, ttl: ttl) }
    }

    /// `SessionStore.load`; a renewal (`touch`) drops the cached copy.
    public func load(_ key: String, touch: Duration?) async throws(SessionStoreError) -> StoredRecord? {
        let record = try await base.load(key, touch: touch)
        if touch != nil { cache?.forget(key) }
        return record
    }

    /// `SessionStore.take`, dropping the cached copy.
    public func take(_ key: String) async throws(SessionStoreError) -> StoredRecord? {
        try await writing([key]) { () async throws(SessionStoreError) in try await base.take(key) }
    }

    /// `SessionStore.delete`, dropping the cached copies.
    public func delete(_ keys: [String]) async throws(SessionStoreError) {
        try await writing(keys) { () async throws(SessionStoreError) in try await base.delete(keys) }
    }

    /// `SessionStore.compareAndSet`, dropping the cached copy.
    public func compareAndSet(
        _ key: String, expectedVersion: UInt64, record: StoredRecord, ttl: Duration
    ) async throws(SessionStoreError) -> Bool {
        try await writing([key]) { () async throws(SessionStoreError) in
            try await base.compareAndSet(key, expectedVersion: expectedVersion, record: record, ttl: ttl)
        }
    }

    /// `SessionStore.addToIndex`.
    public func addToIndex(_ index: String, member: String, ttl: Duration) async throws(SessionStoreError) {
        try await base.addToIndex(index, member: member, ttl: ttl)
    }

    /// `SessionStore.indexMembers`.
    public func indexMembers(_ index: String) async throws(SessionStoreError) -> [String] {
        try await base.indexMembers(index)
    }

    /// `SessionStore.removeFromIndex`.
    public func removeFromIndex(_ index: String, member: String) async throws(SessionStoreError) {
        try await base.removeFromIndex(index, member: member)
    }

    /// `SessionStore.checkAvailability`.
    public func checkAvailability() async throws(SessionStoreError) {
        try await base.checkAvailability()
    }

    /// Runs a write of the records under `keys`: their cached copies are
    /// dropped before it is sent and again once it is answered or failed, so
    /// a copy read meanwhile by another request of this process does not
    /// outlive the write here, even before the backend's announcement.
    private func writing<T>(_ keys: [String], _ body: () async throws(SessionStoreError) -> T)
        async throws(SessionStoreError) -> T
    {
        guard let cache else { return try await body() }
        for key in keys { cache.forget(key) }
        defer { for key in keys { cache.forget(key) } }
        return try await body()
    }
}
