/// The one realm's settings (the simulator has a single realm and a single
/// App; realm selection by `Host` is not simulated).
public struct RealmSettings: Sendable, Equatable {
    /// The native passwordless grants master switch.
    public var nativeGrants: Bool = true
    /// What an unknown e-mail address gets from the native endpoints.
    public var selfRegistration: SelfRegistrationPosture = .jitOnOtp
    /// `Off`, `Optional` or `Required` for each configurable field.
    public var registrationFields = RegistrationFields()
    /// Sign-in methods and level (`SignIn` in app-info).
    public var signIn = SignInPolicy()
    /// `Branding` in app-info.
    public var branding = Branding()
    /// `Legal` in app-info.
    public var legal = Legal()
    /// Whether users may request magic links themselves.
    public var magicLinkSelfService: Bool = true
    /// Shown in app-info; the simulator grants no grace.
    public var twoFactorGracePeriodDays: Int = 0
    /// "Passkey changes require a recent sign-in" (off by default, as in Modgud).
    public var recentSignInRequired: Bool = false
    /// The recent-sign-in window (`max_age`).
    public var recentSignInMaxAgeSeconds: Int = 900
    /// The App's name: the key of the `app` rate-limit dimension.
    public var appName: String = "default"
    /// Pushed authorization requests (`/connect/par`, advertised in discovery).
    public var par: Bool = true
    /// The sign-in page's password of every seeded user without one of its
    /// own; nil leaves them without a password.
    public var defaultPassword: String? = "simulator"
    /// How long a device code and its user code live (RFC 8628 `expires_in`).
    public var deviceCodeLifetimeSeconds: Int = 600
    /// The polling interval a device code starts with (RFC 8628 `interval`);
    /// each `slow_down` raises that code's interval by 5 seconds.
    public var deviceCodeIntervalSeconds: Int = 5

    /// The defaults.
    public init() {}
}

/// The self-registration posture of the App (the guide's three values).
public enum SelfRegistrationPosture: String, Sendable, Equatable, CaseIterable {
    /// Unknown e-mail on otp/request → pending registration + code (default).
    case jitOnOtp = "JitOnOtp"
    /// Unknown e-mail → nothing; only the uniform answer.
    case off = "Off"
    /// otp/request stays strict; `POST /api/account/native/register` registers.
    case explicitEndpoint = "ExplicitEndpoint"
}

/// A registration field's requirement.
public enum FieldRequirement: String, Sendable, Equatable, CaseIterable {
    case off = "Off"
    case optional = "Optional"
    case required = "Required"
}

/// The registration-fields policy `GET /api/app-info` publishes.
public struct RegistrationFields: Sendable, Equatable {
    /// Never required on native paths (the username is the e-mail).
    public var username: FieldRequirement = .off
    /// `Required` makes the native endpoints refuse a missing first name.
    public var firstname: FieldRequirement = .optional
    /// `Required` makes the native endpoints refuse a missing last name.
    public var lastname: FieldRequirement = .optional

    /// The defaults.
    public init() {}
}

/// The App's sign-in methods and level.
public struct SignInPolicy: Sendable, Equatable {
    /// Password sign-in (reported only).
    public var password: Bool = false
    /// E-mail codes; off refuses `urn:cocoar:otp` with `unsupported_grant_type`.
    public var emailCode: Bool = true
    /// Passkeys; off refuses `urn:cocoar:passkey`.
    public var passkey: Bool = true
    /// `single` or `multi`.
    public var minimumLevel: String = "single"
    /// Whether the App offers TOTP as a second factor natively.
    public var totp: Bool = true
    /// When the App does not offer TOTP: `Ignore` or `RequireViaBrowser`.
    public var ownFactorNotOffered: String = "Ignore"

    /// The defaults.
    public init() {}

    /// Whether the App requires two factors.
    public var requiresMulti: Bool { minimumLevel.lowercased() == "multi" }
}

/// Branding shown by `GET /api/app-info`; nil fields are omitted.
public struct Branding: Sendable, Equatable {
    /// The product name.
    public var productName: String? = "Modgud Simulator"
    /// A logo URL.
    public var logoUrl: String?
    /// A favicon URL.
    public var faviconUrl: String?
    /// A CSS colour.
    public var primaryColor: String? = "#3b5bdb"

    /// The defaults.
    public init() {}
}

/// Legal links shown by `GET /api/app-info`; nil fields are omitted.
public struct Legal: Sendable, Equatable {
    /// Terms of service.
    public var termsUrl: String?
    /// Privacy policy.
    public var privacyUrl: String?
    /// Imprint.
    public var imprintUrl: String?

    /// The defaults.
    public init() {}
}
