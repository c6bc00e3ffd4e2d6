import Core
import Redis
@testable import Sessions
import SessionsRedis
import Testing

/// Two gateway instances on one Redis, each with its own session cache
/// (`RedisRecordCache` in front of `RedisSessionStore`).
@Suite("Session cache across instances")
struct SessionCacheTests {
    struct Instance {
        let cache: RedisTrackedCache
        let manager: SessionManager
    }

    static func instance(_ harness: RedisHarness, maxStaleness: Duration = .seconds(1),
                         clock: any UnixClock = SystemUnixClock()) async -> Instance {
        let cache = RedisTrackedCache(configuration: harness.client.connections[0].configuration, loop: harness.group.loops[0],
                                      publisher: harness.client,
                                      settings: RedisSessionStore.recordCacheSettings(capacity: 16, maxStaleness: maxStaleness))
        cache.start()
        let store = RedisSessionStore(client: harness.client)
        let manager = SessionManager(store: store, cache: RedisRecordCache(cache, store: store),
                                     configuration: SessionConfiguration(directorySecret: Secret("shared")), clock: clock)
        await Self.waitUntil(timeout: .seconds(5)) { cache.isCurrent }
        #expect(cache.isCurrent)
        return Instance(cache: cache, manager: manager)
    }

    /// Polls `condition` every 5 ms until it holds or `timeout` passes.
    static func waitUntil(timeout: Duration, _ condition: () -> Bool) async {
        let clock = ContinuousClock(), deadline = clock.now + timeout
        while !condition(), clock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Looks the session up until the cache answers (the first lookup renews
    /// the idle timeout, whose announcement may void the next fill).
    static func lookUpUntilCached(_ instance: Instance, _ header: String) async throws -> Session? {
        let clock = ContinuousClock(), deadline = clock.now + .seconds(5)
        while clock.now < deadline {
            let hits = instance.cache.statistics.hits
            let session = try await instance.manager.load(cookieHeader: header)
            if instance.cache.statistics.hits > hits { return session }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the session was never served from the cache")
        return nil
    }

    /// Polls `header`'s lookup on `instance` until it is `notFound`; the time it took.
    static func timeUntilGone(_ instance: Instance, _ header: String) async throws -> Duration {
        let clock = ContinuousClock(), start = clock.now
        while clock.now - start < .seconds(5) {
            if case .notFound = try await instance.manager.lookup(cookieHeader: header) { return clock.now - start }
            try await Task.sleep(for: .milliseconds(1))
        }
        return clock.now - start
    }

    @Test("a logout on one instance ends the session on another that serves it from memory, at once")
    func logoutReachesOtherInstances() async throws {
        try await withRedis { harness in
            let a = await Self.instance(harness), b = await Self.instance(harness)
            let (session, setCookie) = try await a.manager.create(Fixtures.data(), replacing: nil)
            let header = Fixtures.cookieHeader(setCookie)
            #expect(try await Self.lookUpUntilCached(b, header)?.data.subject == Fixtures.subject)
            #expect(try await Self.lookUpUntilCached(a, header) != nil)

            _ = try await a.manager.end(session)
            // The instance that logged out forgot it before answering.
            guard case .notFound = try await a.manager.lookup(cookieHeader: header) else {
                Issue.record("the logged-out session was still served where it ended")
                return
            }
            // The other hears of it with Redis's announcement (loopback: well
            // under the one-second staleness bound, which only a stalled
            // tracking connection would reach).
            let took = try await Self.timeUntilGone(b, header)
            print("session cache: a logout on one instance reached the other after \(took)")
            #expect(took < .milliseconds(500), "took \(took)")
            await a.cache.close()
            await b.cache.close()
        }
    }

    @Test("signing out everywhere (the user index) reaches every instance's memory")
    func endAllReachesOtherInstances() async throws {
        try await withRedis { harness in
            let a = await Self.instance(harness), b = await Self.instance(harness)
            let (_, first) = try await a.manager.create(Fixtures.data(), replacing: nil)
            let (_, second) = try await b.manager.create(Fixtures.data(), replacing: nil)
            let headers = [Fixtures.cookieHeader(first), Fixtures.cookieHeader(second)]
            for header in headers { #expect(try await Self.lookUpUntilCached(b, header) != nil) }
            #expect(try await a.manager.endAll(subject: Fixtures.subject).count == 2)
            for header in headers {
                #expect(try await Self.timeUntilGone(b, header) < .milliseconds(500))
            }
            await a.cache.close()
            await b.cache.close()
        }
    }

    @Test("a successor written by one instance (a refresh) replaces what another remembers")
    func successorReachesOtherInstances() async throws {
        try await withRedis { harness in
            let a = await Self.instance(harness), b = await Self.instance(harness)
            var (session, setCookie) = try await a.manager.create(Fixtures.data(), replacing: nil)
            let header = Fixtures.cookieHeader(setCookie)
            #expect(try await Self.lookUpUntilCached(b, header)?.version == 1)

            var rotated = session.data
            rotated.tokens.accessToken = Secret("successor-access-token")
            #expect(try await a.manager.update(&session, data: rotated))
            let clock = ContinuousClock(), start = clock.now
            var seen: Session?
            while clock.now - start < .seconds(2) {
                seen = try await b.manager.load(cookieHeader: header)
                if seen?.version == 2 { break }
            }
            #expect(seen?.version == 2)
            #expect(seen?.data.tokens.accessToken.revealed == "successor-access-token")
            #expect(clock.now - start < .milliseconds(500))
            await a.cache.close()
            await b.cache.close()
        }
    }

    @Test("with Redis gone, a remembered session is not served: the lookup fails as before")
    func redisGone() async throws {
        try await withRedis { harness in
            let b = await Self.instance(harness)
            let (_, setCookie) = try await b.manager.create(Fixtures.data(), replacing: nil)
            let header = Fixtures.cookieHeader(setCookie)
            #expect(try await Self.lookUpUntilCached(b, header) != nil)
            try await harness.stop()
            await Self.waitUntil(timeout: .seconds(2)) { !b.cache.isCurrent }
            #expect(!b.cache.isCurrent)
            await #expect(throws: SessionError.self) { try await b.manager.lookup(cookieHeader: header) }
            await b.cache.close()
        }
    }

    @Test("ending a session takes the record as it was when removed, even when the caller's copy is stale")
    func takeReturnsTheLatestRecord() async throws {
        try await withRedis { harness in
            let a = await Self.instance(harness), b = await Self.instance(harness)
            var (session, setCookie) = try await a.manager.create(Fixtures.data(), replacing: nil)
            let header = Fixtures.cookieHeader(setCookie)
            let stale = try #require(try await Self.lookUpUntilCached(b, header))
            var rotated = session.data
            rotated.tokens.refreshToken = Secret("successor-refresh-token")
            #expect(try await a.manager.update(&session, data: rotated))

            // `stale` still carries the first refresh token; the logout path
            // must learn of the successor to revoke it.
            #expect(stale.version == 1)
            let taken = try await b.manager.take(stale)
            #expect(taken?.version == 2)
            #expect(taken?.data.tokens.refreshToken?.revealed == "successor-refresh-token")
            guard case .notFound = try await b.manager.lookup(cookieHeader: header) else {
                Issue.record("the taken session is still served")
                return
            }
            #expect(try await b.manager.take(stale) == nil, "already gone")
            await a.cache.close()
            await b.cache.close()
        }
    }

    /// `SessionManager.lookupAtOnce`, the proxy's path without an async call.
    static func atOnce(_ instance: Instance, _ cookieValue: String) -> Session? {
        guard case .found(let session)? = instance.manager.lookupAtOnce(cookieValue: cookieValue) else { return nil }
        return session
    }

    @Test("a lookup from memory needs the remembered cookie, no renewal due and the cached record, and ends with a logout elsewhere")
    func lookupAtOnce() async throws {
        try await withRedis { harness in
            let clock = ManualClock(unixStart: SystemUnixClock().unixMilliseconds())
            let a = await Self.instance(harness), b = await Self.instance(harness, clock: clock)
            let (session, setCookie) = try await a.manager.create(Fixtures.data(), replacing: nil)
            let header = Fixtures.cookieHeader(setCookie)
            let value = try #require(header.withContiguousUTF8 { b.manager.cookieValue(inHeader: $0) })
            #expect(b.manager.lookupAtOnce(cookieValue: value) == nil, "never served here: nothing remembered")

            #expect(try await Self.lookUpUntilCached(b, header) != nil)
            let hits = b.cache.statistics.hits
            #expect(Self.atOnce(b, value)?.data.subject == Fixtures.subject)
            #expect(b.cache.statistics.hits == hits + 1, "answered from the cache")

            clock.advance(by: b.manager.configuration.touchInterval)
            #expect(b.manager.lookupAtOnce(cookieValue: value) == nil, "an idle renewal is due: the store is asked")
            #expect(try await Self.lookUpUntilCached(b, header) != nil)
            #expect(Self.atOnce(b, value) != nil, "renewed, and from memory again")

            _ = try await a.manager.end(session)
            let deadline = ContinuousClock().now + .seconds(2)
            while Self.atOnce(b, value) != nil, ContinuousClock().now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(b.manager.lookupAtOnce(cookieValue: value) == nil, "the logout's announcement emptied the cache")
            guard case .notFound = try await b.manager.lookup(cookieHeader: header) else {
                Issue.record("the ended session was still found")
                return
            }
            await a.cache.close()
            await b.cache.close()
        }
    }
}
