import Core
import Sessions
import Testing

/// Idle and absolute expiry with an injected clock (memory store).
@Suite("Session lifetimes")
struct SessionLifetimeTests {
    let harness = MemoryHarness()
    var manager: SessionManager { SessionManager(store: harness.store, clock: harness.clock) }

    @Test func useRenewsTheIdleTimeoutAndDisuseEndsIt() async throws {
        let (_, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        let header = Fixtures.cookieHeader(setCookie)
        for _ in 0..<5 {
            harness.clock.advance(by: .seconds(29 * 60))
            #expect(try await manager.load(cookieHeader: header) != nil)
        }
        harness.clock.advance(by: .seconds(30 * 60 + 1))
        guard case .notFound = try await manager.lookup(cookieHeader: header) else {
            Issue.record("an idle session survived")
            return
        }
    }

    @Test func theAbsoluteTimeoutEndsEvenABusySession() async throws {
        let (session, setCookie) = try await manager.create(Fixtures.data(), replacing: nil)
        #expect(session.absoluteExpiresAt == session.authenticatedAt + 12 * 3_600_000)
        let header = Fixtures.cookieHeader(setCookie)
        var elapsed = Duration.zero
        while elapsed < .seconds(12 * 3600 - 20 * 60) {
            harness.clock.advance(by: .seconds(20 * 60))
            elapsed += .seconds(20 * 60)
            #expect(try await manager.load(cookieHeader: header) != nil)
        }
        harness.clock.advance(by: .seconds(20 * 60))
        #expect(try await manager.load(cookieHeader: header) == nil)
        // The card expired with its record (reading it drops it, as it did the record).
        #expect(try await harness.store.load("card:" + session.lockName, touch: nil) == nil)
        #expect(await harness.memory.recordCount == 0)
    }

    @Test func theRefreshTokenCapsTheAbsoluteLifetime() async throws {
        let now = harness.clock.unixMilliseconds()
        let data = Fixtures.data(refreshExpiresAt: now + 3_600_000)
        let (session, setCookie) = try await manager.create(data, replacing: nil)
        #expect(session.absoluteExpiresAt == now + 3_600_000)
        #expect(setCookie.revealed.contains("; Max-Age=3600;"))
        let header = Fixtures.cookieHeader(setCookie)
        harness.clock.advance(by: .seconds(25 * 60))
        var loaded = try #require(try await manager.load(cookieHeader: header))
        // A rotated refresh token with a shorter life shortens the session; a longer one never extends it.
        var shorter = loaded.data
        shorter.tokens.refreshTokenExpiresAt = now + 3_300_000
        #expect(try await manager.update(&loaded, data: shorter))
        #expect(loaded.absoluteExpiresAt == now + 3_300_000)
        var longer = loaded.data
        longer.tokens.refreshTokenExpiresAt = now + 99_000_000
        #expect(try await manager.update(&loaded, data: longer))
        #expect(loaded.absoluteExpiresAt == now + 3_300_000)
        harness.clock.advance(by: .seconds(25 * 60))
        #expect(try await manager.load(cookieHeader: header) != nil)  // 50 min: the idle TTL is now cut to 5 min
        harness.clock.advance(by: .seconds(5 * 60))
        #expect(try await manager.load(cookieHeader: header) == nil)
        await #expect(throws: SessionError.self) {
            try await manager.create(Fixtures.data(refreshExpiresAt: now), replacing: nil)
        }
    }

    @Test func theIndexForgetsSessionsAtTheirAbsoluteExpiry() async throws {
        _ = try await manager.create(Fixtures.data(subject: "carol"), replacing: nil)
        harness.clock.advance(by: .seconds(12 * 3600 + 1))
        #expect(try await manager.endAll(subject: "carol").isEmpty)
    }

    @Test func anUpdateCannotChangeTheSubject() async throws {
        var (session, _) = try await manager.create(Fixtures.data(subject: "dave"), replacing: nil)
        await #expect(throws: SessionError.self) {
            try await manager.update(&session, data: Fixtures.data(subject: "eve"))
        }
    }
}
