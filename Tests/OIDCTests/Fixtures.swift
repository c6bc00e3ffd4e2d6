import Core
import Crypto
@testable import ModgudSimulator
import OIDC
import Testing

/// Keys, claims and token builders shared by the OIDC suites. The keys
/// are the simulator's `SigningKey`, so tokens are signed as the simulator
/// signs them.
enum Fixtures {
    static let issuer = "http://127.0.0.1:5080"
    static let clientID = "bff-client"
    static let now: Int64 = 1_700_000_000
    static let nonce = "n-0S6_WzA2Mj"

    static let primary = SigningKey(try! RSAPrivateKey(bits: 2048))
    static let rotated = SigningKey(try! RSAPrivateKey(bits: 2048))

    /// The JWKS document the simulator serves for `key`.
    static func jwks(_ keys: SigningKey...) -> JWKSet {
        let entries = keys.flatMap { $0.jwks["keys"]?.arrayValue ?? [] }
        return try! JWKSet(json: ["keys": .array(entries)])
    }

    static var primarySet: JWKSet { jwks(primary) }

    static func idClaims(_ changes: [(String, JSON?)] = []) -> JSON {
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": "user-1", "aud": .string(clientID), "azp": .string(clientID),
            "exp": .int(now + 300), "iat": .int(now), "auth_time": .int(now - 5), "nonce": .string(nonce), "sid": "sid-1",
        ]
        for (key, value) in changes { claims[key] = value }
        return .object(claims)
    }

    static func logoutClaims(_ changes: [(String, JSON?)] = []) -> JSON {
        var claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(clientID), "iat": .int(now), "jti": "jti-1",
            "events": [LogoutTokenVerifier.backchannelLogoutEvent: .object([:])], "sub": "user-1", "sid": "sid-1",
        ]
        for (key, value) in changes { claims[key] = value }
        return .object(claims)
    }

    /// A compact JWS with any header, RS256-signed by `key` (for headers
    /// `SigningKey.sign` does not write).
    static func token(header: JSON, claims: JSON, key: SigningKey = primary) -> String {
        let input = Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized)
        return input + "." + Base64URL.encode(try! key.key.rs256Signature(for: Array(input.utf8)))
    }

    /// `alg: none` with an empty signature.
    static func unsignedToken(claims: JSON) -> String {
        let header: JSON = ["alg": "none", "kid": .string(primary.kid), "typ": "JWT"]
        return Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized) + "."
    }

    /// HS256 with the public key's JWK text as the HMAC secret: the
    /// algorithm-confusion attack on RS256 verifiers.
    static func confusedToken(claims: JSON) -> String {
        let header: JSON = ["alg": "HS256", "kid": .string(primary.kid), "typ": "JWT"]
        let input = Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized)
        let secret = primary.jwks.serialized
        return input + "." + Base64URL.encode(HMACSHA256.authenticate(key: secret, message: Array(input.utf8)))
    }

    /// `token` with its payload swapped for `claims`, the signature kept.
    static func swappingPayload(_ token: String, for claims: JSON) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return "\(parts[0]).\(Base64URL.encode(claims.serialized)).\(parts[2])"
    }

    /// `token` with one bit of its signature flipped.
    static func flippingSignature(_ token: String) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        var signature = Base64URL.decode(parts[2])!
        signature[signature.count / 2] ^= 0x01
        return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
    }
}

/// One refusal: a token, the key set, the error expected.
struct Refusal: Sendable, CustomTestStringConvertible {
    let name: String
    let token: String
    var keys: JWKSet = Fixtures.primarySet
    let error: JWTError
    var testDescription: String { name }
}
