import COpenSSL

/// An RSA public key for RS256 verification: RSASSA-PKCS1-v1_5 with
/// SHA-256 (JWS RS256, COSE alg -257).
public struct RSAPublicKey: Sendable, Hashable {
    /// Moduli accepted, in bits. Below 2048 is too weak; above 8192 only
    /// makes verification slow enough to be a denial-of-service lever.
    public static let allowedModulusBits = 2048...8192

    /// The modulus n, big-endian, without leading zero bytes.
    public let modulus: [UInt8]
    /// The public exponent e, big-endian, without leading zero bytes.
    public let exponent: [UInt8]
    let key: EVPKey

    /// Builds a key from big-endian n and e (a JWK's decoded `n` and `e`,
    /// a COSE_Key's -1 and -2). Leading zero bytes are ignored.
    ///
    /// - Throws: `CryptoError.invalidKey` unless n is odd and 2048–8192 bits
    ///   and e is odd, at least 3, at most 64 bits and smaller than n.
    public init(modulus: some Collection<UInt8>, exponent: some Collection<UInt8>) throws(CryptoError) {
        let n = Array(modulus.drop { $0 == 0 })
        let e = Array(exponent.drop { $0 == 0 })
        let bits = n.isEmpty ? 0 : n.count * 8 - n[0].leadingZeroBitCount
        guard Self.allowedModulusBits.contains(bits), n.last! & 1 == 1 else {
            throw .invalidKey(reason: "RSA modulus must be odd and \(Self.allowedModulusBits) bits, got \(bits)")
        }
        guard !e.isEmpty, e.count <= 8, e.last! & 1 == 1, e != [1] else {
            throw .invalidKey(reason: "RSA exponent must be odd, at least 3 and at most 64 bits")
        }
        self.init(modulus: n, exponent: e, key: try Self.makeKey(n: n, e: e))
    }

    init(modulus: [UInt8], exponent: [UInt8], key: EVPKey) {
        self.modulus = modulus
        self.exponent = exponent
        self.key = key
    }

    /// True if `signature` is a valid RS256 signature of `message`. The
    /// signature must be exactly as long as the modulus.
    public func isValidRS256Signature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        signature.withInputBytes { signature in
            message.withInputBytes { message in
                key.verify(signature: signature, message: message, digest: CName.sha256, padding: .rsaPKCS1)
            }
        }
    }

    /// Keys are equal when n and e are.
    public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
    }

    /// Hashes n and e.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(modulus)
        hasher.combine(exponent)
    }

    private static func makeKey(n: [UInt8], e: [UInt8]) throws(CryptoError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else { throw OpenSSLError.capture("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let nNumber = BN_bin2bn(n, Int32(n.count), nil)
        let eNumber = BN_bin2bn(e, Int32(e.count), nil)
        defer {
            BN_free(nNumber)
            BN_free(eNumber)
        }
        guard let nNumber, let eNumber,
              OSSL_PARAM_BLD_push_BN(builder, CName.pointer(CName.rsaN), nNumber) == 1,
              OSSL_PARAM_BLD_push_BN(builder, CName.pointer(CName.rsaE), eNumber) == 1,
              let params = OSSL_PARAM_BLD_to_param(builder)
        else { throw OpenSSLError.capture("OSSL_PARAM_BLD_to_param") }
        defer { OSSL_PARAM_free(params) }
        return try EVPKey.publicKey("RSA", params: params)
    }
}
