/// What the signature counter says about an assertion (WebAuthn §6.1.1).
public enum SignCountStatus: Sendable, Hashable {
    /// Both the stored and the new counter are zero: the authenticator
    /// keeps no counter (synced passkeys never do).
    case notSupported
    /// The new counter is greater than the stored one: store the new one.
    case advanced
    /// A counter is in use and the new one is not greater than the stored
    /// one: a sign that the credential may have been cloned. The signature
    /// is valid; the relying party decides whether to refuse, warn or
    /// flag the account.
    case possibleClone
}

/// An assertion that passed verification.
public struct VerifiedAssertion: Sendable, Hashable {
    /// The credential id (`rawId`).
    public let credentialId: [UInt8]
    /// `response.userHandle`, if the client sent one. The signature does
    /// not cover it: the relying party must check that it is the user the
    /// credential was registered to.
    public let userHandle: [UInt8]?
    /// The new signature counter.
    public let signCount: UInt32
    /// How ``signCount`` compares with the stored counter.
    public let signCountStatus: SignCountStatus
    /// The flags of this assertion (UV, BE, BS, …).
    public let flags: AuthenticatorFlags

    /// UV was set.
    public var isUserVerified: Bool { flags.contains(.userVerified) }
    /// BS: the credential is backed up now (it may change over time).
    public var isBackedUp: Bool { flags.contains(.backedUp) }
}
