import Core

/// What the gateway knows about a signed-in user: the subject, the user's
/// claims as Modgud's userinfo returned them, and the tokens. This is the
/// content sealed into the session record.
///
/// Printing it shows no content (claims and subjects are personal data).
public struct SessionData: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The user's subject identifier (`sub`).
    public var subject: String
    /// The user's claims: the userinfo JSON body, stored as given.
    public var claims: [UInt8]
    /// The OpenID Connect session id (`sid`), for back-channel logout.
    public var sid: String?
    /// How the user signed in; nil when the record does not say (records
    /// of formats 1 and 2).
    public var method: SignInMethod?
    /// The tokens.
    public var tokens: SessionTokens

    /// Session content.
    public init(subject: String, claims: [UInt8], sid: String? = nil, method: SignInMethod? = nil, tokens: SessionTokens) {
        self.subject = subject
        self.claims = claims
        self.sid = sid
        self.method = method
        self.tokens = tokens
    }

    /// Sizes only.
    public var description: String {
        "SessionData(claims: \(claims.count) bytes, resources: \(tokens.resources.count))"
    }

    /// No children: nothing leaks through `dump` or reflection.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
