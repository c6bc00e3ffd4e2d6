import Core

/// A successful `/connect/token` answer. Every token is a `Secret`.
public struct TokenSet: Sendable {
    public var accessToken: Secret
    public var tokenType: String
    /// Seconds the access token lives, as Modgud said.
    public var expiresIn: Int
    public var refreshToken: Secret?
    public var idToken: Secret?
    public var scope: String?

    public init(accessToken: Secret, tokenType: String = "Bearer", expiresIn: Int, refreshToken: Secret? = nil,
                idToken: Secret? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    /// Reads a token response; nil when it lacks an access token or a
    /// Bearer token type.
    /// The longest `expires_in` taken as sent; longer ones are cut to it.
    public static let maximumLifetimeSeconds = 366 * 86_400

    public init?(json: JSON) {
        guard let access = json["access_token"]?.stringValue, !access.isEmpty,
              let type = json["token_type"]?.stringValue, type.lowercased() == "bearer" else { return nil }
        accessToken = Secret(access)
        tokenType = type
        // At most a year: no arithmetic on an absurd lifetime can overflow.
        expiresIn = min(max(0, json["expires_in"]?.intValue ?? 0), Self.maximumLifetimeSeconds)
        refreshToken = json["refresh_token"]?.stringValue.map(Secret.init)
        idToken = json["id_token"]?.stringValue.map(Secret.init)
        scope = json["scope"]?.stringValue
    }
}
