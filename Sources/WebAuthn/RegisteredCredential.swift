/// A credential that passed registration: what a relying party stores.
public struct RegisteredCredential: Sendable, Hashable {
    /// The credential id (`rawId`), to find the credential at sign-in.
    public let id: [UInt8]
    /// The credential public key; store ``COSEKey/bytes`` and read it back
    /// with `COSEKey(bytes:)`.
    public let publicKey: COSEKey
    /// The signature counter at registration; store it for the sign-count rule.
    public let signCount: UInt32
    /// The flags at registration (UV, BE, BS, …).
    public let flags: AuthenticatorFlags
    /// The authenticator model's AAGUID (16 bytes, often all zero).
    public let aaguid: [UInt8]
    /// What the attestation statement proved.
    public let attestation: AttestationKind
    /// `response.transports` as the client reported them (unverified hints).
    public let transports: [String]

    /// BE: the credential may be synced to other devices.
    public var isBackupEligible: Bool { flags.contains(.backupEligible) }
    /// BS: the credential is backed up now.
    public var isBackedUp: Bool { flags.contains(.backedUp) }
}
