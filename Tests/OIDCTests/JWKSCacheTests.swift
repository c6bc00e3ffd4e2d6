import Core
@testable import ModgudSimulator
import OIDC
import Synchronization
import Testing

/// A fetch that counts its calls and answers the set it is told to, on a
/// clock the test moves.
final class FakeJWKSEndpoint: Sendable {
    let fetches = Mutex(0)
    let answer: Mutex<JWKSet?>
    let time = Mutex(Fixtures.now)
    let delay: Duration

    init(answer: JWKSet?, delay: Duration = .zero) {
        self.answer = Mutex(answer)
        self.delay = delay
    }

    func cache(holding keys: JWKSet? = nil) -> JWKSCache {
        let fetch: JWKSCache.Fetch = { [self] in
            fetches.withLock { $0 += 1 }
            if delay > .zero { try await Task.sleep(for: delay) }
            guard let set = answer.withLock({ $0 }) else { throw CancellationError() }
            return set
        }
        let now: @Sendable () -> Int64 = { [self] in time.withLock { $0 } }
        guard let keys else { return JWKSCache(now: now, fetch: fetch) }
        return JWKSCache(keys: keys, now: now, fetch: fetch)
    }

    var fetchCount: Int { fetches.withLock { $0 } }
    func advance(_ seconds: Int64) { time.withLock { $0 += seconds } }
}

@Suite struct JWKSCacheTests {
    let verifier = IDTokenVerifier(issuer: Fixtures.issuer, clientID: Fixtures.clientID)

    @Test func aNewKidWithinAMinuteOfTheHeldSetIsRefusedWithoutAFetch() async throws {
        let endpoint = FakeJWKSEndpoint(answer: Fixtures.jwks(Fixtures.rotated))
        let cache = endpoint.cache(holding: Fixtures.primarySet)
        endpoint.advance(59)
        await #expect(throws: JWTError.unknownKey) { try await cache.key(for: Fixtures.rotated.kid) }
        #expect(endpoint.fetchCount == 0)
    }

    @Test func aTokenFromARotatedKeyVerifiesAfterOneRefetch() async throws {
        let endpoint = FakeJWKSEndpoint(answer: Fixtures.jwks(Fixtures.rotated, Fixtures.primary))
        let cache = endpoint.cache(holding: Fixtures.primarySet)
        let old = Fixtures.primary.sign(Fixtures.idClaims())
        _ = try await verifier.verify(old, keys: cache, now: Fixtures.now, nonce: Fixtures.nonce)
        #expect(endpoint.fetchCount == 0)
        endpoint.advance(60)
        let new = Fixtures.rotated.sign(Fixtures.idClaims())
        let claims = try await verifier.verify(new, keys: cache, now: Fixtures.now, nonce: Fixtures.nonce)
        #expect(claims.subject == "user-1")
        _ = try await verifier.verify(new, keys: cache, now: Fixtures.now, nonce: Fixtures.nonce)
        #expect(endpoint.fetchCount == 1)
    }

    @Test func anUnknownKidFetchesAtMostOnceAMinute() async throws {
        let endpoint = FakeJWKSEndpoint(answer: Fixtures.primarySet)
        let cache = endpoint.cache(holding: Fixtures.primarySet)
        endpoint.advance(60)
        await #expect(throws: JWTError.unknownKey) { try await cache.key(for: "first") }
        #expect(endpoint.fetchCount == 1)
        endpoint.advance(30)
        await #expect(throws: JWTError.unknownKey) { try await cache.key(for: "second") }
        #expect(endpoint.fetchCount == 1)
        endpoint.advance(31)
        await #expect(throws: JWTError.unknownKey) { try await cache.key(for: "second") }
        #expect(endpoint.fetchCount == 2)
    }

    @Test func aKeyNotForRS256NeverFetches() async throws {
        let endpoint = FakeJWKSEndpoint(answer: Fixtures.primarySet)
        let cache = endpoint.cache(holding: try JWKSet(json: ["keys": [JWKSetTests.rsaKey(kid: "k", [("use", "enc")])]]))
        endpoint.advance(3600)
        await #expect(throws: JWTError.keyNotForAlgorithm) { try await cache.key(for: "k") }
        #expect(endpoint.fetchCount == 0)
    }

    @Test func concurrentLookupsShareOneFetch() async throws {
        let endpoint = FakeJWKSEndpoint(answer: Fixtures.primarySet, delay: .milliseconds(50))
        let cache = endpoint.cache()
        let token = Fixtures.primary.sign(Fixtures.idClaims())
        let verifier = self.verifier
        let verified = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 {
                group.addTask { try await verifier.verify(token, keys: cache, now: Fixtures.now, nonce: Fixtures.nonce).subject }
            }
            return try await group.reduce(into: 0) { count, _ in count += 1 }
        }
        #expect(verified == 32)
        #expect(endpoint.fetchCount == 1)
    }

    @Test func aFailedFetchIsReportedAndKeepsTheHeldKeys() async throws {
        let endpoint = FakeJWKSEndpoint(answer: nil)
        let cache = endpoint.cache(holding: Fixtures.primarySet)
        endpoint.advance(61)
        await #expect(throws: JWTError.keysUnavailable) { try await cache.key(for: Fixtures.rotated.kid) }
        #expect(try await cache.key(for: Fixtures.primary.kid) == Fixtures.primary.key.publicKey)
        #expect(endpoint.fetchCount == 1)
    }
}
