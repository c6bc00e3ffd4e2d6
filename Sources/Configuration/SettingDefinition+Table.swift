extension SettingDefinition {
    /// Every setting, in the order the reference lists them.
    public static let all: [SettingDefinition] = [
        listen, adminListen, listenMode, listenGroup, publicOrigin, modgudURL, clientID, clientSecret,
        redisMode, redisURL, redisPasswordFile, redisSentinelMaster, redisSentinelUsername, redisSentinelPasswordFile,
        redisCAFile, redisCertFile, redisKeyFile, redisTLSServerName, redisWaitReplicas, redisWaitTimeout, trustedProxies,
        routes, allowHTTPHosts, loops, maxConnections, maxHeaderBytes, maxBodyBytes, headerTimeout, bodyTimeout,
        idleTimeout, writeTimeout, shutdownTimeout, logLevel, accessLog, auditLog, auditEmail,
        forwardedHeader, modgudTimeout, modgudCAFile, scopes, resource, sessionCookie, allowInsecureCookieName, sessionIdleTimeout,
        sessionAbsoluteTimeout, sessionCacheStaleness, machineClientID, machineClientSecret, refreshSkew, refreshReuseLeeway, upstreamTimeout,
        bodyMinRate, bodyRateGrace, proxyMaxBodyBytes, maxConnectionsPerAddress,
        codeFlow, signInErrorPath, postLogoutRedirectURI, idTokenSkew,
        appCallbackURI, appName, appAndroidPackage, apps, appLoginStartRate, appLoginSessionRate,
        crossDevice, staticRoot, staticFallback, staticHTMLHeaders, staticRevalidate,
    ]

    /// The row for an environment variable name, if there is one.
    public static func named(_ name: String) -> SettingDefinition? { byName[name] }

    /// The row for a JSON key, if there is one.
    public static func forJSONKey(_ key: String) -> SettingDefinition? { byJSONKey[key] }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
    private static let byJSONKey = Dictionary(uniqueKeysWithValues: all.map { ($0.jsonKey, $0) })

    public static let listen = SettingDefinition(
        "BFF_LISTEN", kind: .text, default: .value("127.0.0.1:8080"),
        summary: "Address of the public listener: `host:port`, `[IPv6]:port`, `localhost:port`, or "
            + "`unix:/absolute/path` (a Unix-domain socket: every peer on it is the reverse proxy).")
    public static let adminListen = SettingDefinition(
        "BFF_ADMIN_LISTEN", kind: .text, default: .value("127.0.0.1:9090"),
        summary: "Address of the admin listener (`/healthz`, `/readyz`, `/metrics`), in BFF_LISTEN's forms; "
            + "must differ from BFF_LISTEN.")
    public static let publicOrigin = SettingDefinition(
        "BFF_PUBLIC_ORIGIN", kind: .text, default: .value("http://localhost:8080"),
        summary: "The origin browsers use (scheme, host, optional port; no path). "
            + "`http` only for localhost and loopback addresses, since the session cookie is `Secure`.")
    public static let modgudURL = SettingDefinition(
        "BFF_MODGUD_URL", kind: .url, default: .unset,
        summary: "Base URL of the Modgud identity server (absolute `https`, no user info, query or fragment); "
            + "`http` only for loopback hosts and those in BFF_ALLOW_HTTP_HOSTS.")
    public static let clientID = SettingDefinition(
        "BFF_CLIENT_ID", kind: .text, default: .unset,
        summary: "The gateway's client id at Modgud; needs BFF_CLIENT_SECRET.")
    public static let clientSecret = SettingDefinition(
        "BFF_CLIENT_SECRET", kind: .text, default: .unset,
        summary: "The gateway's client secret at Modgud; needs BFF_CLIENT_ID. Never printed.", isSecret: true)
    public static let trustedProxies = SettingDefinition(
        "BFF_TRUSTED_PROXIES", kind: .list, default: .value(""),
        summary: "Networks (CIDR or bare addresses) of reverse proxies whose `X-Forwarded-For`/`Forwarded` "
            + "is believed.")
    public static let routes = SettingDefinition(
        "BFF_ROUTES", kind: .jsonArray, default: .value("[]"),
        summary: "API routes: a JSON array of `{prefix, upstream, token, resource?, methods?, maxBodyBytes?}` "
            + "(see Docs/configuration.md).")
    public static let allowHTTPHosts = SettingDefinition(
        "BFF_ALLOW_HTTP_HOSTS", kind: .list, default: .value(""),
        summary: "Hosts (names or addresses) that BFF_MODGUD_URL and route upstreams may reach over plain `http` "
            + "though not loopback; every other `http` host is refused. Logged as a caution at every start.")
    public static let loops = SettingDefinition(
        "BFF_LOOPS", kind: .integer(1...64), default: .computed("processors the process may run on (its affinity mask), at most 64"),
        summary: "Event-loop threads.")
    public static let maxConnections = SettingDefinition(
        "BFF_MAX_CONNECTIONS", kind: .integer(1...1_048_576), default: .value("16384"),
        summary: "Open client connections at most; beyond it new connections wait in the kernel's backlog.")
    public static let maxHeaderBytes = SettingDefinition(
        "BFF_MAX_HEADER_BYTES", kind: .integer(1024...1_048_576), default: .value("16384"),
        summary: "Largest request line plus header section; larger requests get 431.")
    public static let maxBodyBytes = SettingDefinition(
        "BFF_MAX_BODY_BYTES", kind: .integer(1024...67_108_864), default: .value("65536"),
        summary: "Largest request body for the gateway's own JSON endpoints; larger bodies get 413.")
    public static let headerTimeout = SettingDefinition(
        "BFF_HEADER_TIMEOUT_MS", kind: .integer(100...3_600_000), default: .value("10000"),
        summary: "Time allowed to receive a request's header section (slowloris guard).")
    public static let bodyTimeout = SettingDefinition(
        "BFF_BODY_TIMEOUT_MS", kind: .integer(100...3_600_000), default: .value("30000"),
        summary: "Time allowed between pieces of a request body.")
    public static let idleTimeout = SettingDefinition(
        "BFF_IDLE_TIMEOUT_MS", kind: .integer(100...3_600_000), default: .value("60000"),
        summary: "How long an idle keep-alive connection is kept open.")
    public static let writeTimeout = SettingDefinition(
        "BFF_WRITE_TIMEOUT_MS", kind: .integer(100...3_600_000), default: .value("30000"),
        summary: "Time allowed for a client to take response bytes before the connection is closed.")
    public static let shutdownTimeout = SettingDefinition(
        "BFF_SHUTDOWN_TIMEOUT_MS", kind: .integer(0...3_600_000), default: .value("15000"),
        summary: "On SIGTERM/SIGINT, how long in-flight requests may run before connections are closed.")
    public static let logLevel = SettingDefinition(
        "BFF_LOG_LEVEL", kind: .choice(LogLevelSetting.allCases.map(\.rawValue)), default: .value("info"),
        summary: "Lowest level of log line written.")
    public static let accessLog = SettingDefinition(
        "BFF_ACCESS_LOG", kind: .boolean, default: .value("true"),
        summary: "Write one `http.access` line per request.")
}
