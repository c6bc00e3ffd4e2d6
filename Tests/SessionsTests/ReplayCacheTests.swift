import Sessions
import Testing

/// The conformance suite of `ReplayCache`, over every store.
@Suite("ReplayCache conformance")
struct ReplayCacheTests {
    static let kinds = StoreKind.allCases

    @Test(arguments: kinds)
    func theFirstUseCountsAndARepeatDoesNotUntilTheTTLPasses(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let cache = try #require(harness.store as? any ReplayCache)
            #expect(try await cache.recordFirstUse("jti-1", ttl: harness.ms(400)))
            #expect(try await !cache.recordFirstUse("jti-1", ttl: harness.ms(400)))
            #expect(try await cache.recordFirstUse("jti-2", ttl: harness.ms(400)))
            try await harness.advance(by: harness.ms(600))
            #expect(try await cache.recordFirstUse("jti-1", ttl: harness.ms(400)))
        }
    }

    @Test(arguments: kinds)
    func aForgottenUseCountsAsFirstAgain(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let cache = try #require(harness.store as? any ReplayCache)
            #expect(try await cache.recordFirstUse("jti", ttl: .seconds(60)))
            try await cache.forgetUse("jti")
            try await cache.forgetUse("never-seen")
            #expect(try await cache.recordFirstUse("jti", ttl: .seconds(60)))
            #expect(try await !cache.recordFirstUse("jti", ttl: .seconds(60)))
        }
    }

    @Test(arguments: kinds)
    func ofManyAtOnceOneIsFirst(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let cache = try #require(harness.store as? any ReplayCache)
            let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await cache.recordFirstUse("jti", ttl: .seconds(60)) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(firsts == 1)
        }
    }

    @Test(arguments: kinds)
    func aStoreThatIsDownSaysSo(_ kind: StoreKind) async throws {
        try await withHarness(kind) { harness in
            let cache = try #require(harness.store as? any ReplayCache)
            try await harness.stop()
            await #expect(throws: SessionStoreError.self) { try await cache.recordFirstUse("jti", ttl: .seconds(60)) }
            try await harness.restart()
            #expect(try await cache.recordFirstUse("jti", ttl: .seconds(60)))
        }
    }
}
