import Core
import Crypto
import HTTP
@testable import ModgudSimulator
import OIDC
import Synchronization
import Testing
import TestSupport

@Suite("JWKS with two keys and the rotation switch")
struct KeyRotationTests {
    static let second: RSAPrivateKey = {
        do { return try RSAPrivateKey(bits: 2048) } catch { fatalError("RSA key generation failed: \(error)") }
    }()

    func keySet(_ sim: SimHarness) async throws -> (JWKSet, JSON) {
        let response = try await sim.get("/.well-known/jwks")
        return (try JWKSet(bytes: response.body), try response.json())
    }

    func idToken(_ sim: SimHarness) async throws -> String {
        try #require(try await sim.signIn("ada@example.com")["id_token"]?.stringValue)
    }

    func verifies(_ token: String, _ keys: JWKSet, _ sim: SimHarness) -> Bool {
        let verifier = IDTokenVerifier(issuer: sim.issuer, clientID: "bff")
        return (try? verifier.verify(token, keys: keys, now: Int64(sim.simulator.core.state.now()), nonce: nil)) != nil
    }

    @Test func oldAndNewTokensVerifyWhileBothKeysArePublished() async throws {
        try await withSimulator { sim async throws in
            let before = try await idToken(sim)
            #expect(try await keySet(sim).0.count == 1)
            sim.simulator.rotateSigningKey(to: Self.second)
            let after = try await idToken(sim)
            let (keys, document) = try await keySet(sim)
            #expect(keys.count == 2)
            for key in document["keys"]?.arrayValue ?? [] {
                #expect(key["alg"] == "RS256" && key["use"] == "sig" && key["kid"]?.stringValue != nil)
            }
            #expect(verifies(before, keys, sim) && verifies(after, keys, sim))
            #expect(sim.simulator.core.state.signingKey.verify(before) != nil)
            // The next rotation drops the first key: its tokens stop verifying.
            let rotated = try await sim.postJSON("/dev/keys/rotate", [:])
            #expect(rotated.status == 200)
            let (later, _) = try await keySet(sim)
            #expect(later.count == 2)
            #expect(!verifies(before, later, sim) && verifies(after, later, sim))
            #expect(sim.simulator.core.state.signingKey.verify(before) == nil)
        }
    }

    @Test func anUnpublishedKeySignsBeforeTheKeySetListsIt() async throws {
        try await withSimulator { sim async throws in
            let (initial, _) = try await keySet(sim)
            let fetches = Counter()
            let cache = JWKSCache(keys: initial, refetchInterval: 0, now: { 0 }) { [sim] in
                fetches.increment()
                return try JWKSet(bytes: try await sim.get("/.well-known/jwks").body)
            }
            let rotated = try await sim.postJSON("/dev/keys/rotate", ["publish": false])
            #expect(try rotated.json()["currentPublished"] == false)
            let hidden = try await idToken(sim)
            let verifier = IDTokenVerifier(issuer: sim.issuer, clientID: "bff")
            let now = Int64(sim.simulator.core.state.now())
            await #expect(throws: JWTError.unknownKey) { try await verifier.verify(hidden, keys: cache, now: now, nonce: nil) }
            #expect(fetches.value == 1, "an unknown kid fetched the set again")
            #expect(try await sim.postJSON("/dev/keys/publish", [:]).status == 200)
            _ = try await verifier.verify(hidden, keys: cache, now: now, nonce: nil)
            #expect(try await keySet(sim).0.count == 2)
        }
    }
}

/// A thread-safe count for fetch closures.
final class Counter: Sendable {
    private let count = Synchronization.Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
