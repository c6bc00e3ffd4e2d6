import Sessions
import Synchronization
import Testing

/// The caching decorator in front of a byte store: reads for the request
/// path come from the cache while it holds the record, and every write of
/// a record, and every idle renewal, drops the cached copy.
@Suite("Caching session store")
struct CachingStoreTests {
    static let record = StoredRecord(bytes: [1, 2, 3], absoluteExpiry: 1_780_000_000_000 + 3_600_000)

    @Test func readsComeFromTheCacheWhileItHoldsTheRecord() async throws {
        let harness = MemoryHarness()
        let cache = RecordingCache(base: harness.store)
        let store = CachingSessionStore(harness.store, cache: cache)
        try await harness.store.save("k", record: Self.record, ttl: .seconds(60))
        #expect(store.recentInMemory("k") == nil, "nothing cached yet")
        #expect(try await store.loadRecent("k") == Self.record, "read through")
        #expect(store.recentInMemory("k") == Self.record, "kept")
        try await harness.store.delete(["k"])
        #expect(try await store.loadRecent("k") == Self.record, "served from the cache, as the backend announced nothing")
    }

    @Test(arguments: ["save", "take", "delete", "compareAndSet", "touch"])
    func aWriteOrARenewalDropsTheCachedCopy(_ operation: String) async throws {
        let harness = MemoryHarness()
        let cache = RecordingCache(base: harness.store)
        let store = CachingSessionStore(harness.store, cache: cache)
        try await store.save("k", record: Self.record, ttl: .seconds(60))
        _ = try await store.loadRecent("k")
        #expect(store.recentInMemory("k") != nil)
        switch operation {
        case "save": try await store.save("k", record: Self.record, ttl: .seconds(60))
        case "take": _ = try await store.take("k")
        case "delete": try await store.delete(["k"])
        case "compareAndSet": _ = try await store.compareAndSet("k", expectedVersion: 1, record: Self.record, ttl: .seconds(60))
        default: _ = try await store.load("k", touch: .seconds(60))
        }
        #expect(store.recentInMemory("k") == nil)
        #expect(cache.forgotten.withLock { $0 } >= 1)
        _ = try await store.load("k", touch: nil)
        _ = try await store.indexMembers("i")
        #expect(store.recentInMemory("k") == nil, "a plain read fills nothing")
    }

    @Test func withoutACacheReadsGoToTheBackend() async throws {
        let harness = MemoryHarness()
        let store = CachingSessionStore(harness.store)
        try await store.save("k", record: Self.record, ttl: .seconds(60))
        #expect(store.recentInMemory("k") == nil)
        #expect(try await store.loadRecent("k") == Self.record)
        try await store.delete(["k"])
        #expect(try await store.loadRecent("k") == nil)
    }
}

/// A cache that keeps whatever it read through, until told to forget it.
private final class RecordingCache: SessionRecordCache {
    let base: any SessionStore
    let entries = Mutex<[String: StoredRecord]>([:])
    let forgotten = Mutex(0)

    init(base: any SessionStore) { self.base = base }

    func cached(_ key: String) -> StoredRecord? { entries.withLock { $0[key] } }

    func readThrough(_ key: String) async throws(SessionStoreError) -> StoredRecord? {
        let record = try await base.load(key, touch: nil)
        entries.withLock { $0[key] = record }
        return record
    }

    func forget(_ key: String) {
        entries.withLock { $0[key] = nil }
        forgotten.withLock { $0 += 1 }
    }
}
