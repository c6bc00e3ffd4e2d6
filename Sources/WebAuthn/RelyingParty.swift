/// A WebAuthn relying party: who it is, which origins may act for it, and
/// what it demands of a ceremony. Verification lives in
/// `RelyingParty+Registration.swift` and `RelyingParty+Assertion.swift`.
///
/// Origins match byte for byte (no case folding, no Unicode
/// normalization, no default-port or trailing-slash games), so
/// `https://app.example.com` admits neither `https://app.example.com:443`
/// nor `https://APP.example.com`. List every form a client really sends:
/// the web origin, native app origins such as `android:apk-key-hash:…`.
public struct RelyingParty: Sendable, Hashable {
    /// The RP ID: a domain (`app.example.com`), hashed into authenticator data.
    public var id: String
    /// A name for people, shown by some authenticators at registration.
    public var name: String
    /// The origins a ceremony's client data may carry.
    public var allowedOrigins: [String]
    /// Whether the UV flag is required.
    public var userVerification: UserVerificationRequirement
    /// Which attestation statements registration accepts.
    public var attestationPolicy: AttestationPolicy

    /// A relying party with `https://<id>` as its only origin unless
    /// `allowedOrigins` says otherwise, user verification required, and
    /// only `none` or self-attestation accepted.
    public init(id: String, name: String, allowedOrigins: [String]? = nil,
                userVerification: UserVerificationRequirement = .required,
                attestationPolicy: AttestationPolicy = .noneOrSelf) {
        self.id = id
        self.name = name
        self.allowedOrigins = allowedOrigins ?? ["https://\(id)"]
        self.userVerification = userVerification
        self.attestationPolicy = attestationPolicy
    }

    /// Checks the flags every ceremony shares: RP ID hash, UP, UV when
    /// required, and BS only with BE.
    func verifyCommon(_ authenticatorData: AuthenticatorData) throws(WebAuthnError) {
        guard authenticatorData.matches(rpId: id) else { throw .rpIdMismatch }
        let flags = authenticatorData.flags
        guard flags.contains(.userPresent) else { throw .userNotPresent }
        if userVerification == .required {
            guard flags.contains(.userVerified) else { throw .userNotVerified }
        }
        if flags.contains(.backedUp) {
            guard flags.contains(.backupEligible) else { throw .invalidBackupFlags }
        }
    }
}
