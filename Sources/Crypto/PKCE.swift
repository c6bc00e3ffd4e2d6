/// Proof Key for Code Exchange (RFC 7636).
public enum PKCE {
    /// The S256 code challenge for `verifier`:
    /// `BASE64URL(SHA256(ASCII(verifier)))`, unpadded (RFC 7636 §4.2).
    public static func s256Challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(verifier.utf8))
    }

    /// A fresh code verifier: 32 random bytes in base64url, 43 characters
    /// from the unreserved set, as RFC 7636 §4.1 recommends.
    public static func makeVerifier() throws(CryptoError) -> String {
        try SecureRandom.token(byteCount: 32)
    }
}
