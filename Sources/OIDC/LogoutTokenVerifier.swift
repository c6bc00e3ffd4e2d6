import Core

/// Verifies a back-channel logout token (OpenID Connect Back-Channel
/// Logout 1.0 §2.6): the shared checks of `JWTVerifier`, then `typ`, `iat`
/// (recent, not in the future), `exp` when present, the logout event, no
/// `nonce`, `sub` or `sid`, and a `jti`. Whether the `jti` was seen before
/// is the caller's to check.
public struct LogoutTokenVerifier: Sendable {
    /// The `events` member that makes a JWT a logout token.
    public static let backchannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// Issuer, client id and size limit.
    public var jwt: JWTVerifier
    /// Seconds of clock difference allowed on `iat` (future) and `exp`.
    public var skew: Int64
    /// The oldest `iat` accepted, in seconds before now.
    public var maximumAge: Int64

    /// A verifier for logout tokens from `issuer` to `clientID`.
    public init(issuer: String, clientID: String, skew: Int64 = 60, maximumAge: Int64 = 120,
                maximumTokenBytes: Int = JWS.defaultMaximumBytes) {
        jwt = JWTVerifier(issuer: issuer, clientID: clientID, maximumTokenBytes: maximumTokenBytes)
        self.skew = skew
        self.maximumAge = maximumAge
    }

    /// The claims of `token`, verified against `keys` at `now` (seconds since the epoch).
    public func verify(_ token: some StringProtocol, keys: JWKSet, now: Int64) throws(JWTError) -> LogoutTokenClaims {
        try claims(of: jwt.verify(token, keys: keys), now: now)
    }

    /// As `verify(_:keys:now:)`, with keys from a cache that fetches the
    /// set again for a new `kid`.
    public func verify(_ token: some StringProtocol, keys: JWKSCache, now: Int64) async throws(JWTError) -> LogoutTokenClaims {
        try claims(of: await jwt.verify(token, keys: keys), now: now)
    }

    /// The logout-token rules on a token whose signature, `iss` and `aud`
    /// `jwt` has verified.
    public func claims(of jws: JWS, now: Int64) throws(JWTError) -> LogoutTokenClaims {
        if let type = jws.type {
            let lowered = type.lowercased()
            guard lowered == "logout+jwt" || lowered == "application/logout+jwt" else { throw .wrongType }
        }
        let claims = jws.payload
        let issuedAt = try claims.requiredNumericDate(.issuedAt)
        guard issuedAt <= now + skew else { throw .issuedInTheFuture }
        guard issuedAt >= now - maximumAge else { throw .tooOld }
        if let expiresAt = try claims.numericDate(.expiresAt), expiresAt <= now - skew { throw .expired }
        guard let events = claims["events"] else { throw .missingLogoutEvent }
        guard case .object = events else { throw .invalidClaim(.events) }
        guard case .object? = events[Self.backchannelLogoutEvent] else { throw .missingLogoutEvent }
        guard claims["nonce"] == nil else { throw .nonceForbidden }
        let subject = try claims.string(.subject)
        let sessionID = try claims.string(.sessionID)
        guard subject != nil || sessionID != nil else { throw .missingSubjectAndSession }
        return LogoutTokenClaims(subject: subject, sessionID: sessionID, tokenID: try claims.requiredString(.tokenID),
                                 issuedAt: issuedAt, json: claims)
    }
}

/// The claims of a verified logout token.
public struct LogoutTokenClaims: Sendable, CustomStringConvertible {
    /// `sub`: every session of this user ends, unless `sessionID` is present.
    public let subject: String?
    /// `sid`: the identity server's session whose gateway sessions end.
    public let sessionID: String?
    /// `jti`: for the caller's replay cache.
    public let tokenID: String
    /// `iat`, seconds since the epoch: with the maximum age, how long the
    /// replay cache must keep `tokenID`.
    public let issuedAt: Int64
    /// The whole payload.
    public let json: JSON

    /// Never the claims' values.
    public var description: String { "LogoutTokenClaims(<redacted>)" }
}
