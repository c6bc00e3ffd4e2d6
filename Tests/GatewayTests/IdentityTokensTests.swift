import Core
import Crypto
import Gateway
@testable import ModgudSimulator
import OIDC
import Synchronization
import Testing

/// `IdentityTokens` against the simulator over real HTTP: Modgud's keys
/// come from its JWKS URI, the issuer from discovery, the audience is the
/// gateway's client id.
@Suite("Identity token verification")
struct IdentityTokensTests {
    static func verifier(_ harness: GatewayHarness, now: Int64? = nil) throws -> IdentityTokens {
        let modgud = try #require(harness.service.modgud)
        guard let now else { return IdentityTokens(modgud: modgud) }
        return IdentityTokens(modgud: modgud, now: { now })
    }

    /// Seconds since the epoch, moved by the test.
    final class Clock: Sendable {
        let seconds: Mutex<Int64>
        init(_ seconds: Int64) { self.seconds = Mutex(seconds) }
        func advance(by delta: Int64) { seconds.withLock { $0 += delta } }
    }

    static func verifier(_ harness: GatewayHarness, clock: Clock) throws -> IdentityTokens {
        IdentityTokens(modgud: try #require(harness.service.modgud), now: { clock.seconds.withLock { $0 } })
    }

    static func jwksFetches(_ harness: GatewayHarness) -> Int {
        harness.simulator.requests().count { $0["path"]?.stringValue == "/.well-known/jwks" }
    }

    @Test func theIDTokenOfANativeSignInVerifiesAgainstModgudsKeys() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let session = try #require(try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + browser.cookies["__Host-bff"]!))
        let idToken = try #require(session.data.tokens.idToken)

        // The sign-in itself verified the token with the gateway's own key set.
        let fetchedAtSignIn = Self.jwksFetches(harness)
        let identity = try Self.verifier(harness)
        let claims = try await identity.verifyIDToken(idToken, nonce: nil)
        #expect(claims.subject == session.data.subject)
        // A second verification uses the held keys.
        _ = try await identity.verifyIDToken(idToken, nonce: nil)
        #expect(Self.jwksFetches(harness) == fetchedAtSignIn + 1)
        // A nonce the token does not carry is refused.
        await #expect(throws: JWTError.nonceMismatch) { try await identity.verifyIDToken(idToken, nonce: "n-1") }
        await harness.stop()
    }

    @Test func anotherAudienceAnotherIssuerAndAnUnknownKeyAreRefused() async throws {
        let harness = try await GatewayHarness.start()
        let issuer = try #require(harness.service.modgud).endpoints.issuer
        let now: Int64 = 1_800_000_000
        let clock = Clock(now)
        let identity = try Self.verifier(harness, clock: clock)
        let modgudKey = SigningKey(GatewayHarness.signingKey)
        func claims(_ changes: [(String, JSON)]) -> JSON {
            var object: JSONObject = ["iss": .string(issuer), "sub": "user-1", "aud": "bff", "exp": .int(now + 300),
                                      "iat": .int(now), "sid": "sid-1"]
            for (key, value) in changes { object[key] = value }
            return .object(object)
        }
        let good = modgudKey.sign(claims([]))
        #expect(try await identity.verifyIDToken(Secret(good), nonce: nil).sessionID == "sid-1")
        await #expect(throws: JWTError.wrongAudience) {
            try await identity.verifyIDToken(Secret(modgudKey.sign(claims([("aud", "another-client")]))), nonce: nil)
        }
        await #expect(throws: JWTError.wrongIssuer) {
            try await identity.verifyIDToken(Secret(modgudKey.sign(claims([("iss", "http://127.0.0.1:1")]))), nonce: nil)
        }
        // A key Modgud does not publish: within a minute of the last
        // fetch, refused without fetching; a minute later, one fetch more,
        // then refused; and again nothing within the next minute.
        #expect(Self.jwksFetches(harness) == 1)
        let stranger = SigningKey(try RSAPrivateKey(bits: 2048))
        await #expect(throws: JWTError.unknownKey) { try await identity.verifyIDToken(Secret(stranger.sign(claims([]))), nonce: nil) }
        #expect(Self.jwksFetches(harness) == 1)
        clock.advance(by: 61)
        await #expect(throws: JWTError.unknownKey) { try await identity.verifyIDToken(Secret(stranger.sign(claims([]))), nonce: nil) }
        await #expect(throws: JWTError.unknownKey) { try await identity.verifyIDToken(Secret(stranger.sign(claims([]))), nonce: nil) }
        #expect(Self.jwksFetches(harness) == 2)
        await harness.stop()
    }

    /// Modgud rotates its signing key: tokens of the new key verify once
    /// the keys are fetched again (at most once a minute after the last
    /// fetch), and tokens of the previous key, still published, go on
    /// verifying.
    @Test func aKeyRotationAtModgudIsFollowed() async throws {
        let harness = try await GatewayHarness.start()
        let issuer = try #require(harness.service.modgud).endpoints.issuer
        let now: Int64 = 1_800_000_000
        let clock = Clock(now)
        let identity = try Self.verifier(harness, clock: clock)
        let claims: JSON = ["iss": .string(issuer), "sub": "user-1", "aud": "bff", "exp": .int(now + 600), "iat": .int(now)]
        let previous = SigningKey(GatewayHarness.signingKey)
        _ = try await identity.verifyIDToken(Secret(previous.sign(claims)), nonce: nil)

        let rotated = try RSAPrivateKey(bits: 2048)
        harness.simulator.rotateSigningKey(to: rotated)
        let next = SigningKey(rotated)
        #expect(harness.simulator.currentKeyID == next.kid)
        // Within the minute after the last fetch the new key is not known yet.
        await #expect(throws: JWTError.unknownKey) { try await identity.verifyIDToken(Secret(next.sign(claims)), nonce: nil) }
        clock.advance(by: 61)
        #expect(try await identity.verifyIDToken(Secret(next.sign(claims)), nonce: nil).subject == "user-1")
        #expect(try await identity.verifyIDToken(Secret(previous.sign(claims)), nonce: nil).subject == "user-1",
                "the previous key stays published after one rotation")
        #expect(Self.jwksFetches(harness) == 2)
        await harness.stop()
    }

    @Test func aLogoutTokenVerifiesWithTheSameKeys() async throws {
        let harness = try await GatewayHarness.start()
        let issuer = try #require(harness.service.modgud).endpoints.issuer
        let now: Int64 = 1_800_000_000
        let identity = try Self.verifier(harness, now: now)
        let token = SigningKey(GatewayHarness.signingKey).sign([
            "iss": .string(issuer), "aud": "bff", "iat": .int(now - 10), "jti": "jti-1", "sub": "user-1",
            "events": [LogoutTokenVerifier.backchannelLogoutEvent: .object([:])],
        ], type: "logout+jwt")
        let claims = try await identity.verifyLogoutToken(token)
        #expect(claims.tokenID == "jti-1" && claims.subject == "user-1" && claims.sessionID == nil)
        await #expect(throws: JWTError.tooOld) {
            try await Self.verifier(harness, now: now + 600).verifyLogoutToken(token)
        }
        await harness.stop()
    }
}
