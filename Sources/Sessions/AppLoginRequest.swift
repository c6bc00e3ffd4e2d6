/// A native app's registered sign-in request (Docs/handoff.md): the S256
/// challenge it registered and the app it is for. Kept sealed under a
/// handle derived from the request id, single use.
public struct AppLoginRequest: Sendable, Hashable, CustomStringConvertible {
    /// `BASE64URL(SHA256(verifier))`, 43 characters.
    public let challenge: String
    /// The configured app's name.
    public let app: String
    /// When the request expires (Unix ms).
    public let expiresAt: UInt64

    /// A request as stored.
    public init(challenge: String, app: String, expiresAt: UInt64) {
        self.challenge = challenge
        self.app = app
        self.expiresAt = expiresAt
    }

    /// The flow grant its record is kept under.
    static let grant = "app-login"

    /// The app's name only.
    public var description: String { "AppLoginRequest(app: \(app))" }
}
