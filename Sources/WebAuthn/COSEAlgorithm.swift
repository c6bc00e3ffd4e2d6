/// The COSE signature algorithms this target verifies (IANA "COSE
/// Algorithms"), as in `pubKeyCredParams` and a COSE_Key's `alg` (label 3).
public enum COSEAlgorithm: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// ECDSA over P-256 with SHA-256; signatures in ASN.1 DER.
    case es256 = -7
    /// EdDSA, here always Ed25519; signatures are 64 raw bytes.
    case edDSA = -8

    /// `ES256` or `EdDSA`.
    public var description: String {
        switch self {
        case .es256: "ES256"
        case .edDSA: "EdDSA"
        }
    }
}
