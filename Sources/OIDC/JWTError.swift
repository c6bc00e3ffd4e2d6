/// Why a signed token (an id_token, a logout_token) was refused.
///
/// Every case is a fixed reason: no description quotes the token, a claim
/// value or a key id, since tokens and claims are personal data and these
/// errors end up in logs.
public enum JWTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Longer than the configured maximum; refused before any decoding.
    case tooLarge
    /// Not three base64url parts, a header or payload that is not a JSON
    /// object, a missing `kid`, an empty signature, a `crit` header.
    case malformed
    /// A header `alg` other than RS256 (`none` and HS256 included).
    case unsupportedAlgorithm
    /// A header `typ` the token's kind does not allow.
    case wrongType
    /// No key with the token's `kid`, even after refreshing the key set.
    case unknownKey
    /// The key with the token's `kid` is not for RS256 signatures (its JWK
    /// declares another `alg`, a `use` other than `sig`, or the kid is ambiguous).
    case keyNotForAlgorithm
    /// The key set could not be fetched.
    case keysUnavailable
    /// The signature does not verify with the named key.
    case badSignature
    /// A claim the rules require is missing or has the wrong JSON type.
    case invalidClaim(JWTClaim)
    /// `iss` is not the configured issuer.
    case wrongIssuer
    /// `aud` does not name our client id.
    case wrongAudience
    /// `azp` is present and is not our client id.
    case wrongAuthorizedParty
    /// `exp` lies before now minus the allowed skew.
    case expired
    /// `iat` lies after now plus the allowed skew.
    case issuedInTheFuture
    /// `iat` lies further back than the token kind's maximum age.
    case tooOld
    /// `nonce` differs from the one this sign-in expects.
    case nonceMismatch
    /// A `nonce` in a token that must not carry one (a logout token).
    case nonceForbidden
    /// A logout token without the back-channel logout `events` member.
    case missingLogoutEvent
    /// A logout token with neither `sub` nor `sid`.
    case missingSubjectAndSession

    /// A fixed sentence naming the reason, never a value from the token.
    public var description: String {
        switch self {
        case .tooLarge: "token too large"
        case .malformed: "token malformed"
        case .unsupportedAlgorithm: "token algorithm not accepted"
        case .wrongType: "token type not accepted"
        case .unknownKey: "token signed by an unknown key"
        case .keyNotForAlgorithm: "token key not usable for RS256"
        case .keysUnavailable: "signing keys unavailable"
        case .badSignature: "token signature invalid"
        case .invalidClaim(let claim): "token claim \(claim.rawValue) missing or invalid"
        case .wrongIssuer: "token issuer not accepted"
        case .wrongAudience: "token audience not accepted"
        case .wrongAuthorizedParty: "token authorized party not accepted"
        case .expired: "token expired"
        case .issuedInTheFuture: "token issued in the future"
        case .tooOld: "token issued too long ago"
        case .nonceMismatch: "token nonce does not match"
        case .nonceForbidden: "token carries a nonce it must not"
        case .missingLogoutEvent: "logout token lacks the back-channel logout event"
        case .missingSubjectAndSession: "logout token has neither sub nor sid"
        }
    }
}

/// The claims a verifier reads, named for `JWTError.invalidClaim`.
public enum JWTClaim: String, Sendable, Hashable, CaseIterable {
    case issuer = "iss"
    case audience = "aud"
    case authorizedParty = "azp"
    case subject = "sub"
    case sessionID = "sid"
    case expiresAt = "exp"
    case issuedAt = "iat"
    case authTime = "auth_time"
    case nonce
    case tokenID = "jti"
    case events
}
