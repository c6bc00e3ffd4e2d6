/// How much the relying party asks of user verification (WebAuthn §5.8.6).
public enum UserVerificationRequirement: String, Sendable, Hashable, CaseIterable {
    /// The UV flag must be set; ceremonies without it are refused.
    case required
    /// Asked for, not enforced.
    case preferred
    /// Not asked for, not enforced.
    case discouraged
}
