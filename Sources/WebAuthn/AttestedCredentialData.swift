/// The credential a registration creates, as it appears inside
/// authenticator data when the AT flag is set (WebAuthn §6.5.2).
public struct AttestedCredentialData: Sendable, Hashable {
    /// The authenticator model's AAGUID (16 bytes; all zero under `none`
    /// attestation and for many platform authenticators).
    public let aaguid: [UInt8]
    /// The credential id (1–1023 bytes).
    public let credentialId: [UInt8]
    /// The credential public key.
    public let publicKey: COSEKey

    /// The longest credential id WebAuthn allows.
    public static let maxCredentialIdLength = 1023

    /// Assembles attested credential data; used by the software authenticator.
    public init(aaguid: [UInt8], credentialId: [UInt8], publicKey: COSEKey) {
        self.aaguid = aaguid
        self.credentialId = credentialId
        self.publicKey = publicKey
    }

    /// `aaguid ‖ length (2 bytes, big-endian) ‖ credentialId ‖ COSE key`.
    public var encoded: [UInt8] {
        aaguid + [UInt8(truncatingIfNeeded: credentialId.count >> 8), UInt8(truncatingIfNeeded: credentialId.count)]
            + credentialId + publicKey.bytes
    }
}
