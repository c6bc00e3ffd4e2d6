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
    /// The end-session endpoint (RP-initiated logout, `id_token_hint` required).
    public var endSession: String
    /// The pushed authorization request endpoint (RFC 9126), only when
    /// discovery advertises one on the base URL's own origin (the call
    /// carries the client secret).
    public var pushedAuthorization: String?
    /// The device authorization endpoint (RFC 8628), on the base URL's own
    /// origin (the call carries the client secret).
    public var deviceAuthorization: String
    /// Discovery's `backchannel_logout_supported`.
    public var backchannelLogoutSupported = false
    /// Discovery's `backchannel_logout_session_supported`: logout tokens carry `sid`.
    public var backchannelLogoutSessionSupported = false
    public var otpRequest: String
    public var register: String
    public var magicLinkRequest: String
    public var appInfo: String
    public var passkeyBegin: String
    public var passkeyEnrollBegin: String
    public var passkeyEnroll: String
    public var passkeys: String
    /// Discovery keys whose URL was not adopted: a secret-bearing endpoint
    /// on another scheme, host or port than the base URL.
    public var ignored: [String] = []

    /// The documented paths under `base`.
    public init(base: String) {
        issuer = base
        token = base + "/connect/token"
        userinfo = base + "/connect/userinfo"
        revocation = base + "/connect/revoke"
        introspection = base + "/connect/introspect"
        jwks = base + "/.well-known/jwks"
        authorization = base + "/connect/authorize"
        endSession = base + "/connect/logout"
        deviceAuthorization = base + "/connect/device"
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
    ///
    /// The endpoints the gateway calls with its client secret or a user's
    /// token (token, userinfo, revocation, introspection, pushed
    /// authorization) are adopted only
    /// on the base URL's own scheme, host and port: a document naming
    /// `http://` behind a TLS-terminating balancer, or another host, would
    /// otherwise send the secret and refresh tokens there. Such a URL is
    /// left out (`ignored`) and the documented path under the base used.
    public init(base: String, discovery: JSON) {
        self.init(base: base)
        let origin = Self.origin(of: base)
        var ignored: [String] = []
        func url(_ key: String, sameOrigin: Bool = false) -> String? {
            guard let value = discovery[key]?.stringValue, value.hasPrefix("http://") || value.hasPrefix("https://") else { return nil }
            guard !sameOrigin || Self.origin(of: value) == origin else {
                ignored.append(key)
                return nil
            }
            return value
        }
        issuer = url("issuer") ?? issuer
        token = url("token_endpoint", sameOrigin: true) ?? token
        userinfo = url("userinfo_endpoint", sameOrigin: true) ?? userinfo
        revocation = url("revocation_endpoint", sameOrigin: true) ?? revocation
        introspection = url("introspection_endpoint", sameOrigin: true) ?? introspection
        jwks = url("jwks_uri") ?? jwks
        authorization = url("authorization_endpoint") ?? authorization
        endSession = url("end_session_endpoint") ?? endSession
        pushedAuthorization = url("pushed_authorization_request_endpoint", sameOrigin: true)
        deviceAuthorization = url("device_authorization_endpoint", sameOrigin: true) ?? deviceAuthorization
        backchannelLogoutSupported = discovery["backchannel_logout_supported"]?.boolValue ?? false
        backchannelLogoutSessionSupported = discovery["backchannel_logout_session_supported"]?.boolValue ?? false
        self.ignored = ignored
    }

    /// `scheme://authority` of `url` (an `http` or `https` URL), lower-cased.
    static func origin(of url: String) -> String {
        let bytes = Array(url.utf8)
        let slashes = Array("://".utf8)
        guard let schemeEnd = (0...max(0, bytes.count - slashes.count)).first(where: {
            bytes[$0...].starts(with: slashes)
        }) else { return url.lowercased() }
        let authorityStart = schemeEnd + slashes.count
        let end = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
        return String(decoding: bytes[..<(end ?? bytes.count)], as: UTF8.self).lowercased()
    }
}
