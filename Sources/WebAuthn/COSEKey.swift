import Crypto

/// A credential public key as a COSE_Key (RFC 9052 §7, RFC 9053), limited
/// to the two kinds passkeys use:
///
/// - EC2 (kty 2) on P-256 (crv 1) with alg −7 (ES256): labels −2 (x) and
///   −3 (y), 32 bytes each, the point on the curve;
/// - OKP (kty 1) on Ed25519 (crv 6) with alg −8 (EdDSA): label −2 (x),
///   32 bytes.
///
/// Anything else is refused: another key type, curve or algorithm, a
/// missing `alg`, a key that carries private material (label −4), a
/// compressed or wrong-sized coordinate. Other labels (`kid`, `key_ops`, …)
/// are ignored. ``bytes`` keeps the COSE encoding as received, which is
/// what a relying party stores.
public struct COSEKey: Sendable, Hashable {
    /// A parsed public key.
    public enum PublicKey: Sendable, Hashable {
        /// A P-256 key for ES256.
        case p256(P256PublicKey)
        /// An Ed25519 key for EdDSA.
        case ed25519(Ed25519PublicKey)
    }

    /// The algorithm the key is bound to.
    public let algorithm: COSEAlgorithm
    /// The key itself.
    public let publicKey: PublicKey
    /// The COSE_Key encoding this key was read from (or built as).
    public let bytes: [UInt8]

    /// COSE_Key labels and values used here (RFC 9052 §7.1, RFC 9053 §7).
    enum Label {
        static let kty = 1, alg = 3, crv = -1, x = -2, y = -3, d = -4
    }
    enum KeyType {
        static let okp = 1, ec2 = 2
    }
    enum Curve {
        static let p256 = 1, ed25519 = 6
    }

    /// Reads a COSE_Key from its CBOR encoding (exactly one item).
    ///
    /// - Throws: `WebAuthnError.malformedCBOR` when the bytes are not one
    ///   CBOR item; `.unsupportedKey` for a key type, curve or algorithm
    ///   other than the two above; `.invalidKey` for a key of a supported
    ///   kind that is malformed or not on its curve.
    public init(bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let bytes = Array(bytes)
        let item: CBOR
        do { item = try CBOR.decode(bytes) } catch { throw .malformedCBOR(error) }
        try self.init(item: item, bytes: bytes)
    }

    /// Reads a COSE_Key from a decoded item; `bytes` is its encoding.
    init(item: CBOR, bytes: [UInt8]) throws(WebAuthnError) {
        guard item.mapValue != nil else { throw .invalidKey(reason: "not a map") }
        guard item[Label.d] == nil else { throw .invalidKey(reason: "contains private key material") }
        guard let kty = item[Label.kty]?.intValue else { throw .invalidKey(reason: "missing or non-integer kty") }
        guard let algValue = item[Label.alg]?.intValue else { throw .invalidKey(reason: "missing or non-integer alg") }
        let crv = item[Label.crv]?.intValue
        let x = item[Label.x]?.bytesValue
        switch (kty, crv, COSEAlgorithm(rawValue: algValue)) {
        case (KeyType.ec2, Curve.p256, .es256):
            guard let x else { throw .invalidKey(reason: "missing x coordinate") }
            guard let y = item[Label.y]?.bytesValue else { throw .invalidKey(reason: "missing or compressed y coordinate") }
            do {
                publicKey = .p256(try P256PublicKey(x: x, y: y))
            } catch {
                throw .invalidKey(reason: "not a valid P-256 point")
            }
            algorithm = .es256
        case (KeyType.okp, Curve.ed25519, .edDSA):
            guard let x else { throw .invalidKey(reason: "missing x coordinate") }
            guard item[Label.y] == nil else { throw .invalidKey(reason: "OKP key with a y coordinate") }
            do {
                publicKey = .ed25519(try Ed25519PublicKey(rawRepresentation: x))
            } catch {
                throw .invalidKey(reason: "not a valid Ed25519 key")
            }
            algorithm = .edDSA
        default:
            throw .unsupportedKey
        }
        self.bytes = bytes
    }

    /// The COSE_Key for a P-256 public key (ES256), in CTAP2 canonical order.
    public init(p256 key: P256PublicKey) {
        let item = CBOR.map([
            (.int(Label.kty), .int(KeyType.ec2)),
            (.int(Label.alg), .int(COSEAlgorithm.es256.rawValue)),
            (.int(Label.crv), .int(Curve.p256)),
            (.int(Label.x), .bytes(key.x)),
            (.int(Label.y), .bytes(key.y)),
        ])
        algorithm = .es256
        publicKey = .p256(key)
        bytes = item.encoded
    }

    /// The COSE_Key for an Ed25519 public key (EdDSA), in CTAP2 canonical order.
    public init(ed25519 key: Ed25519PublicKey) {
        let item = CBOR.map([
            (.int(Label.kty), .int(KeyType.okp)),
            (.int(Label.alg), .int(COSEAlgorithm.edDSA.rawValue)),
            (.int(Label.crv), .int(Curve.ed25519)),
            (.int(Label.x), .bytes(key.rawRepresentation)),
        ])
        algorithm = .edDSA
        publicKey = .ed25519(key)
        bytes = item.encoded
    }

    /// True if `signature` is this key's signature of `message`: for
    /// ES256 an ASN.1 DER `ECDSA-Sig-Value` over SHA-256, for EdDSA the
    /// 64 raw bytes of Ed25519. WebAuthn always signs
    /// `authenticatorData ‖ SHA-256(clientDataJSON)`.
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        switch publicKey {
        case .p256(let key): key.isValidSignature(derSignature: signature, for: message)
        case .ed25519(let key): key.isValidSignature(signature, for: message)
        }
    }

    /// Keys are equal when their encodings are.
    public static func == (lhs: COSEKey, rhs: COSEKey) -> Bool { lhs.bytes == rhs.bytes }

    /// Hashes the encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

extension COSEKey: CustomStringConvertible {
    /// `COSE key (ES256)`: the kind only.
    public var description: String { "COSE key (\(algorithm))" }
}
