import Sessions
import Testing

/// The conformance suite, continued: leased locks, the expiring index and
/// behaviour while the backend is down.
@Suite("SessionStore conformance: locks, index, outage")
struct StoreLockAndIndexTests {
    static let kinds = StoreKind.allCases

    @Test(arguments: kinds)
    func aLockHasOneHolder(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            let token = try #require(try await store.acquireLock("refresh", lease: .seconds(30)))
            #expect(token.name == "refresh")
            #expect(try await store.acquireLock("refresh", lease: .seconds(30)) == nil)
            let other = try #require(try await store.acquireLock("other", lease: .seconds(30)))
            #expect(other.value != token.value)
        }
    }

    @Test(arguments: kinds)
    func racingAcquirersHaveOneWinner(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await store.acquireLock("l", lease: .seconds(30)) != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: kinds)
    func aLeaseRunsOutAndRenewExtendsIt(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            let first = try #require(try await store.acquireLock("l", lease: harness.ms(300)))
            try await harness.advance(by: harness.ms(200))
            #expect(try await store.renewLock(first, lease: harness.ms(300)))
            try await harness.advance(by: harness.ms(200))  // 400 ms after acquiring: held thanks to the renewal
            #expect(try await store.acquireLock("l", lease: harness.ms(300)) == nil)
            try await harness.advance(by: harness.ms(200))  // 400 ms after renewing: ran out
            #expect(try await !store.renewLock(first, lease: .seconds(30)))
            let second = try #require(try await store.acquireLock("l", lease: .seconds(30)))
            // The first holder can neither renew nor release what is now someone else's.
            #expect(try await !store.renewLock(first, lease: .seconds(30)))
            #expect(try await !store.releaseLock(first))
            #expect(try await store.acquireLock("l", lease: .seconds(30)) == nil)
            #expect(try await store.releaseLock(second))
        }
    }

    @Test(arguments: kinds)
    func onlyTheHolderReleases(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            let token = try #require(try await store.acquireLock("l", lease: .seconds(30)))
            let forged = LockToken(name: "l", value: "AAAAAAAAAAAAAAAAAAAAAA")
            #expect(try await !store.releaseLock(forged))
            #expect(try await !store.renewLock(forged, lease: .seconds(30)))
            #expect(try await store.acquireLock("l", lease: .seconds(30)) == nil)
            #expect(try await store.releaseLock(token))
            #expect(try await !store.releaseLock(token))
            #expect(try await store.acquireLock("l", lease: .seconds(30)) != nil)
        }
    }

    @Test(arguments: kinds)
    func theIndexAddsListsAndRemoves(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            #expect(try await store.indexMembers("u").isEmpty)
            try await store.addToIndex("u", member: "s1", ttl: .seconds(60))
            try await store.addToIndex("u", member: "s2", ttl: .seconds(60))
            try await store.addToIndex("u", member: "s2", ttl: .seconds(60))
            try await store.addToIndex("v", member: "s3", ttl: .seconds(60))
            #expect(Set(try await store.indexMembers("u")) == ["s1", "s2"])
            try await store.removeFromIndex("u", member: "s1")
            try await store.removeFromIndex("u", member: "missing")
            #expect(try await store.indexMembers("u") == ["s2"])
            #expect(try await store.indexMembers("v") == ["s3"])
        }
    }

    @Test(arguments: kinds)
    func indexMembersExpireOneByOne(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            try await store.addToIndex("u", member: "short", ttl: .milliseconds(200))
            try await store.addToIndex("u", member: "long", ttl: .seconds(60))
            try await store.addToIndex("w", member: "alone", ttl: .milliseconds(200))
            try await harness.advance(by: .milliseconds(250))
            #expect(try await store.indexMembers("u") == ["long"])
            #expect(try await store.indexMembers("w").isEmpty)
            // Adding again renews a member.
            try await store.addToIndex("u", member: "long", ttl: .milliseconds(200))
            try await store.addToIndex("u", member: "long", ttl: .seconds(60))
            try await harness.advance(by: .milliseconds(250))
            #expect(try await store.indexMembers("u") == ["long"])
        }
    }

    @Test(arguments: kinds)
    func aStoreThatIsDownSaysSoAndRecovers(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let store = harness.store
            let record = StoredRecord(bytes: [1], absoluteExpiry: harness.unixClock.unixMilliseconds() + 60_000)
            try await store.save("a", record: record, ttl: .seconds(60))
            try await harness.stop()
            let token = LockToken(name: "l", value: "x")
            let operations: [(String, @Sendable () async throws(SessionStoreError) -> Void)] = [
                ("save", { () async throws(SessionStoreError) in try await store.save("a", record: record, ttl: .seconds(1)) }),
                ("load", { () async throws(SessionStoreError) in _ = try await store.load("a", touch: .seconds(1)) }),
                ("take", { () async throws(SessionStoreError) in _ = try await store.take("a") }),
                ("delete", { () async throws(SessionStoreError) in try await store.delete(["a"]) }),
                ("cas", { () async throws(SessionStoreError) in
                    _ = try await store.compareAndSet("a", expectedVersion: 1, record: record, ttl: .seconds(1)) }),
                ("acquire", { () async throws(SessionStoreError) in _ = try await store.acquireLock("l", lease: .seconds(1)) }),
                ("renew", { () async throws(SessionStoreError) in _ = try await store.renewLock(token, lease: .seconds(1)) }),
                ("release", { () async throws(SessionStoreError) in try await store.releaseLock(token) }),
                ("index add", { () async throws(SessionStoreError) in try await store.addToIndex("u", member: "m", ttl: .seconds(1)) }),
                ("index list", { () async throws(SessionStoreError) in _ = try await store.indexMembers("u") }),
                ("index remove", { () async throws(SessionStoreError) in try await store.removeFromIndex("u", member: "m") }),
                ("check", { () async throws(SessionStoreError) in try await store.checkAvailability() }),
            ]
            for (name, operation) in operations {
                await #expect(throws: SessionStoreError.unavailable, "\(name)") { try await operation() }
            }
            try await harness.restart()
            try await store.checkAvailability()
            try await store.save("b", record: record, ttl: .seconds(60))
            #expect(try await store.load("b", touch: .seconds(60)) == record)
        }
    }
}
