import Sessions
import Testing

/// One suite, every store: what `SessionStore` promises, checked the same
/// way against the in-memory actor and against Redis on loopback.
@Suite("SessionStore conformance")
struct StoreConformanceTests {
    static let kinds = StoreKind.allCases

    static func record(_ harness: any StoreHarness, bytes: [UInt8] = [1, 2, 3], lifetime: Duration = .seconds(3600))
        -> StoredRecord
    {
        StoredRecord(bytes: bytes, version: 1,
                     absoluteExpiry: harness.unixClock.unixMilliseconds() + UInt64(lifetime.wholeMilliseconds))
    }

    @Test(arguments: kinds)
    func savesAndLoads(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            let record = Self.record(harness, bytes: Array(0...255))
            try await store.save("a", record: record, ttl: .seconds(60))
            #expect(try await store.load("a", touch: nil) == record)
            #expect(try await store.load("a", touch: .seconds(60)) == record)
            #expect(try await store.load("missing", touch: nil) == nil)
            #expect(try await store.load("missing", touch: .seconds(1)) == nil)
            let replacement = Self.record(harness, bytes: [9])
            try await store.save("a", record: replacement, ttl: .seconds(60))
            #expect(try await store.load("a", touch: nil) == replacement)
        }
    }

    @Test(arguments: kinds)
    func recordsExpireAfterTheirTTL(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            try await harness.store.save("a", record: Self.record(harness), ttl: harness.ms(200))
            try await harness.advance(by: harness.ms(100))
            #expect(try await harness.store.load("a", touch: nil) != nil)
            try await harness.advance(by: harness.ms(150))
            #expect(try await harness.store.load("a", touch: nil) == nil)
        }
    }

    @Test(arguments: kinds)
    func theAbsoluteExpiryCutsTheTTL(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            try await store.save("a", record: Self.record(harness, lifetime: harness.ms(200)), ttl: .seconds(60))
            let past = StoredRecord(bytes: [1], absoluteExpiry: harness.unixClock.unixMilliseconds() - 1)
            try await store.save("b", record: Self.record(harness), ttl: .seconds(60))
            try await store.save("b", record: past, ttl: .seconds(60))  // not stored; the old one goes too
            #expect(try await store.load("b", touch: nil) == nil)
            try await harness.advance(by: harness.ms(250))
            #expect(try await store.load("a", touch: nil) == nil)
        }
    }

    @Test(arguments: kinds)
    func touchRenewsTheTTL(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            try await store.save("a", record: Self.record(harness), ttl: harness.ms(300))
            try await harness.advance(by: harness.ms(200))
            #expect(try await store.load("a", touch: harness.ms(300)) != nil)
            try await harness.advance(by: harness.ms(200))  // 400 ms after save: alive thanks to the touch
            #expect(try await store.load("a", touch: nil) != nil)
            try await harness.advance(by: harness.ms(200))  // 400 ms after the touch
            #expect(try await store.load("a", touch: nil) == nil)
        }
    }

    @Test(arguments: kinds)
    func touchNeverReachesPastTheAbsoluteExpiry(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            try await store.save("a", record: Self.record(harness, lifetime: harness.ms(400)), ttl: harness.ms(300))
            try await harness.advance(by: harness.ms(200))
            #expect(try await store.load("a", touch: .seconds(60)) != nil)  // cut to ~200 ms
            try await harness.advance(by: harness.ms(250))
            #expect(try await store.load("a", touch: .seconds(60)) == nil)
        }
    }

    @Test(arguments: kinds)
    func deletesAndTakes(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            let record = Self.record(harness, bytes: [5, 6])
            for key in ["a", "b", "c"] { try await store.save(key, record: record, ttl: .seconds(60)) }
            try await store.delete(["a", "b", "missing"])
            try await store.delete([])
            #expect(try await store.load("a", touch: nil) == nil)
            #expect(try await store.load("b", touch: nil) == nil)
            #expect(try await store.take("c") == record)
            #expect(try await store.take("c") == nil)
            #expect(try await store.load("c", touch: nil) == nil)
        }
    }

    @Test(arguments: kinds)
    func compareAndSetFencesOnTheVersion(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            try await store.save("a", record: Self.record(harness, bytes: [1]), ttl: .seconds(60))
            let second = Self.record(harness, bytes: [2])
            #expect(try await store.compareAndSet("a", expectedVersion: 1, record: second, ttl: .seconds(60)))
            let stored = try #require(try await store.load("a", touch: nil))
            #expect(stored.bytes == [2] && stored.version == 2)
            // A writer still holding version 1 loses and changes nothing.
            #expect(try await !store.compareAndSet("a", expectedVersion: 1, record: Self.record(harness, bytes: [3]),
                                                   ttl: .seconds(60)))
            #expect(try await store.load("a", touch: nil)?.bytes == [2])
            #expect(try await store.compareAndSet("a", expectedVersion: 2, record: Self.record(harness, bytes: [4]),
                                                  ttl: .seconds(60)))
            #expect(try await store.load("a", touch: nil)?.version == 3)
            #expect(try await !store.compareAndSet("missing", expectedVersion: 1, record: second, ttl: .seconds(60)))
            #expect(try await store.load("missing", touch: nil) == nil)
        }
    }

    @Test(arguments: kinds)
    func racingCompareAndSetsHaveOneWinner(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            try await store.save("a", record: Self.record(harness), ttl: .seconds(60))
            let record = Self.record(harness, bytes: [7])
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await store.compareAndSet("a", expectedVersion: 1, record: record, ttl: .seconds(60)) }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(wins == 1)
            #expect(try await store.load("a", touch: nil)?.version == 2)
        }
    }

    @Test(arguments: kinds)
    func compareAndSetKeepsTheTTLRule(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            try await store.save("a", record: Self.record(harness), ttl: .seconds(60))
            #expect(try await store.compareAndSet("a", expectedVersion: 1, record: Self.record(harness),
                                                  ttl: .milliseconds(200)))
            try await harness.advance(by: .milliseconds(250))
            #expect(try await store.load("a", touch: nil) == nil)
        }
    }
}
