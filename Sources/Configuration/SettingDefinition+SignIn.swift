extension SettingDefinition {
    public static let forwardedHeader = SettingDefinition(
        "BFF_FORWARDED_HEADER", kind: .choice(["x-forwarded-for", "forwarded"]), default: .value("x-forwarded-for"),
        summary: "The header a trusted proxy puts the client address in; only this one is read.")
    public static let modgudTimeout = SettingDefinition(
        "BFF_MODGUD_TIMEOUT_MS", kind: .integer(100...120_000), default: .value("10000"),
        summary: "Total time allowed per call to Modgud; past it the browser gets 504.")
    public static let modgudCAFile = SettingDefinition(
        "BFF_MODGUD_CA_FILE", kind: .text, default: .unset,
        summary: "A PEM file of CA certificates to trust for Modgud's TLS (a private CA); verification stays on.")
    public static let scopes = SettingDefinition(
        "BFF_SCOPES", kind: .text, default: .value("openid profile email offline_access"),
        summary: "Scopes asked for at sign-in, space-separated; `offline_access` is needed for a refresh token.")
    public static let resource = SettingDefinition(
        "BFF_RESOURCE", kind: .text, default: .unset,
        summary: "The default audience (RFC 8707 `resource`): a user route without its own resource gets a token narrowed to it; required when user routes with and without one are mixed.")
    public static let sessionCookie = SettingDefinition(
        "BFF_SESSION_COOKIE", kind: .text, default: .value("__Host-bff"),
        summary: "Name of the session cookie; must start with `__Host-` unless BFF_ALLOW_INSECURE_COOKIE_NAME is true.")
    public static let allowInsecureCookieName = SettingDefinition(
        "BFF_ALLOW_INSECURE_COOKIE_NAME", kind: .boolean, default: .value("false"),
        summary: "Accept a BFF_SESSION_COOKIE without the `__Host-` prefix; a caution is logged at every start.")
    public static let sessionIdleTimeout = SettingDefinition(
        "BFF_SESSION_IDLE_TIMEOUT_S", kind: .integer(60...86_400), default: .value("1800"),
        summary: "Seconds a session lives without use; renewed on use.")
    public static let sessionAbsoluteTimeout = SettingDefinition(
        "BFF_SESSION_ABSOLUTE_TIMEOUT_S", kind: .integer(300...2_592_000), default: .value("43200"),
        summary: "Seconds a session lives at most after sign-in (never beyond the refresh token).")
    public static let sessionCacheStaleness = SettingDefinition(
        "BFF_SESSION_CACHE_STALENESS_MS", kind: .integer(0...10_000), default: .value("1000"),
        summary: "Between idle renewals, a session is served from memory that Redis's invalidations keep "
            + "current (`CLIENT TRACKING`); should the tracking connection stall, nothing older than this many "
            + "milliseconds is served. 0 reads Redis on every request; otherwise at least 100.")
    public static let machineClientID = SettingDefinition(
        "BFF_M2M_CLIENT_ID", kind: .text, default: .unset,
        summary: "A second Modgud client holding `client_credentials`, for routes with token `client` "
            + "(Modgud keeps user grants and client credentials on separate clients); needs BFF_M2M_CLIENT_SECRET.")
    public static let machineClientSecret = SettingDefinition(
        "BFF_M2M_CLIENT_SECRET", kind: .text, default: .unset,
        summary: "The secret of BFF_M2M_CLIENT_ID. Never printed.", isSecret: true)
    public static let refreshSkew = SettingDefinition(
        "BFF_REFRESH_SKEW_S", kind: .integer(0...3600), default: .value("60"),
        summary: "An access token this close to its expiry is refreshed before use.")
    public static let refreshReuseLeeway = SettingDefinition(
        "BFF_REFRESH_REUSE_LEEWAY_S", kind: .integer(0...300), default: .value("0"),
        summary: "Modgud's refresh-token reuse leeway. After a refresh whose outcome is unknown (a timeout "
            + "after sending), the same refresh token is sent again only within this many seconds; past it "
            + "the session ends rather than risk a replay that revokes the token family.")
    public static let upstreamTimeout = SettingDefinition(
        "BFF_UPSTREAM_TIMEOUT_MS", kind: .integer(100...3_600_000), default: .value("30000"),
        summary: "Proxied API calls: the longest wait for the upstream's answer head, and then between "
            + "pieces of either body; past it the browser gets 504.")
}
