/// The flags byte of authenticator data (WebAuthn §6.1).
public struct AuthenticatorFlags: OptionSet, Sendable, Hashable {
    /// The flags byte as sent.
    public let rawValue: UInt8

    /// Wraps a flags byte; reserved bits are kept but mean nothing.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// UP: the user was present (touched, clicked, looked).
    public static let userPresent = AuthenticatorFlags(rawValue: 1 << 0)
    /// UV: the user was verified (biometrics, PIN).
    public static let userVerified = AuthenticatorFlags(rawValue: 1 << 2)
    /// BE: the credential may be backed up (synced passkey).
    public static let backupEligible = AuthenticatorFlags(rawValue: 1 << 3)
    /// BS: the credential is backed up now.
    public static let backedUp = AuthenticatorFlags(rawValue: 1 << 4)
    /// AT: attested credential data follows.
    public static let attestedCredentialData = AuthenticatorFlags(rawValue: 1 << 6)
    /// ED: extension data follows.
    public static let extensionData = AuthenticatorFlags(rawValue: 1 << 7)
}
