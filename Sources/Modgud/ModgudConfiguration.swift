import Core

/// How the gateway reaches Modgud and who it is there.
public struct ModgudConfiguration: Sendable {
    /// The realm's public URL (`https://id.example.com`), no trailing slash.
    public var baseURL: String
    /// The gateway's confidential login client (holds `cap:trusted-forwarder`).
    public var clientID: String
    public var clientSecret: Secret
    /// The second client, for `client_credentials` (Modgud forbids user
    /// grants and client_credentials on one client).
    public var machineClientID: String?
    public var machineClientSecret: Secret?
    /// Scopes asked for at sign-in.
    public var scopes: String
    /// The audiences (RFC 8707 `resource`) asked for at sign-in: the
    /// default one and every API route's, so that a refresh can later
    /// narrow a token to any of them (the magic-link grant takes none).
    /// Empty: Modgud's default audience.
    public var resources: [String]
    /// Total time allowed per call.
    public var timeout: Duration
    /// The largest answer read from Modgud.
    public var maxResponseBytes: Int

    public init(baseURL: String, clientID: String, clientSecret: Secret,
                machineClientID: String? = nil, machineClientSecret: Secret? = nil,
                scopes: String = "openid profile email offline_access", resources: [String] = [],
                timeout: Duration = .seconds(10), maxResponseBytes: Int = 256 * 1024) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.machineClientID = machineClientID
        self.machineClientSecret = machineClientSecret
        self.scopes = scopes
        self.resources = resources
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }
}
