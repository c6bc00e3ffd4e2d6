import COpenSSL

/// A NIST P-256 (secp256r1) public key for ES256 verification: ECDSA over
/// SHA-256, as in WebAuthn assertions (COSE alg -7) and JWS ES256.
public struct P256PublicKey: Sendable, Hashable {
    /// The affine x coordinate, 32 bytes big-endian.
    public let x: [UInt8]
    /// The affine y coordinate, 32 bytes big-endian.
    public let y: [UInt8]
    let key: EVPKey

    /// Builds a key from raw 32-byte coordinates (a COSE_Key's -2 and -3,
    /// a JWK's decoded `x` and `y`).
    ///
    /// - Throws: `CryptoError.invalidKeySize` unless both are 32 bytes;
    ///   `CryptoError.invalidKey` if the point is not on the curve.
    public init(x: some Collection<UInt8>, y: some Collection<UInt8>) throws(CryptoError) {
        let x = Array(x), y = Array(y)
        guard x.count == 32 else { throw .invalidKeySize(expected: 32, actual: x.count) }
        guard y.count == 32 else { throw .invalidKeySize(expected: 32, actual: y.count) }
        var point = [0x04] + x + y  // SEC 1 uncompressed encoding
        let built = point.withUnsafeMutableBytes { point in
            var params = [
                OSSL_PARAM_construct_utf8_string(
                    CName.pointer(CName.group), CName.mutablePointer(CName.prime256v1), 0),
                OSSL_PARAM_construct_octet_string(CName.pointer(CName.publicKey), point.baseAddress, point.count),
                OSSL_PARAM_construct_end(),
            ]
            return Result { () throws(CryptoError) in try EVPKey.publicKey("EC", params: &params) }
        }
        self.init(x: x, y: y, key: try built.get())
    }

    init(x: [UInt8], y: [UInt8], key: EVPKey) {
        self.x = x
        self.y = y
        self.key = key
    }

    /// True if `derSignature` (an ASN.1 DER `ECDSA-Sig-Value`, as WebAuthn
    /// sends) is a valid ES256 signature of `message`. Non-canonical DER
    /// is refused.
    public func isValidSignature(derSignature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        derSignature.withInputBytes { signature in
            message.withInputBytes { message in
                key.verify(signature: signature, message: message, digest: CName.sha256)
            }
        }
    }

    /// True if `rawSignature` (64 bytes `r ‖ s`, as in a JWS ES256
    /// signature) is a valid signature of `message`.
    public func isValidSignature(rawSignature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        let der = rawSignature.withInputBytes { ECDSASignature.der(fromRaw: $0) }
        guard let der else { return false }
        return isValidSignature(derSignature: der, for: message)
    }

    /// Keys are equal when their coordinates are.
    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y
    }

    /// Hashes the coordinates.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(x)
        hasher.combine(y)
    }
}
