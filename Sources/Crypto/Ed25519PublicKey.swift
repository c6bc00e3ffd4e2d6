import COpenSSL

/// An Ed25519 public key (RFC 8032), for EdDSA verification (COSE alg -8,
/// JWS `EdDSA`).
public struct Ed25519PublicKey: Sendable, Hashable {
    /// The 32-byte encoded public key.
    public let rawRepresentation: [UInt8]
    let key: EVPKey

    /// Builds a key from its 32-byte encoding.
    ///
    /// - Throws: `CryptoError.invalidKeySize` unless it is 32 bytes;
    ///   `CryptoError.invalidKey` if OpenSSL refuses it.
    public init(rawRepresentation: some Collection<UInt8>) throws(CryptoError) {
        let raw = Array(rawRepresentation)
        guard raw.count == 32 else { throw .invalidKeySize(expected: 32, actual: raw.count) }
        let pointer = raw.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, $0.baseAddress, $0.count)
        }
        guard let pointer else {
            throw .invalidKey(reason: OpenSSLError.capture("EVP_PKEY_new_raw_public_key_ex").description)
        }
        self.rawRepresentation = raw
        self.key = EVPKey(taking: pointer)
    }

    /// True if `signature` (64 bytes) is a valid Ed25519 signature of `message`.
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        guard signature.count == 64 else { return false }
        return signature.withInputBytes { signature in
            message.withInputBytes { message in
                key.verify(signature: signature, message: message, digest: nil)
            }
        }
    }

    /// Keys are equal when their encodings are.
    public static func == (lhs: Ed25519PublicKey, rhs: Ed25519PublicKey) -> Bool {
        lhs.rawRepresentation == rhs.rawRepresentation
    }

    /// Hashes the encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawRepresentation)
    }
}
