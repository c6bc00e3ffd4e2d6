import Core
import Modgud
import OIDC
#if canImport(Glibc)
import Glibc
#endif

/// Verifies the JWTs Modgud signs for this client, id_tokens and
/// back-channel logout tokens, against Modgud's JSON Web Key Set: fetched
/// on first use, held, and fetched again when a token names an unknown
/// key id, at most once per `refetchInterval` (`JWKSCache`). The issuer
/// is the one discovery reported, read at each verification (discovery
/// may complete after start).
public struct IdentityTokens: Sendable {
    private let modgud: ModgudClient
    private let keys: JWKSCache
    /// Allowed clock difference for `exp` and `iat`, in seconds.
    public let skew: Int64
    private let now: @Sendable () -> Int64

    /// `now`: seconds since the epoch (the wall clock by default).
    public init(modgud: ModgudClient, skew: Int64 = 60, refetchInterval: Int64 = 60,
                now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.modgud = modgud
        self.skew = skew
        self.now = now
        keys = JWKSCache(refetchInterval: refetchInterval, now: now) { [modgud] in try await Self.fetch(modgud) }
    }

    /// The verified claims of `token`, an id_token issued to this client:
    /// RS256 against Modgud's keys, `iss`, `aud`, `azp`, `exp`, `iat`, and
    /// `nonce` when one was sent (nil: the token must carry none it would
    /// be compared to; a native grant sends none).
    public func verifyIDToken(_ token: Secret, nonce: String?) async throws(JWTError) -> IDTokenClaims {
        let verifier = IDTokenVerifier(issuer: modgud.endpoints.issuer, clientID: modgud.configuration.clientID, skew: skew)
        return try await verifier.verify(token.revealed, keys: keys, now: now(), nonce: nonce)
    }

    /// The verified claims of a back-channel logout token: `typ`
    /// `logout+jwt`, RS256, `iss`, `aud`, `iat` within the last two
    /// minutes (with the skew), the logout event, no `nonce`, `sub` or
    /// `sid`. Replays (`jti`) are the caller's to catch.
    public func verifyLogoutToken(_ token: String) async throws(JWTError) -> LogoutTokenClaims {
        let verifier = LogoutTokenVerifier(issuer: modgud.endpoints.issuer, clientID: modgud.configuration.clientID, skew: skew)
        return try await verifier.verify(token, keys: keys, now: now())
    }

    private static func fetch(_ modgud: ModgudClient) async throws -> JWKSet {
        let reply = try await modgud.keySet()
        guard reply.isSuccess else { throw JWTError.keysUnavailable }
        return try JWKSet(bytes: reply.body)
    }
}
