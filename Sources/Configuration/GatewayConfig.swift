import Core

/// Everything the gateway was configured with, typed and validated.
///
/// Made by ``ConfigLoader/load(environment:configFile:)``; ``defaults`` is
/// the configuration with nothing set, for tests to start from and change.
/// Printing it (``description``, `dump`, interpolation) never shows a
/// secret: secrets are ``Secret`` values, and the Redis password too.
public struct GatewayConfig: Sendable {
    /// BFF_LISTEN: the public listener.
    public var listen: ListenAddress
    /// BFF_ADMIN_LISTEN: `/healthz`, `/readyz`, `/metrics`.
    public var adminListen: ListenAddress
    /// BFF_PUBLIC_ORIGIN: what `Origin` headers must equal.
    public var publicOrigin: WebOrigin
    /// BFF_MODGUD_URL: the identity server; nil until configured.
    public var modgudURL: HTTPURL?
    /// BFF_CLIENT_ID and BFF_CLIENT_SECRET, both or neither.
    public var client: ClientCredentials?
    /// BFF_REDIS_URL with BFF_REDIS_MODE and the other BFF_REDIS_*
    /// settings: the session store and how to reach it.
    public var redis: RedisEndpoint
    /// BFF_REDIS_PASSWORD_FILE: where ``RedisEndpoint/password`` was read
    /// from, for the summary; nil when it came from the URL or is unset.
    public var redisPasswordFile: String?
    /// BFF_REDIS_SENTINEL_PASSWORD_FILE: where
    /// ``RedisEndpoint/sentinelPassword`` was read from, for the summary.
    public var redisSentinelPasswordFile: String?
    /// BFF_TRUSTED_PROXIES: peers whose forwarding headers are believed.
    public var trustedProxies: [CIDR]
    /// BFF_ROUTES: API routes, in the order given.
    public var routes: [RouteConfig]
    /// BFF_ALLOW_HTTP_HOSTS: hosts beyond loopback that BFF_MODGUD_URL and
    /// route upstreams may reach over plain `http`; normalised (names in
    /// lower case, IP literals in canonical form).
    public var allowedHTTPHosts: [String] = []
    /// BFF_LOOPS: event-loop threads.
    public var eventLoops: Int
    /// BFF_MAX_CONNECTIONS.
    public var maxConnections: Int
    /// BFF_MAX_HEADER_BYTES: request line plus header section.
    public var maxHeaderBytes: Int
    /// BFF_MAX_BODY_BYTES: body limit of the gateway's own JSON endpoints.
    public var maxBodyBytes: Int
    /// BFF_HEADER_TIMEOUT_MS.
    public var headerTimeout: Duration
    /// BFF_BODY_TIMEOUT_MS.
    public var bodyTimeout: Duration
    /// BFF_IDLE_TIMEOUT_MS.
    public var idleTimeout: Duration
    /// BFF_WRITE_TIMEOUT_MS.
    public var writeTimeout: Duration
    /// BFF_SHUTDOWN_TIMEOUT_MS.
    public var shutdownTimeout: Duration
    /// BFF_LOG_LEVEL.
    public var logLevel: LogLevelSetting
    /// BFF_ACCESS_LOG.
    public var accessLog: Bool
    /// BFF_AUDIT_LOG: where the audit trail goes.
    public var auditLog: AuditLogDestination = .standardOutput
    /// BFF_AUDIT_EMAIL: whether audit lines name e-mail addresses.
    public var auditEmail = false
    /// BFF_STATIC_ROOT: the directory of static files; nil serves none.
    public var staticRoot: String?
    /// BFF_STATIC_FALLBACK: the single-page app's file below the root; nil when off.
    public var staticFallback: String? = "index.html"
    /// BFF_STATIC_HTML_HEADERS: the security fields of static HTML answers, in order.
    public var staticHTMLHeaders: [HeaderField] = HeaderField.staticHTMLDefaults
    /// BFF_STATIC_REVALIDATE_MS: how long a cached static file is served before `stat` checks it again.
    public var staticRevalidate: Duration = .seconds(1)
    /// BFF_FORWARDED_HEADER: which header trusted proxies set.
    public var forwardedHeader: String = "x-forwarded-for"
    /// BFF_MODGUD_TIMEOUT_MS: total time per call to Modgud.
    public var modgudTimeout: Duration = .seconds(10)
    /// BFF_MODGUD_CA_FILE: extra trust anchors for Modgud's TLS certificate.
    public var modgudCAFile: String?
    /// BFF_SCOPES: scopes asked for at sign-in.
    public var scopes: String = "openid profile email offline_access"
    /// BFF_RESOURCE: the default audience (RFC 8707).
    public var resource: String?
    /// BFF_SESSION_COOKIE: the session cookie's name.
    public var sessionCookie: String = "__Host-bff"
    /// BFF_ALLOW_INSECURE_COOKIE_NAME: a session cookie name without the
    /// `__Host-` prefix is accepted (and a caution logged at every start).
    public var allowInsecureCookieName: Bool = false
    /// BFF_SESSION_IDLE_TIMEOUT_S.
    public var sessionIdleTimeout: Duration = .seconds(1800)
    /// BFF_SESSION_ABSOLUTE_TIMEOUT_S.
    public var sessionAbsoluteTimeout: Duration = .seconds(43200)
    /// BFF_SESSION_CACHE_STALENESS_MS; zero turns the session cache off.
    public var sessionCacheStaleness: Duration = .seconds(1)
    /// BFF_M2M_CLIENT_ID and BFF_M2M_CLIENT_SECRET, both or neither.
    public var machineClient: ClientCredentials?
    /// BFF_REFRESH_SKEW_S.
    public var refreshSkew: Duration = .seconds(60)
    /// BFF_REFRESH_REUSE_LEEWAY_S.
    public var refreshReuseLeeway: Duration = .zero
    /// BFF_UPSTREAM_TIMEOUT_MS.
    public var upstreamTimeout: Duration = .seconds(30)
    /// BFF_BODY_MIN_RATE: bytes per second; 0 turns the body deadline off.
    public var bodyMinRate: Int = 500
    /// BFF_BODY_RATE_GRACE_MS.
    public var bodyRateGrace: Duration = .seconds(20)
    /// BFF_PROXY_MAX_BODY_BYTES: body limit of a route without its own.
    public var proxyMaxBodyBytes: Int = 10 << 20
    /// BFF_LISTEN_MODE: a `unix:` listener's permission bits.
    public var listenMode: UInt32 = 0o660
    /// BFF_LISTEN_GROUP: a `unix:` listener's group (name or id); nil
    /// keeps the process's group.
    public var listenGroup: String?
    /// BFF_MAX_CONNECTIONS_PER_ADDRESS; 0 turns the cap off.
    public var maxConnectionsPerAddress: Int = 256
    /// BFF_CODE_FLOW: `/bff/login` and `/bff/callback` are served.
    public var codeFlow: Bool = true
    /// BFF_SIGNIN_ERROR_PATH: a same-origin path (`ReturnPath`).
    public var signInErrorPath: String = "/"
    /// BFF_POST_LOGOUT_REDIRECT_URI as given; nil: ``postLogoutRedirect``
    /// is the public origin's `/`.
    public var postLogoutRedirectURI: String?
    /// BFF_ID_TOKEN_SKEW_S.
    public var idTokenSkew: Duration = .seconds(60)
    /// BFF_APP_CALLBACK_URI (with BFF_APP_NAME, BFF_APP_ANDROID_PACKAGE) or
    /// BFF_APPS: the native apps of the hand-off; empty: no hand-off.
    public var apps: [AppLoginApp] = []
    /// BFF_APP_LOGIN_START_RATE; nil: off.
    public var appLoginStartRate: RateLimit? = RateLimit(count: 60, period: .seconds(60), burst: 30)
    /// BFF_APP_LOGIN_SESSION_RATE; nil: off.
    public var appLoginSessionRate: RateLimit? = RateLimit(count: 10, period: .seconds(60), burst: 10)
    /// The hand-off's times, fixed by its contract (not settings; tests shorten them).
    public var appLoginTimes = AppLoginTimes()
    /// BFF_CROSS_DEVICE: `/bff/cross-device/*` are served.
    public var crossDevice: Bool = false

    /// Where Modgud's end-session page sends the browser.
    public var postLogoutRedirect: String { postLogoutRedirectURI ?? publicOrigin.description + "/" }

    /// The code flow's redirect URI: `<public origin>/bff/callback`.
    public var redirectURI: String { publicOrigin.description + "/bff/callback" }

    /// The prefix browsers honour only on a cookie that is `Secure`, has
    /// `Path=/` and no `Domain` (RFC 6265bis): one no sibling subdomain and
    /// no plain-http page can set or shadow.
    public static let hostCookiePrefix = "__Host-"

    /// Whether the session cookie's name lacks ``hostCookiePrefix``.
    public var sessionCookieLacksHostPrefix: Bool { !sessionCookie.hasPrefix(Self.hostCookiePrefix) }

    /// The configuration with nothing set: every table default.
    public static var defaults: GatewayConfig {
        switch ConfigLoader.load(environment: [:], configFile: nil) {
        case .success(let config): return config
        case .failure(let errors): preconditionFailure("the built-in defaults are invalid: \(errors)")
        }
    }

    /// The route whose prefix is the longest one `path` starts with.
    public func route(for path: some StringProtocol) -> RouteConfig? {
        routes.filter { $0.matches(path: path) }.max { $0.prefix.count < $1.prefix.count }
    }
}

/// The gateway's client at Modgud. Prints as `id (secret <redacted>)`.
public struct ClientCredentials: Sendable, Hashable, CustomStringConvertible {
    public var id: String
    public var secret: Secret

    public init(id: String, secret: Secret) {
        self.id = id
        self.secret = secret
    }

    public var description: String { "\(id) (secret \(secret))" }
}
