import COpenSSL

/// An RSA private key, for tests and the identity-server simulator. Signs
/// RS256 (RSASSA-PKCS1-v1_5 with SHA-256).
public struct RSAPrivateKey: Sendable, CustomStringConvertible {
    let key: EVPKey
    /// The matching public key (n, e).
    public let publicKey: RSAPublicKey

    /// Generates a fresh key pair with e = 65537. Generation takes tens to
    /// hundreds of milliseconds: do it off the event loops.
    ///
    /// - Throws: `CryptoError.invalidArgument` unless `bits` is a multiple
    ///   of 8 in 2048…8192.
    public init(bits: Int = 2048) throws(CryptoError) {
        guard RSAPublicKey.allowedModulusBits.contains(bits), bits % 8 == 0 else {
            throw .invalidArgument(reason: "RSA key size must be a multiple of 8 in \(RSAPublicKey.allowedModulusBits)")
        }
        let key = try EVPKey.generate("RSA") { context in
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1
        }
        let n = try key.bigNumber(CName.rsaN)
        let e = try key.bigNumber(CName.rsaE)
        self.key = key
        self.publicKey = try RSAPublicKey(modulus: n, exponent: e)
    }

    /// The RS256 signature of `message`, as long as the modulus.
    public func rs256Signature(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        try message.withInputBytes { (message) throws(CryptoError) in
            try key.sign(message: message, digest: CName.sha256, padding: .rsaPKCS1)
        }
    }

    /// Never shows key material.
    public var description: String { "RSAPrivateKey(<redacted>)" }
}
