import Core
import Crypto

/// Why a WebAuthn ceremony, a COSE key or the software authenticator
/// refused its input.
///
/// Every case is safe to log and never quotes the input: no challenge,
/// origin, credential id or signature appears, only fixed reasons (and the
/// offsets inside CBOR or JSON errors). A relying party should still answer
/// a client with one uniform failure and keep the reason for its logs.
public enum WebAuthnError: Error, Sendable, Hashable, CustomStringConvertible {
    // Encoding
    /// The credential JSON lacks a field, has one of the wrong type, or a
    /// field is not valid unpadded base64url. `field` is our own fixed name.
    case malformedResponse(field: String)
    /// `id` is not the base64url form of `rawId`, or the credential id in
    /// the authenticator data differs from `rawId`.
    case credentialIdMismatch
    /// `type` is not `public-key`.
    case wrongCredentialType
    /// CBOR that did not decode (attestation object, COSE key, extensions).
    case malformedCBOR(CBORError)
    /// The attestation object is not a map of `fmt`, `attStmt`, `authData`.
    case malformedAttestationObject(reason: String)
    /// The authenticator data is truncated, too long, or inconsistent with its flags.
    case malformedAuthenticatorData(reason: String)
    /// `clientDataJSON` is not a JSON object with string `type`,
    /// `challenge` and `origin`.
    case malformedClientData(reason: String)

    // Client data
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
    case wrongCeremonyType
    /// The challenge is not the one issued.
    case challengeMismatch
    /// The origin is not in the relying party's allowed set.
    case originNotAllowed
    /// `crossOrigin` is true: the ceremony ran in a cross-origin frame.
    case crossOriginNotAllowed

    // Authenticator data
    /// The RP ID hash is not SHA-256 of the relying party's id.
    case rpIdMismatch
    /// The user-present flag is not set.
    case userNotPresent
    /// User verification is required but the flag is not set.
    case userNotVerified
    /// Backed up (BS) without backup eligible (BE), which the spec forbids.
    case invalidBackupFlags
    /// Registration without attested credential data, or an assertion with it.
    case attestedCredentialDataMismatch

    // Keys and signatures
    /// A COSE key of a type, curve or algorithm other than ES256 on P-256
    /// or EdDSA on Ed25519.
    case unsupportedKey
    /// A COSE key of a supported kind that is malformed.
    case invalidKey(reason: String)
    /// The attestation format is neither `none` nor `packed` self-attestation
    /// (and the policy does not accept it unverified).
    case unsupportedAttestationFormat
    /// The attestation statement does not match its format.
    case invalidAttestationStatement(reason: String)
    /// A signature did not verify.
    case invalidSignature

    // Software authenticator
    /// The options JSON lacks a field the authenticator needs, or has one of the wrong form.
    case invalidOptions(field: String)
    /// None of `pubKeyCredParams` is an algorithm the authenticator can use.
    case noSupportedAlgorithm
    /// The authenticator holds a credential listed in `excludeCredentials`.
    case credentialExcluded
    /// The authenticator holds no usable credential for the request.
    case noCredential
    /// A cryptographic operation failed (key generation, signing).
    case crypto(CryptoError)

    /// A one-line, log-safe explanation.
    public var description: String {
        switch self {
        case .malformedResponse(let field): "malformed credential response: field \(field)"
        case .credentialIdMismatch: "credential id mismatch"
        case .wrongCredentialType: "credential type is not public-key"
        case .malformedCBOR(let error): "malformed CBOR: \(error)"
        case .malformedAttestationObject(let reason): "malformed attestation object: \(reason)"
        case .malformedAuthenticatorData(let reason): "malformed authenticator data: \(reason)"
        case .malformedClientData(let reason): "malformed client data: \(reason)"
        case .wrongCeremonyType: "client data type does not match the ceremony"
        case .challengeMismatch: "challenge mismatch"
        case .originNotAllowed: "origin not allowed"
        case .crossOriginNotAllowed: "cross-origin ceremony not allowed"
        case .rpIdMismatch: "RP ID hash mismatch"
        case .userNotPresent: "user presence flag not set"
        case .userNotVerified: "user verification required but flag not set"
        case .invalidBackupFlags: "backed up without backup eligibility"
        case .attestedCredentialDataMismatch: "attested credential data present when not expected or absent when required"
        case .unsupportedKey: "unsupported credential key type or algorithm"
        case .invalidKey(let reason): "invalid credential key: \(reason)"
        case .unsupportedAttestationFormat: "unsupported attestation format"
        case .invalidAttestationStatement(let reason): "invalid attestation statement: \(reason)"
        case .invalidSignature: "invalid signature"
        case .invalidOptions(let field): "invalid options: field \(field)"
        case .noSupportedAlgorithm: "no supported algorithm in pubKeyCredParams"
        case .credentialExcluded: "authenticator holds an excluded credential"
        case .noCredential: "no credential for this relying party"
        case .crypto(let error): "crypto failure: \(error)"
        }
    }
}
