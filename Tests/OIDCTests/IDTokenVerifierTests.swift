import Core
@testable import ModgudSimulator
import OIDC
import Testing

@Suite struct IDTokenVerifierTests {
    let verifier = IDTokenVerifier(issuer: Fixtures.issuer, clientID: Fixtures.clientID, skew: 60)

    @Test func aTokenTheSimulatorSignedVerifiesAndYieldsItsClaims() throws {
        let token = Fixtures.primary.sign(Fixtures.idClaims())
        let claims = try verifier.verify(token, keys: Fixtures.primarySet, now: Fixtures.now, nonce: Fixtures.nonce)
        #expect(claims.subject == "user-1")
        #expect(claims.sessionID == "sid-1")
        #expect(claims.authTime == Fixtures.now - 5)
        #expect(claims.expiresAt == Fixtures.now + 300)
        #expect(claims.json["azp"]?.stringValue == Fixtures.clientID)
        #expect(!"\(claims)".contains("user-1"))
    }

    @Test(arguments: [
        ("aud an array naming us, no azp", [("aud", JSON.array(["other", .string(Fixtures.clientID)])), ("azp", nil)]),
        ("exp passed, within the skew", [("exp", .int(Fixtures.now - 59))]),
        ("iat ahead, within the skew", [("iat", .int(Fixtures.now + 60))]),
        ("no sid, no auth_time", [("sid", nil), ("auth_time", nil)]),
        ("fractional dates", [("exp", .double(Double(Fixtures.now) + 0.5)), ("iat", .double(Double(Fixtures.now) - 0.5))]),
    ] as [(String, [(String, JSON?)])])
    func accepts(_ name: String, _ changes: [(String, JSON?)]) throws {
        let token = Fixtures.primary.sign(Fixtures.idClaims(changes))
        _ = try verifier.verify(token, keys: Fixtures.primarySet, now: Fixtures.now, nonce: Fixtures.nonce)
    }

    @Test func withoutAnExpectedNonceATokenWithOneVerifies() throws {
        let token = Fixtures.primary.sign(Fixtures.idClaims())
        #expect(try verifier.verify(token, keys: Fixtures.primarySet, now: Fixtures.now, nonce: nil).nonce == Fixtures.nonce)
    }

    static let refusals: [Refusal] = {
        let sign = { (changes: [(String, JSON?)]) in Fixtures.primary.sign(Fixtures.idClaims(changes)) }
        let good = sign([])
        var otherAlg = Fixtures.primary.jwks
        if case .object(var document) = otherAlg, case .array(var keys)? = document["keys"], case .object(var key) = keys[0] {
            key["alg"] = "PS256"
            keys[0] = .object(key)
            document["keys"] = .array(keys)
            otherAlg = .object(document)
        }
        return [
            Refusal(name: "alg none", token: Fixtures.unsignedToken(claims: Fixtures.idClaims()), error: .unsupportedAlgorithm),
            Refusal(name: "HS256 keyed with the public key", token: Fixtures.confusedToken(claims: Fixtures.idClaims()),
                    error: .unsupportedAlgorithm),
            Refusal(name: "RS512 header", token: Fixtures.token(header: ["alg": "RS512", "kid": .string(Fixtures.primary.kid)],
                                                                 claims: Fixtures.idClaims()), error: .unsupportedAlgorithm),
            Refusal(name: "unknown kid", token: Fixtures.rotated.sign(Fixtures.idClaims()), error: .unknownKey),
            Refusal(name: "JWK declares another alg", token: good, keys: try! JWKSet(json: otherAlg), error: .keyNotForAlgorithm),
            Refusal(name: "tampered payload", token: Fixtures.swappingPayload(good, for: Fixtures.idClaims([("sub", "admin")])),
                    error: .badSignature),
            Refusal(name: "tampered signature", token: Fixtures.flippingSignature(good), error: .badSignature),
            Refusal(name: "signed by another key under our kid",
                    token: Fixtures.token(header: ["alg": "RS256", "kid": .string(Fixtures.primary.kid)],
                                          claims: Fixtures.idClaims(), key: Fixtures.rotated), error: .badSignature),
            Refusal(name: "wrong iss", token: sign([("iss", .string(Fixtures.issuer + "/"))]), error: .wrongIssuer),
            Refusal(name: "no iss", token: sign([("iss", nil)]), error: .invalidClaim(.issuer)),
            Refusal(name: "aud not ours", token: sign([("aud", "other-client")]), error: .wrongAudience),
            Refusal(name: "aud array without us", token: sign([("aud", ["a", "b"])]), error: .wrongAudience),
            Refusal(name: "no aud", token: sign([("aud", nil)]), error: .invalidClaim(.audience)),
            Refusal(name: "azp not ours", token: sign([("azp", "other-client")]), error: .wrongAuthorizedParty),
            Refusal(name: "expired beyond the skew", token: sign([("exp", .int(Fixtures.now - 60))]), error: .expired),
            Refusal(name: "no exp", token: sign([("exp", nil)]), error: .invalidClaim(.expiresAt)),
            Refusal(name: "exp a string", token: sign([("exp", "tomorrow")]), error: .invalidClaim(.expiresAt)),
            Refusal(name: "iat in the future", token: sign([("iat", .int(Fixtures.now + 61))]), error: .issuedInTheFuture),
            Refusal(name: "nonce mismatch", token: sign([("nonce", "another")]), error: .nonceMismatch),
            Refusal(name: "nonce missing", token: sign([("nonce", nil)]), error: .nonceMismatch),
            Refusal(name: "no sub", token: sign([("sub", nil)]), error: .invalidClaim(.subject)),
            Refusal(name: "oversize token", token: sign([("pad", .string(String(repeating: "x", count: 16 << 10)))]),
                    error: .tooLarge),
            Refusal(name: "two parts", token: String(good[..<good.lastIndex(of: ".")!]), error: .malformed),
            Refusal(name: "four parts", token: good + ".e30", error: .malformed),
            Refusal(name: "no kid", token: Fixtures.token(header: ["alg": "RS256"], claims: Fixtures.idClaims()),
                    error: .malformed),
            Refusal(name: "crit header", token: Fixtures.token(header: ["alg": "RS256", "kid": .string(Fixtures.primary.kid),
                                                                         "crit": ["exp"]], claims: Fixtures.idClaims()),
                    error: .malformed),
            Refusal(name: "payload not an object", token: Fixtures.token(
                header: ["alg": "RS256", "kid": .string(Fixtures.primary.kid)], claims: ["a"]), error: .malformed),
            Refusal(name: "padded base64", token: good + "==", error: .malformed),
        ]
    }()

    @Test(arguments: refusals)
    func refuses(_ refusal: Refusal) {
        #expect(throws: refusal.error) {
            try verifier.verify(refusal.token, keys: refusal.keys, now: Fixtures.now, nonce: Fixtures.nonce)
        }
    }

    @Test func noErrorDescriptionQuotesTheTokenOrAClaim() {
        for refusal in Self.refusals {
            let text = refusal.error.description
            #expect(!text.contains("user-1") && !text.contains(Fixtures.issuer) && !text.contains(Fixtures.primary.kid))
        }
    }
}
