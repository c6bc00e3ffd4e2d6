import Core
import Crypto

/// The checks every token from the identity server shares: form (`JWS`),
/// the RS256 signature with the key its `kid` names, `iss` and `aud`.
/// `IDTokenVerifier` and `LogoutTokenVerifier` add their kind's rules.
public struct JWTVerifier: Sendable {
    /// The issuer, compared exactly (Modgud's has no trailing slash).
    public var issuer: String
    /// Our client id: `aud` must name it.
    public var clientID: String
    /// The longest token accepted, in bytes.
    public var maximumTokenBytes: Int

    /// A verifier for tokens from `issuer` to `clientID`.
    public init(issuer: String, clientID: String, maximumTokenBytes: Int = JWS.defaultMaximumBytes) {
        self.issuer = issuer
        self.clientID = clientID
        self.maximumTokenBytes = maximumTokenBytes
    }

    /// The token, its signature verified against `keys`, `iss` and `aud` checked.
    public func verify(_ token: some StringProtocol, keys: JWKSet) throws(JWTError) -> JWS {
        let jws = try JWS(parsing: token, maximumBytes: maximumTokenBytes)
        try check(jws, with: keys.lookup(jws.keyID))
        return jws
    }

    /// The token, its signature verified with a key from `keys` (which
    /// fetches the set again when the `kid` is new), `iss` and `aud` checked.
    public func verify(_ token: some StringProtocol, keys: JWKSCache) async throws(JWTError) -> JWS {
        let jws = try JWS(parsing: token, maximumBytes: maximumTokenBytes)
        try check(jws, with: .key(await keys.key(for: jws.keyID)))
        return jws
    }

    private func check(_ jws: JWS, with lookup: JWKSet.Lookup) throws(JWTError) {
        switch lookup {
        case .unknown: throw .unknownKey
        case .notForRS256: throw .keyNotForAlgorithm
        case .key(let key): guard jws.isSigned(by: key) else { throw .badSignature }
        }
        let claims = jws.payload
        guard let iss = claims["iss"]?.stringValue else { throw .invalidClaim(.issuer) }
        guard iss == issuer else { throw .wrongIssuer }
        switch claims["aud"] {
        case .string(let audience)?:
            guard audience == clientID else { throw .wrongAudience }
        case .array(let audiences)?:
            guard audiences.allSatisfy({ $0.stringValue != nil }) else { throw .invalidClaim(.audience) }
            guard audiences.contains(.string(clientID)) else { throw .wrongAudience }
        default:
            throw .invalidClaim(.audience)
        }
    }
}
