/// Grant-type names the simulator knows.
public enum GrantType {
    /// E-mailed one-time code.
    public static let otp = "urn:cocoar:otp"
    /// Magic link.
    public static let magic = "urn:cocoar:magic"
    /// WebAuthn assertion.
    public static let passkey = "urn:cocoar:passkey"
    /// Rotating refresh tokens.
    public static let refreshToken = "refresh_token"
    /// Machine-to-machine.
    public static let clientCredentials = "client_credentials"
    /// Code flow with PKCE S256.
    public static let authorizationCode = "authorization_code"
    /// The device authorization grant (RFC 8628).
    public static let deviceCode = "urn:ietf:params:oauth:grant-type:device_code"

    /// Every grant the token endpoint implements.
    public static let all = [otp, magic, passkey, refreshToken, clientCredentials, authorizationCode, deviceCode]
    /// The native passwordless grants behind the realm switch.
    public static let native = [otp, magic, passkey]
}

/// The capability that lets a confidential client forward its user's address.
public let trustedForwarderCapability = "cap:trusted-forwarder"

/// An OAuth client registered at the simulator.
public struct ClientRegistration: Sendable, Equatable {
    /// The `client_id`.
    public var id: String
    /// Nil for a public client (identified by `client_id` alone).
    public var secret: String?
    /// Grant types (`gt:` permissions) the client holds.
    public var grants: [String]
    /// Capabilities (`cap:` permissions), e.g. `cap:trusted-forwarder`.
    public var capabilities: [String]
    /// The WebAuthn RP-ID for this client's passkey ceremonies; nil makes
    /// `/connect/passkey/begin` answer 503 `Passkey.Unavailable`.
    public var rpId: String?
    /// Origins accepted in a passkey's client data.
    public var origins: [String]
    /// Registered redirect URIs for the authorization-code flow.
    public var redirectUris: [String]
    /// Registered post-logout redirect URIs.
    public var postLogoutRedirectUris: [String]
    /// Audiences (`resource=`) the client may ask for; nil accepts any
    /// absolute URI.
    public var resources: [String]?
    /// Overrides the realm's access-token lifetime for this client.
    public var accessTokenLifetimeSeconds: Int?
    /// Where back-channel logout tokens are POSTed; nil: none are sent.
    public var backchannelLogoutUri: String?
    /// Whether the client's logout tokens carry `sid` (default true).
    public var backchannelLogoutSessionRequired: Bool = true

    /// A client; public unless it has a secret.
    public init(id: String, secret: String? = nil, grants: [String], capabilities: [String] = [],
                rpId: String? = nil, origins: [String] = [], redirectUris: [String] = [],
                postLogoutRedirectUris: [String] = [], resources: [String]? = nil,
                accessTokenLifetimeSeconds: Int? = nil, backchannelLogoutUri: String? = nil,
                backchannelLogoutSessionRequired: Bool = true) {
        self.id = id
        self.secret = secret
        self.grants = grants
        self.capabilities = capabilities
        self.rpId = rpId
        self.origins = origins
        self.redirectUris = redirectUris
        self.postLogoutRedirectUris = postLogoutRedirectUris
        self.resources = resources
        self.accessTokenLifetimeSeconds = accessTokenLifetimeSeconds
        self.backchannelLogoutUri = backchannelLogoutUri
        self.backchannelLogoutSessionRequired = backchannelLogoutSessionRequired
    }

    /// Has a secret.
    public var isConfidential: Bool { secret != nil }

    /// Whether the client holds the `gt:` permission for `grant`.
    public func holds(_ grant: String) -> Bool { grants.contains(grant) }

    /// Confidential and holding `cap:trusted-forwarder`.
    public var isTrustedForwarder: Bool { isConfidential && capabilities.contains(trustedForwarderCapability) }

    /// `bff` (the gateway's user-flow client), `bff-m2m` (its
    /// client-credentials client) and `native` (a public app).
    public static let defaults: [ClientRegistration] = [
        ClientRegistration(
            id: "bff", secret: "bff-secret",
            grants: [GrantType.otp, GrantType.magic, GrantType.passkey, GrantType.refreshToken, GrantType.authorizationCode,
                     GrantType.deviceCode],
            capabilities: [trustedForwarderCapability], rpId: "localhost",
            origins: ["http://localhost:8080", "https://localhost:8443", "https://localhost"],
            redirectUris: ["http://localhost:8080/bff/callback", "https://localhost:8443/bff/callback"],
            postLogoutRedirectUris: ["http://localhost:8080/", "https://localhost:8443/"],
            backchannelLogoutUri: "http://localhost:8080/bff/backchannel-logout"),
        ClientRegistration(id: "bff-m2m", secret: "bff-m2m-secret", grants: [GrantType.clientCredentials]),
        ClientRegistration(
            id: "native", grants: [GrantType.otp, GrantType.magic, GrantType.passkey, GrantType.refreshToken],
            rpId: "localhost", origins: ["https://localhost"]),
    ]
}
