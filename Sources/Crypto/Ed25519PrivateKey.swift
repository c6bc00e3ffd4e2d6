import COpenSSL

/// An Ed25519 private key, for tests, the identity-server simulator and the
/// software authenticator.
public struct Ed25519PrivateKey: Sendable, CustomStringConvertible {
    let key: EVPKey
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    /// Generates a fresh key pair.
    public init() throws(CryptoError) {
        try self.init(key: EVPKey.generate("ED25519"))
    }

    /// Rebuilds a key from its 32-byte seed (RFC 8032's "private key"), so
    /// a simulator can keep a stable key and tests can use RFC vectors.
    ///
    /// - Throws: `CryptoError.invalidKeySize` unless the seed is 32 bytes.
    public init(rawRepresentation seed: some Collection<UInt8>) throws(CryptoError) {
        let count = seed.count
        guard count == 32 else { throw .invalidKeySize(expected: 32, actual: count) }
        let pointer = seed.withInputBytes {
            EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, $0.bytePointer, $0.count)
        }
        guard let pointer else { throw OpenSSLError.capture("EVP_PKEY_new_raw_private_key_ex") }
        try self.init(key: EVPKey(taking: pointer))
    }

    private init(key: EVPKey) throws(CryptoError) {
        var raw = [UInt8](repeating: 0, count: 32)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(key.pointer, &raw, &length) == 1, length == 32 else {
            throw OpenSSLError.capture("EVP_PKEY_get_raw_public_key")
        }
        self.key = key
        self.publicKey = try Ed25519PublicKey(rawRepresentation: raw)
    }

    /// The 64-byte Ed25519 signature of `message` (deterministic).
    public func signature(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        try message.withInputBytes { (message) throws(CryptoError) in
            try key.sign(message: message, digest: nil)
        }
    }

    /// Never shows key material.
    public var description: String { "Ed25519PrivateKey(<redacted>)" }
}
