/// A sign-in at the simulator's own page, held by the browser's
/// `sim_session` cookie: later authorization requests from that browser
/// need no form (unless `prompt=login` or `max_age` say otherwise).
struct BrowserSession: Sendable {
    var userId: String
    /// The OIDC session id every client's tokens from this sign-in carry.
    var sid: String
    var proof: SignInProof
    /// The anti-forgery value the simulator's signed-in forms (the device
    /// verification page) carry and must post back.
    var formToken = Identifiers.token()
}

/// A correct password whose TOTP code is still owed (the page's second step).
struct PasswordChallenge: Sendable {
    var userId: String
    var expiresAt: Double
    var attemptsLeft: Int
}

/// An authorization request pushed to `/connect/par` (RFC 9126), waiting
/// for the authorize request that names its `request_uri`.
struct PushedRequest: Sendable {
    var clientId: String
    var parameters: [(name: String, value: String)]
    var expiresAt: Double
}
