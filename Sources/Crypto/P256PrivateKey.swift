import COpenSSL

/// A NIST P-256 private key, for tests, the identity-server simulator and
/// the software authenticator. Signs ES256 (ECDSA with SHA-256).
public struct P256PrivateKey: Sendable, CustomStringConvertible {
    let key: EVPKey
    /// The matching public key.
    public let publicKey: P256PublicKey

    /// Generates a fresh key pair.
    public init() throws(CryptoError) {
        let key = try EVPKey.generate("EC") { context in
            EVP_PKEY_CTX_set_group_name(context, CName.pointer(CName.prime256v1)) == 1
        }
        let x = try key.bigNumber(CName.ecPublicX, paddedTo: 32)
        let y = try key.bigNumber(CName.ecPublicY, paddedTo: 32)
        self.key = key
        self.publicKey = try P256PublicKey(x: x, y: y)
    }

    /// An ES256 signature of `message` in ASN.1 DER, as WebAuthn expects.
    public func signature(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        try message.withInputBytes { (message) throws(CryptoError) in
            try key.sign(message: message, digest: CName.sha256)
        }
    }

    /// An ES256 signature of `message` as 64 bytes `r ‖ s`, as JWS expects.
    public func rawSignature(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        let der = try signature(for: message)
        let raw = der.withUnsafeBytes { ECDSASignature.raw(fromDER: $0) }
        guard let raw else { throw .openSSL(function: "d2i_ECDSA_SIG", reason: "own signature did not parse") }
        return raw
    }

    /// Never shows key material.
    public var description: String { "P256PrivateKey(<redacted>)" }
}
