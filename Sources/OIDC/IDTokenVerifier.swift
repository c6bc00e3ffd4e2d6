import Core
import Crypto

/// Verifies an id_token (OpenID Connect Core §3.1.3.7): the shared checks
/// of `JWTVerifier`, then `azp`, `exp`, `iat` and `nonce`.
public struct IDTokenVerifier: Sendable {
    /// Issuer, client id and size limit.
    public var jwt: JWTVerifier
    /// Seconds of clock difference allowed on `exp` and `iat`.
    public var skew: Int64

    /// A verifier for id_tokens from `issuer` to `clientID`.
    public init(issuer: String, clientID: String, skew: Int64 = 60, maximumTokenBytes: Int = JWS.defaultMaximumBytes) {
        jwt = JWTVerifier(issuer: issuer, clientID: clientID, maximumTokenBytes: maximumTokenBytes)
        self.skew = skew
    }

    /// The claims of `token`, verified against `keys` at `now` (seconds
    /// since the epoch). `nonce`, when given, must equal the token's.
    public func verify(_ token: some StringProtocol, keys: JWKSet, now: Int64, nonce: String?) throws(JWTError) -> IDTokenClaims {
        try claims(of: jwt.verify(token, keys: keys), now: now, nonce: nonce)
    }

    /// As `verify(_:keys:now:nonce:)`, with keys from a cache that fetches
    /// the set again for a new `kid`.
    public func verify(_ token: some StringProtocol, keys: JWKSCache, now: Int64, nonce: String?) async throws(JWTError) -> IDTokenClaims {
        try claims(of: await jwt.verify(token, keys: keys), now: now, nonce: nonce)
    }

    /// The id_token rules on a token whose signature, `iss` and `aud`
    /// `jwt` has verified.
    public func claims(of jws: JWS, now: Int64, nonce expected: String?) throws(JWTError) -> IDTokenClaims {
        let claims = jws.payload
        if let azp = try claims.string(.authorizedParty), azp != jwt.clientID { throw .wrongAuthorizedParty }
        let expiresAt = try claims.requiredNumericDate(.expiresAt)
        guard expiresAt > now - skew else { throw .expired }
        let issuedAt = try claims.requiredNumericDate(.issuedAt)
        guard issuedAt <= now + skew else { throw .issuedInTheFuture }
        let nonce = try claims.string(.nonce)
        if let expected {
            guard let nonce, constantTimeEquals(Array(nonce.utf8), Array(expected.utf8)) else { throw .nonceMismatch }
        }
        return IDTokenClaims(
            subject: try claims.requiredString(.subject), sessionID: try claims.string(.sessionID),
            authTime: try claims.numericDate(.authTime), issuedAt: issuedAt, expiresAt: expiresAt,
            nonce: nonce, json: claims)
    }
}

/// The claims of a verified id_token.
public struct IDTokenClaims: Sendable, CustomStringConvertible {
    /// `sub`: the user.
    public let subject: String
    /// `sid`: the identity server's session, for back-channel logout.
    public let sessionID: String?
    /// `auth_time`, seconds since the epoch, when present.
    public let authTime: Int64?
    /// `iat`, seconds since the epoch.
    public let issuedAt: Int64
    /// `exp`, seconds since the epoch.
    public let expiresAt: Int64
    /// `nonce`, when present.
    public let nonce: String?
    /// The whole payload, for other claims.
    public let json: JSON

    /// Never the claims' values.
    public var description: String { "IDTokenClaims(<redacted>)" }
}
