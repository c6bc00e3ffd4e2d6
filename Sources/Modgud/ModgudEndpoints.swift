import Core

/// Modgud's endpoint URLs: from discovery when it answered, else the
/// documented paths under the base URL.
public struct ModgudEndpoints: Sendable, Equatable {
    public var issuer: String
    public var token: String
    public var userinfo: String
    public var revocation: String
    public var introspection: String
    public var jwks: String
    public var authorization: String
    public var otpRequest: String
    public var register: String
    public var magicLinkRequest: String
    public var appInfo: String
    public var passkeyBegin: String
    public var passkeyEnrollBegin: String
    public var passkeyEnroll: String
    public var passkeys: String

    /// The documented paths under `base`.
    public init(base: String) {
        issuer = base
        token = base + "/connect/token"
        userinfo = base + "/connect/userinfo"
        revocation = base + "/connect/revoke"
        introspection = base + "/connect/introspect"
        jwks = base + "/.well-known/jwks"
        authorization = base + "/connect/authorize"
        otpRequest = base + "/api/account/native/otp/request"
        register = base + "/api/account/native/register"
        magicLinkRequest = base + "/api/account/magic-link/request"
        appInfo = base + "/api/app-info"
        passkeyBegin = base + "/connect/passkey/begin"
        passkeyEnrollBegin = base + "/connect/passkey/enroll/begin"
        passkeyEnroll = base + "/connect/passkey/enroll"
        passkeys = base + "/connect/passkey"
    }

    /// The documented paths, with the OIDC ones taken from a discovery
    /// document where it names them. The non-OIDC endpoints (native sign-in,
    /// passkeys, app-info) are not in discovery and stay under the base.
    public init(base: String, discovery: JSON) {
        self.init(base: base)
        func url(_ key: String) -> String? {
            guard let value = discovery[key]?.stringValue, value.hasPrefix("http://") || value.hasPrefix("https://") else { return nil }
            return value
        }
        issuer = url("issuer") ?? issuer
        token = url("token_endpoint") ?? token
        userinfo = url("userinfo_endpoint") ?? userinfo
        revocation = url("revocation_endpoint") ?? revocation
        introspection = url("introspection_endpoint") ?? introspection
        jwks = url("jwks_uri") ?? jwks
        authorization = url("authorization_endpoint") ?? authorization
    }
}
