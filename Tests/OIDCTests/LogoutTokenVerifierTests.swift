import Core
@testable import ModgudSimulator
import OIDC
import Testing

@Suite struct LogoutTokenVerifierTests {
    let verifier = LogoutTokenVerifier(issuer: Fixtures.issuer, clientID: Fixtures.clientID, skew: 60, maximumAge: 120)

    static func sign(_ changes: [(String, JSON?)] = []) -> String {
        Fixtures.primary.sign(Fixtures.logoutClaims(changes), type: "logout+jwt")
    }

    @Test func aLogoutTokenTheSimulatorSignedVerifiesAndYieldsItsClaims() throws {
        let claims = try verifier.verify(Self.sign(), keys: Fixtures.primarySet, now: Fixtures.now + 30)
        #expect(claims.sessionID == "sid-1")
        #expect(claims.subject == "user-1")
        #expect(claims.tokenID == "jti-1")
        #expect(claims.issuedAt == Fixtures.now)
    }

    @Test(arguments: [
        ("sid alone", Fixtures.primary.sign(Fixtures.logoutClaims([("sub", nil)]), type: "logout+jwt")),
        ("sub alone", Fixtures.primary.sign(Fixtures.logoutClaims([("sid", nil)]), type: "logout+jwt")),
        ("media type spelled out", Fixtures.primary.sign(Fixtures.logoutClaims(), type: "application/logout+jwt")),
        ("no typ", Fixtures.token(header: ["alg": "RS256", "kid": .string(Fixtures.primary.kid)], claims: Fixtures.logoutClaims())),
        ("exactly the maximum age", Fixtures.primary.sign(Fixtures.logoutClaims([("iat", .int(Fixtures.now - 120))]), type: "logout+jwt")),
    ])
    func accepts(_ name: String, _ token: String) throws {
        _ = try verifier.verify(token, keys: Fixtures.primarySet, now: Fixtures.now)
    }

    static let refusals: [Refusal] = [
        Refusal(name: "typ JWT", token: Fixtures.primary.sign(Fixtures.logoutClaims()), error: .wrongType),
        Refusal(name: "alg none", token: Fixtures.unsignedToken(claims: Fixtures.logoutClaims()), error: .unsupportedAlgorithm),
        Refusal(name: "HS256 keyed with the public key", token: Fixtures.confusedToken(claims: Fixtures.logoutClaims()),
                error: .unsupportedAlgorithm),
        Refusal(name: "wrong signature", token: Fixtures.flippingSignature(sign()), error: .badSignature),
        Refusal(name: "wrong key", token: Fixtures.token(header: ["alg": "RS256", "kid": .string(Fixtures.primary.kid),
                                                                   "typ": "logout+jwt"],
                                                          claims: Fixtures.logoutClaims(), key: Fixtures.rotated),
                error: .badSignature),
        Refusal(name: "unknown kid", token: Fixtures.rotated.sign(Fixtures.logoutClaims(), type: "logout+jwt"), error: .unknownKey),
        Refusal(name: "wrong iss", token: sign([("iss", "http://evil.example")]), error: .wrongIssuer),
        Refusal(name: "wrong aud", token: sign([("aud", "other-client")]), error: .wrongAudience),
        Refusal(name: "iat too old", token: sign([("iat", .int(Fixtures.now - 121))]), error: .tooOld),
        Refusal(name: "iat in the future", token: sign([("iat", .int(Fixtures.now + 61))]), error: .issuedInTheFuture),
        Refusal(name: "no iat", token: sign([("iat", nil)]), error: .invalidClaim(.issuedAt)),
        Refusal(name: "exp passed", token: sign([("exp", .int(Fixtures.now - 61))]), error: .expired),
        Refusal(name: "no events", token: sign([("events", nil)]), error: .missingLogoutEvent),
        Refusal(name: "events without the logout event", token: sign([("events", ["http://example/other": .object([:])])]),
                error: .missingLogoutEvent),
        Refusal(name: "logout event not an object", token: sign([("events", [LogoutTokenVerifier.backchannelLogoutEvent: true])]),
                error: .missingLogoutEvent),
        Refusal(name: "events not an object", token: sign([("events", "logout")]), error: .invalidClaim(.events)),
        Refusal(name: "a nonce", token: sign([("nonce", "n")]), error: .nonceForbidden),
        Refusal(name: "neither sub nor sid", token: sign([("sub", nil), ("sid", nil)]), error: .missingSubjectAndSession),
        Refusal(name: "no jti", token: sign([("jti", nil)]), error: .invalidClaim(.tokenID)),
        Refusal(name: "empty jti", token: sign([("jti", "")]), error: .invalidClaim(.tokenID)),
        Refusal(name: "oversize token", token: sign([("pad", .string(String(repeating: "x", count: 16 << 10)))]), error: .tooLarge),
    ]

    @Test(arguments: refusals)
    func refuses(_ refusal: Refusal) {
        #expect(throws: refusal.error) {
            try verifier.verify(refusal.token, keys: refusal.keys, now: Fixtures.now)
        }
    }
}
