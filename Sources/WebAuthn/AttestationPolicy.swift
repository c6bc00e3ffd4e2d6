/// Which attestation statements a registration accepts.
///
/// Whatever the policy, a `packed` statement without a certificate chain
/// (self-attestation) is verified, and one whose signature fails is refused.
public enum AttestationPolicy: Sendable, Hashable {
    /// Only `none` (an empty statement) and `packed` self-attestation.
    /// Every other format, and `packed` with a certificate chain (`x5c`),
    /// is refused. The default: our options ask for `attestation: "none"`,
    /// so a conforming client sends `none`.
    case noneOrSelf
    /// As ``noneOrSelf``, but a statement this target cannot verify
    /// (another format, or `packed` with `x5c`) is accepted without being
    /// checked and reported as ``AttestationKind/unverified``: the
    /// credential key is still bound by the assertion signatures that
    /// follow, only the authenticator model stays unproven. For clients
    /// that ignore `attestation: "none"`.
    case acceptUnverified
}

/// What a registration's attestation statement proved.
public enum AttestationKind: Sendable, Hashable {
    /// Format `none`: nothing about the authenticator.
    case none
    /// Format `packed` without `x5c`: the credential key signed its own
    /// creation. Proves possession of the key, not the authenticator model.
    case selfAttestation
    /// A statement accepted unchecked under ``AttestationPolicy/acceptUnverified``.
    case unverified
}
