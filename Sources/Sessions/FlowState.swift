import Core

/// Pre-sign-in state kept server-side for one browser between two steps of
/// a sign-in (a passkey ceremony, an MFA continuation, later an
/// authorization-code flow), bound to that browser by the flow cookie and
/// taken (deleted) on first use.
public struct FlowState: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The grant this state belongs to (`urn:cocoar:passkey`,
    /// `urn:cocoar:otp`, …): a continuation for another grant is refused by
    /// the caller.
    public var grant: String
    /// A passkey ceremony id from `passkey/begin`.
    public var ceremonyID: Secret?
    /// Modgud's `mfa_token` from an `mfa_required` answer.
    public var mfaToken: Secret?
    /// Further named values for later flows (PKCE verifier, `state`,
    /// `nonce`, return path), all sealed like the rest.
    public var values: [String: Secret]
    /// When the record expires (Unix ms); set by `SessionManager.beginFlow`.
    public internal(set) var expiresAt: UInt64

    /// Flow state for `grant`.
    public init(grant: String, ceremonyID: Secret? = nil, mfaToken: Secret? = nil, values: [String: Secret] = [:]) {
        self.grant = grant
        self.ceremonyID = ceremonyID
        self.mfaToken = mfaToken
        self.values = values
        self.expiresAt = 0
    }

    /// The grant only.
    public var description: String { "FlowState(grant: \(grant))" }

    /// No children: nothing leaks through `dump` or reflection.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
