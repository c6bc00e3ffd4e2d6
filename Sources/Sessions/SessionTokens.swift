import Core

/// The tokens a session holds for its user; they never leave the gateway
/// except towards Modgud and the configured APIs. Times are Unix ms.
public struct SessionTokens: Sendable, Hashable {
    /// An access token for one RFC 8707 resource (audience).
    public struct ResourceToken: Sendable, Hashable {
        /// The access token for that resource.
        public var accessToken: Secret
        /// When it expires (Unix ms), if known.
        public var expiresAt: UInt64?

        /// A token for one resource.
        public init(accessToken: Secret, expiresAt: UInt64?) {
            self.accessToken = accessToken
            self.expiresAt = expiresAt
        }
    }

    /// The access token for the default audience.
    public var accessToken: Secret
    /// When `accessToken` expires (Unix ms), if known.
    public var accessTokenExpiresAt: UInt64?
    /// The refresh token, if Modgud issued one.
    public var refreshToken: Secret?
    /// When the refresh token expires (Unix ms), if known: the session's
    /// absolute expiry never reaches past it.
    public var refreshTokenExpiresAt: UInt64?
    /// The id token, if any (kept for logout and `sid`).
    public var idToken: Secret?
    /// The granted scope, space-separated.
    public var scope: String
    /// Access tokens per RFC 8707 resource, kept apart from the default one.
    public var resources: [String: ResourceToken]
    /// When a refresh whose outcome is unknown (a timeout after sending)
    /// was sent (Unix ms): Modgud may have rotated `refreshToken` already,
    /// so it is sent again only within Modgud's reuse leeway.
    public var refreshOutcomeUnknownSince: UInt64?

    /// A token set.
    public init(
        accessToken: Secret, accessTokenExpiresAt: UInt64? = nil,
        refreshToken: Secret? = nil, refreshTokenExpiresAt: UInt64? = nil,
        idToken: Secret? = nil, scope: String = "", resources: [String: ResourceToken] = [:],
        refreshOutcomeUnknownSince: UInt64? = nil
    ) {
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.idToken = idToken
        self.scope = scope
        self.resources = resources
        self.refreshOutcomeUnknownSince = refreshOutcomeUnknownSince
    }
}
