/// The app hand-off's times (Docs/handoff.md). The contract fixes them;
/// they are a value of their own so that tests can shorten them.
public struct AppLoginTimes: Sendable, Hashable {
    /// How long an app's request lives. 10 minutes.
    public var requestLifetime: Duration = .seconds(600)
    /// How long a code lives. 60 seconds.
    public var codeLifetime: Duration = .seconds(60)
    /// Only a session signed in less than this long ago is handed over. 5 minutes.
    public var maxSessionAge: Duration = .seconds(300)
    /// How long after an unredeemed code expired its refresh token is revoked. 5 seconds.
    public var revocationGrace: Duration = .seconds(5)
    /// How often every instance sweeps for codes due for revocation. 15 seconds.
    public var sweepInterval: Duration = .seconds(15)

    /// The contract's times.
    public init() {}
}
