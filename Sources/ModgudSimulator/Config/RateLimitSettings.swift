import Core

/// A rate-limit dimension, in the order they are evaluated.
public enum RateLimitDimension: String, Sendable, CaseIterable, Comparable {
    /// The caller's address (IPv4, or the IPv6 /64), moved by a trusted forwarder.
    case source
    /// The mailbox or account the request is about.
    case target
    /// The OAuth client.
    case client
    /// The App (one per simulator).
    case app

    /// Evaluation order: source, target, client, app.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One ceiling: `limit` per `windowSeconds`. With a `burst` it is a token
/// bucket (capacity `burst`, refilled continuously at `limit` per window);
/// without, a fixed window that starts at its first hit.
public struct RateLimitRule: Sendable, Equatable {
    /// Requests per window (also the refill of a bucket).
    public var limit: Int
    /// The window, in seconds.
    public var windowSeconds: Double
    /// The bucket capacity; nil makes the rule a fixed window.
    public var burst: Int?

    /// A rule of `limit` per `windowSeconds`, a token bucket when `burst` is given.
    public init(limit: Int, windowSeconds: Double, burst: Int? = nil) {
        self.limit = limit
        self.windowSeconds = windowSeconds
        self.burst = burst
    }

    /// The most requests the rule lets through at once.
    public var capacity: Int { burst ?? limit }
}

/// The ceilings of one policy; a dimension without a rule is not limited.
public struct RateLimitPolicy: Sendable, Equatable {
    /// The ceiling of each limited dimension.
    public var rules: [RateLimitDimension: RateLimitRule]
    /// The silent sign-ups-per-source ceiling (unknown addresses entering
    /// registration): over it the answer stays uniform and nothing is sent.
    public var sourceRegistration: RateLimitRule?

    /// A policy with these ceilings.
    public init(_ rules: [RateLimitDimension: RateLimitRule], sourceRegistration: RateLimitRule? = nil) {
        self.rules = rules
        self.sourceRegistration = sourceRegistration
    }
}

/// Policy names used by the endpoints.
public enum RateLimitPolicyName {
    /// `POST /api/account/native/otp/request` and `/native/register`.
    public static let nativeOtp = "native-otp"
    /// Modgud's web registration (not simulated; configurable for completeness).
    public static let selfRegistration = "self-registration"
    /// `POST /api/account/magic-link/request`.
    public static let magicLink = "magic-link"
    /// Code verification: `urn:cocoar:otp` redemptions, per mailbox.
    public static let emailOtp = "email-otp"
    /// `/connect/passkey/begin` and `/connect/passkey/enroll/begin`.
    public static let passkeyBegin = "passkey-begin"
    /// `POST /connect/token`.
    public static let oauthToken = "oauth-token"
}

/// How rejections are handled.
public enum RateLimitMode: String, Sendable, Equatable, CaseIterable {
    /// Rejections are real (429).
    case enforce
    /// Everything is counted, would-be rejections are logged, nothing is refused.
    case logOnly = "log-only"
    /// Nothing is counted.
    case off
}

/// Rate limiting: the mode, the policies and the source allowlist.
public struct RateLimitSettings: Sendable, Equatable {
    /// Enforce, log only, or off.
    public var mode: RateLimitMode = .enforce
    /// Ceilings by policy name.
    public var policies: [String: RateLimitPolicy] = RateLimitSettings.defaultPolicies
    /// Sources exempt from the `source` dimension only.
    public var allowlist: [CIDR] = []

    /// The shipped defaults.
    public init() {}

    /// Modgud's shipped defaults (docs/platform/rate-limits.md). The silent
    /// sign-ups-per-source ceiling (10/60 min there) is off here unless
    /// configured: see Docs/simulator.md.
    public static let defaultPolicies: [String: RateLimitPolicy] = {
        let hour = 3600.0, minute = 60.0, fiveMinutes = 300.0
        let mailing = RateLimitPolicy([
            .source: RateLimitRule(limit: 1200, windowSeconds: hour, burst: 300),
            .target: RateLimitRule(limit: 5, windowSeconds: hour),
            .client: RateLimitRule(limit: 600, windowSeconds: hour),
            .app: RateLimitRule(limit: 3000, windowSeconds: hour),
        ])
        return [
            RateLimitPolicyName.nativeOtp: mailing,
            RateLimitPolicyName.selfRegistration: mailing,
            RateLimitPolicyName.magicLink: mailing,
            RateLimitPolicyName.emailOtp: RateLimitPolicy([
                .source: RateLimitRule(limit: 600, windowSeconds: minute, burst: 200),
                .target: RateLimitRule(limit: 15, windowSeconds: minute),
                .client: RateLimitRule(limit: 600, windowSeconds: minute),
            ]),
            RateLimitPolicyName.passkeyBegin: RateLimitPolicy([
                .source: RateLimitRule(limit: 1200, windowSeconds: fiveMinutes, burst: 300),
                .target: RateLimitRule(limit: 60, windowSeconds: fiveMinutes),
                .client: RateLimitRule(limit: 1200, windowSeconds: fiveMinutes),
            ]),
            RateLimitPolicyName.oauthToken: RateLimitPolicy([
                .source: RateLimitRule(limit: 600, windowSeconds: minute, burst: 200),
                .client: RateLimitRule(limit: 60, windowSeconds: minute, burst: 60),
            ]),
        ]
    }()
}
