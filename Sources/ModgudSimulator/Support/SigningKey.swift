import Core
import Crypto

/// The RS256 key that signs id_tokens, published at `/.well-known/jwks`.
struct SigningKey: Sendable {
    let key: RSAPrivateKey
    /// The key id: the first 16 base64url characters of SHA-256(n ‖ e).
    let kid: String

    init(_ key: RSAPrivateKey) {
        self.key = key
        kid = String(Base64URL.encode(SHA256.hash(key.publicKey.modulus + key.publicKey.exponent)).prefix(16))
    }

    /// A compact JWS (`header.payload.signature`) over `claims`.
    func sign(_ claims: JSON, type: String = "JWT") -> String {
        let header: JSON = ["alg": "RS256", "kid": .string(kid), "typ": .string(type)]
        let input = Base64URL.encode(header.serialized) + "." + Base64URL.encode(claims.serialized)
        do {
            return input + "." + Base64URL.encode(try key.rs256Signature(for: Array(input.utf8)))
        } catch {
            // Signing with a key we generated fails only if OpenSSL is broken.
            fatalError("RS256 signing failed: \(error)")
        }
    }

    /// The claims of a JWT this key signed, or nil (bad form or signature).
    func verify(_ token: String) -> JSON? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64URL.decode(parts[2]), let payload = Base64URL.decode(parts[1]),
              key.publicKey.isValidRS256Signature(signature, for: Array("\(parts[0]).\(parts[1])".utf8))
        else { return nil }
        return try? JSON.parse(payload)
    }

    var jwks: JSON {
        ["keys": [[
            "kty": "RSA", "use": "sig", "alg": "RS256", "kid": .string(kid),
            "n": .string(Base64URL.encode(key.publicKey.modulus)),
            "e": .string(Base64URL.encode(key.publicKey.exponent)),
        ]]]
    }
}
