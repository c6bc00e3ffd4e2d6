import Sessions
import Testing
import TokenRefresh

/// Every `RefreshStore` behaves alike: the same tests against the memory
/// store (on a test clock) and the Redis store (a real `redis-server`).
@Suite("Refresh store conformance")
struct RefreshStoreConformanceTests {
    @Test(arguments: RefreshStoreKind.allCases)
    func aLockIsHeldByOneHolderAtATime(_ kind: RefreshStoreKind) async throws {
        try await withRefreshStore(kind) { harness in
            let store = harness.store
            let token = try #require(try await store.acquireLock("refresh:a", lease: .seconds(30)))
            #expect(try await store.acquireLock("refresh:a", lease: .seconds(30)) == nil, "held")
            #expect(try await harness.another().acquireLock("refresh:a", lease: .seconds(30)) == nil, "held for every instance")
            let other = try #require(try await store.acquireLock("refresh:b", lease: .seconds(30)), "names are apart")
            #expect(try await store.releaseLock(token))
            #expect(try await store.acquireLock("refresh:a", lease: .seconds(30)) != nil, "free once released")
            #expect(try await store.releaseLock(other))
        }
    }

    @Test(arguments: RefreshStoreKind.allCases)
    func manyRacingForALockGiveItToOne(_ kind: RefreshStoreKind) async throws {
        try await withRefreshStore(kind) { harness in
            let store = harness.store
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await store.acquireLock("refresh:race", lease: .seconds(30)) != nil } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
        }
    }

    @Test(arguments: RefreshStoreKind.allCases)
    func aLeaseEndsByItselfUnlessRenewed(_ kind: RefreshStoreKind) async throws {
        try await withRefreshStore(kind) { harness in
            let store = harness.store
            let first = try #require(try await store.acquireLock("refresh:l", lease: harness.ms(300)))
            try await harness.advance(by: harness.ms(200))
            #expect(try await store.renewLock(first, lease: harness.ms(300)), "renewed within its lease")
            try await harness.advance(by: harness.ms(200))
            #expect(try await store.acquireLock("refresh:l", lease: harness.ms(300)) == nil, "the renewal kept it")
            try await harness.advance(by: harness.ms(200))
            #expect(try await !store.renewLock(first, lease: .seconds(30)), "a lease that ran out cannot be renewed")
            let second = try #require(try await store.acquireLock("refresh:l", lease: .seconds(30)), "free once run out")
            #expect(try await !store.releaseLock(first), "the earlier holder cannot release the new one's lock")
            #expect(try await !store.renewLock(first, lease: .seconds(30)))
            #expect(try await store.acquireLock("refresh:l", lease: .seconds(30)) == nil)
            #expect(try await store.releaseLock(second))
        }
    }

    @Test(arguments: RefreshStoreKind.allCases)
    func onlyTheHolderRenewsOrReleases(_ kind: RefreshStoreKind) async throws {
        try await withRefreshStore(kind) { harness in
            let store = harness.store
            let token = try #require(try await store.acquireLock("refresh:h", lease: .seconds(30)))
            let forged = LockToken(name: token.name, value: "forged-value")
            #expect(try await !store.releaseLock(forged))
            #expect(try await !store.renewLock(forged, lease: .seconds(30)))
            #expect(try await store.acquireLock("refresh:h", lease: .seconds(30)) == nil)
            #expect(try await store.releaseLock(token))
            #expect(try await !store.releaseLock(token), "released once")
        }
    }

    @Test(arguments: RefreshStoreKind.allCases)
    func aFailureIsKeptForItsHoldAndReplacedByTheNext(_ kind: RefreshStoreKind) async throws {
        try await withRefreshStore(kind) { harness in
            let store = harness.store
            let far = UInt64.max / 2
            let first = StoredRecord(bytes: [1, 2, 3], absoluteExpiry: far)
            let second = StoredRecord(bytes: [4, 5], absoluteExpiry: far)
            #expect(try await store.recentFailure("refresh-failed:f") == nil)
            try await store.rememberFailure("refresh-failed:f", record: first, hold: harness.ms(300))
            #expect(try await store.recentFailure("refresh-failed:f")?.bytes == first.bytes)
            #expect(try await harness.another().recentFailure("refresh-failed:f")?.bytes == first.bytes, "seen by every instance")
            #expect(try await store.recentFailure("refresh-failed:g") == nil, "names are apart")
            try await store.rememberFailure("refresh-failed:f", record: second, hold: harness.ms(300))
            let kept = try #require(try await store.recentFailure("refresh-failed:f"))
            #expect(kept.bytes == second.bytes && kept.absoluteExpiry == far)
            try await harness.advance(by: harness.ms(400))
            #expect(try await store.recentFailure("refresh-failed:f") == nil, "gone after its hold")
        }
    }

    @Test(arguments: RefreshStoreKind.allCases)
    func anOutcomeMessageReachesEveryInstanceExactly(_ kind: RefreshStoreKind) async throws {
        try await withRefreshStore(kind) { harness in
            let here = harness.store
            let elsewhere = harness.another()
            let mine = await here.outcomeMessages()
            let theirs = await elsewhere.outcomeMessages()
            try await harness.waitForListeners(2)
            let message: [UInt8] = Array("lock tag ".utf8) + [0x00, 0xFF, 0x20, 0x0A]
            try await here.publish(message, about: "a-session")
            var (a, b) = (mine.makeAsyncIterator(), theirs.makeAsyncIterator())
            #expect(await a.next() == message)
            #expect(await b.next() == message)
            await elsewhere.close()
        }
    }
}
