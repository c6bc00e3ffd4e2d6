import Core
import Crypto
@testable import ModgudSimulator

/// id_tokens minted for the refusal tests: signed with the simulator's own
/// key (so only the named defect fails), or broken on purpose.
enum IDTokens {
    static let key = SigningKey(GatewayHarness.signingKey)
    static let stranger = SigningKey(try! RSAPrivateKey(bits: 2048))

    /// The payload of a compact JWS.
    static func claims(of token: String) -> JSON? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]) else { return nil }
        return try? JSON.parse(payload)
    }

    /// `claims` with `changes` applied (nil removes a claim).
    static func changing(_ claims: JSON, _ changes: [(String, JSON?)]) -> JSON {
        guard case .object(var object) = claims else { return claims }
        for (key, value) in changes { object[key] = value }
        return .object(object)
    }

    /// Signed by the simulator's key.
    static func signed(_ claims: JSON) -> String { key.sign(claims) }

    /// Signed by another key that claims the simulator's `kid`.
    static func forged(_ claims: JSON) -> String {
        let header: JSON = ["alg": "RS256", "kid": .string(key.kid), "typ": "JWT"]
        let input = Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized)
        return input + "." + Base64URL.encode(try! stranger.key.rs256Signature(for: Array(input.utf8)))
    }

    /// `alg: none`, no signature.
    static func unsigned(_ claims: JSON) -> String {
        let header: JSON = ["alg": "none", "kid": .string(key.kid), "typ": "JWT"]
        return Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized) + "."
    }

    /// HS256 keyed with the public JWK text (the algorithm-confusion attack).
    static func hs256(_ claims: JSON) -> String {
        let header: JSON = ["alg": "HS256", "kid": .string(key.kid), "typ": "JWT"]
        let input = Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized)
        return input + "." + Base64URL.encode(HMACSHA256.authenticate(key: key.jwks.serialized, message: Array(input.utf8)))
    }
}
