/// A user account.
struct UserRecord: Sendable {
    var id: String
    var email: String
    var firstName: String?
    var lastName: String?
    var emailConfirmed: Bool
    var hasPassword: Bool
    /// The sign-in page's password; nil: the user cannot sign in there.
    var password: String?
    /// Disabled by `POST /dev/users/disable`: every sign-in refused.
    var disabled = false
    var totpSecret: [UInt8]?
    /// Rotated by "log out everywhere"; a refresh from before fails.
    var securityStamp: String
    var createdAt: Double

    var displayName: String? {
        let parts = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}

/// An e-mailed one-time code (for a user, or for a pending registration).
struct EmailCode: Sendable {
    var code: String
    var expiresAt: Double
    var attemptsLeft: Int
}

/// A registration waiting for its code ("registration before proof").
struct PendingRegistration: Sendable {
    var email: String
    var firstName: String?
    var lastName: String?
    var code: EmailCode
}

/// A magic link's token.
struct MagicLinkRecord: Sendable {
    var userId: String
    var expiresAt: Double
}

/// The user's sign-in as tokens carry it: when, how, how strong.
struct SignInProof: Sendable, Equatable {
    var authTime: Double
    /// RFC 8176 method references (`otp`, `mfa`, `hwk`, `user`, …).
    var amr: [String]
    /// Two different factors (or a user-verified passkey).
    var multi: Bool

    var acr: String { multi ? "urn:modgud:acr:multi" : "urn:modgud:acr:single" }
}

/// A first factor proven while a second is still owed.
struct MFAChallenge: Sendable {
    var userId: String
    var clientId: String
    var grantType: String
    var scopes: [String]
    var resources: [String]
    var firstFactor: SignInProof
    var expiresAt: Double
    var attemptsLeft: Int
}

/// A WebAuthn ceremony begun by `/connect/passkey/begin` (assertion) or
/// `/connect/passkey/enroll/begin` (registration).
struct PasskeyCeremony: Sendable {
    enum Kind: Sendable { case assertion, registration }
    var id: String
    var kind: Kind
    var clientId: String?
    var rpId: String
    var challenge: [UInt8]
    var origins: [String]
    var userId: String?
    var expiresAt: Double
    var consumed = false
}

/// An enrolled passkey.
struct PasskeyRecord: Sendable {
    /// The management id (`Id` in the list), not the WebAuthn credential id.
    var id: String
    var credentialId: [UInt8]
    var userId: String
    var rpId: String
    /// The credential's COSE public key, as the authenticator gave it.
    var publicKey: [UInt8]
    var signCount: UInt32
    var displayName: String
    var createdAt: Double
    var lastUsedAt: Double?
}

/// One sign-in's tokens: every access and refresh token descending from it.
/// Revoking the family revokes them all.
struct TokenFamily: Sendable {
    var id: String
    var userId: String?
    var clientId: String
    var scopes: [String]
    var resources: [String]
    var proof: SignInProof?
    var sid: String
    /// The user's security stamp when the family began.
    var securityStamp: String?
    var revoked = false
    var accessTokens: [String] = []
    var refreshTokens: [String] = []
}

/// An opaque reference access token.
struct AccessTokenRecord: Sendable {
    var familyId: String
    var userId: String?
    var clientId: String
    var scopes: [String]
    var resources: [String]
    var issuedAt: Double
    var expiresAt: Double
    var proof: SignInProof?
    var revoked = false
}

/// A rotating, single-use refresh token.
struct RefreshTokenRecord: Sendable {
    var familyId: String
    var issuedAt: Double
    var expiresAt: Double
    var redeemedAt: Double?
}

/// An authorization code waiting for its PKCE-checked exchange.
struct AuthorizationCodeRecord: Sendable {
    var clientId: String
    var redirectUri: String
    var codeChallenge: String
    var userId: String
    var scopes: [String]
    var resources: [String]
    var nonce: String?
    var proof: SignInProof
    /// The browser sign-in's session id, shared by every client it serves.
    var sid: String?
    var expiresAt: Double
    var redeemed = false
    var familyId: String?
}
