import Core
import System

/// Everything the simulator can be told, with every default in one place.
///
/// Read from a JSON file, `SIM_*` environment variables and command-line
/// flags (see `SimulatorConfig+Loading.swift`), and changed at run time by
/// `POST /dev/config` (see `SimulatorConfig+JSON.swift`). Durations are in
/// seconds (or milliseconds where the name says so), so tests can use
/// lifetimes of a few seconds.
public struct SimulatorConfig: Sendable, Equatable {
    /// Where to listen; port 0 picks a free port.
    public var listen: SocketAddress
    /// The issuer and base of every URL the simulator hands out, without a
    /// trailing slash. Nil: `http://` plus the bound address.
    public var publicURL: String?
    /// The page a mailed magic link opens, without a query (Modgud mails
    /// its realm's `/magic-login`; a deployment whose front end lands the
    /// link on its own origin points it there). Nil: `<issuer>/magic-login`.
    public var magicLinkPage: String? = nil
    /// Event loops (threads) serving HTTP.
    public var loops: Int
    /// Whether the `/dev/*` endpoints answer (off with `--no-dev`).
    public var devEndpoints: Bool
    /// `debug`, `info`, `warning` or `error`.
    public var logLevel: String
    /// Whether mailed codes and links are written to the log (they always
    /// reach the dev mailbox).
    public var logMail: Bool
    /// How many requests `GET /dev/requests` keeps (oldest dropped first).
    public var requestLogCapacity: Int

    /// The realm: native-grants switch, posture, fields, sign-in policy.
    public var realm: RealmSettings
    /// Token, code and ceremony lifetimes.
    public var tokens: TokenSettings
    /// Anti-enumeration delays.
    public var jitter: JitterSettings
    /// Switches that imitate other servers.
    public var responses: ResponseSwitches
    /// Rate-limit policies, mode and allowlist.
    public var rateLimits: RateLimitSettings
    /// The registered OAuth clients.
    public var clients: [ClientRegistration]
    /// Users created at start and after a reset.
    public var users: [UserSeed]
    /// Back-channel logout: the delays, in seconds, before each retry of a
    /// delivery that failed (Modgud's 1, 5 and 30 minutes by default).
    public var backchannelRetrySeconds: [Double] = [60, 300, 1800]

    /// The defaults, or the values given.
    public init(listen: SocketAddress = SocketAddress(ip: .v4(0x7F00_0001), port: 5080),
                publicURL: String? = nil,
                loops: Int = 2,
                devEndpoints: Bool = true,
                logLevel: String = "info",
                logMail: Bool = true,
                requestLogCapacity: Int = 10_000,
                realm: RealmSettings = RealmSettings(),
                tokens: TokenSettings = TokenSettings(),
                jitter: JitterSettings = JitterSettings(),
                responses: ResponseSwitches = ResponseSwitches(),
                rateLimits: RateLimitSettings = RateLimitSettings(),
                clients: [ClientRegistration] = ClientRegistration.defaults,
                users: [UserSeed] = UserSeed.defaults) {
        self.listen = listen
        self.publicURL = publicURL
        self.loops = loops
        self.devEndpoints = devEndpoints
        self.logLevel = logLevel
        self.logMail = logMail
        self.requestLogCapacity = requestLogCapacity
        self.realm = realm
        self.tokens = tokens
        self.jitter = jitter
        self.responses = responses
        self.rateLimits = rateLimits
        self.clients = clients
        self.users = users
    }

    /// A configuration for tests: a free loopback port, one loop, no jitter.
    public static func forTesting() -> SimulatorConfig {
        var config = SimulatorConfig(listen: SocketAddress(ip: .v4(0x7F00_0001), port: 0), loops: 1, logMail: false)
        config.jitter = JitterSettings(minMs: 0, maxMs: 0, invalidGrantMinMs: 0, invalidGrantMaxMs: 0)
        return config
    }

    /// The client registered under `id`.
    public func client(_ id: String) -> ClientRegistration? {
        clients.first { $0.id == id }
    }
}

/// Token, code and ceremony lifetimes.
public struct TokenSettings: Sendable, Equatable {
    /// Access-token lifetime (the realm's native setting; default 15 min).
    public var accessTokenLifetimeSeconds: Int = 900
    /// Refresh-token idle lifetime, renewed on every refresh (default 30 days).
    public var refreshTokenLifetimeSeconds: Int = 30 * 24 * 3600
    /// How long after its redemption a refresh token may be redeemed again
    /// and get fresh tokens instead of revoking its family. 0 (the default
    /// here) is strict rotation; OpenIddict's own default is 30.
    public var refreshReuseLeewaySeconds: Int = 0
    /// id_token lifetime.
    public var idTokenLifetimeSeconds: Int = 1200
    /// E-mailed one-time codes: lifetime and attempts.
    public var codeLifetimeSeconds: Int = 600
    /// Wrong guesses a code survives.
    public var codeAttempts: Int = 3
    /// Magic-link lifetime (single use).
    public var magicLinkLifetimeSeconds: Int = 900
    /// `mfa_token` lifetime.
    public var mfaTokenLifetimeSeconds: Int = 600
    /// Wrong TOTP codes an mfa_token survives before it is spent.
    public var mfaTokenAttempts: Int = 3
    /// Passkey ceremony lifetime (single use).
    public var ceremonyLifetimeSeconds: Int = 300
    /// Authorization-code lifetime (single use).
    public var authorizationCodeLifetimeSeconds: Int = 300

    /// The defaults.
    public init() {}
}

/// The anti-enumeration delays, in milliseconds (0 and 0 turn one off).
public struct JitterSettings: Sendable, Equatable {
    /// On the uniform `/api/account/*` answers.
    public var minMs: Int
    /// Upper bound of the account-endpoint delay.
    public var maxMs: Int
    /// On `invalid_grant` for a failed factor at the token endpoint.
    public var invalidGrantMinMs: Int
    /// Upper bound of the invalid_grant delay.
    public var invalidGrantMaxMs: Int

    /// Modgud's 100–300 ms by default.
    public init(minMs: Int = 100, maxMs: Int = 300, invalidGrantMinMs: Int = 100, invalidGrantMaxMs: Int = 300) {
        self.minMs = minMs
        self.maxMs = maxMs
        self.invalidGrantMinMs = invalidGrantMinMs
        self.invalidGrantMaxMs = invalidGrantMaxMs
    }
}

/// Switches that make the simulator answer like other servers or
/// deployments, so a client's handling of each can be tested.
public struct ResponseSwitches: Sendable, Equatable {
    /// 429 bodies with PascalCase keys (`Error`, `Policy`, …).
    public var pascalCase429: Bool = false
    /// `RateLimit-Limit`/`-Remaining`/`-Reset` headers on a 429.
    public var rateLimitHeaders: Bool = false
    /// Answer a missing second factor like an older server:
    /// `invalid_grant` "Two-factor authentication is required; supply totp_code."
    public var olderServerMfa: Bool = false

    /// The defaults.
    public init() {}
}

/// A user created at start (and again after `POST /dev/reset`).
public struct UserSeed: Sendable, Equatable {
    /// The user id (a GUID); generated when nil.
    public var id: String?
    /// The e-mail address (also the username).
    public var email: String
    /// Given name.
    public var firstName: String?
    /// Family name.
    public var lastName: String?
    /// Base32 TOTP secret, as an authenticator app is given it.
    public var totpSecret: String?
    /// Whether the address is confirmed.
    public var emailConfirmed: Bool = true
    /// A password-bearing unconfirmed account is never sent a native code.
    public var hasPassword: Bool = false
    /// The sign-in page's password; nil takes the realm's `defaultPassword`.
    public var password: String?

    /// A user to create.
    public init(id: String? = nil, email: String, firstName: String? = nil, lastName: String? = nil,
                totpSecret: String? = nil) {
        self.id = id
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.totpSecret = totpSecret
    }

    /// A plain user and one with TOTP, for demos.
    public static let defaults: [UserSeed] = [
        UserSeed(id: "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f", email: "ada@example.com", firstName: "Ada", lastName: "Lovelace"),
        UserSeed(id: "6a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d", email: "grace@example.com", firstName: "Grace", lastName: "Hopper",
                 totpSecret: "JBSWY3DPEHPK3PXP"),
    ]
}
