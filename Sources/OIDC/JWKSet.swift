import Core
import Crypto

/// The RS256 signing keys of a JWK Set (RFC 7517), by `kid`.
///
/// A key is usable when it is `kty` RSA with a valid `n` and `e`, a
/// non-empty `kid`, an `alg` of RS256 or none, and a `use` of `sig` or
/// none. A key that fails to parse is skipped, never fatal to the set. A
/// key that parses but declares another `alg` or `use`, and a `kid` that
/// several keys share, is remembered as not for RS256, so a token naming
/// it is refused without fetching the set again.
public struct JWKSet: Sendable {
    /// What a `kid` names in this set.
    public enum Lookup: Sendable, Equatable {
        /// A usable RS256 key.
        case key(RSAPublicKey)
        /// A key that must not verify RS256 signatures.
        case notForRS256
        /// No key of this set has the `kid`.
        case unknown
    }

    private var usable: [String: RSAPublicKey] = [:]
    private var unusable: Set<String> = []

    /// An empty set.
    public init() {}

    /// The keys of a JWKS document (`{"keys":[…]}`).
    ///
    /// - Throws: `.malformed` when the document is not an object with a
    ///   `keys` array; bad keys inside it are skipped.
    public init(json: JSON) throws(JWTError) {
        guard let keys = json["keys"]?.arrayValue else { throw .malformed }
        for key in keys {
            guard let kid = key["kid"]?.stringValue, !kid.isEmpty else { continue }
            switch Self.entry(key) {
            case nil: continue
            case .some(nil): unusable.insert(kid)
            case .some(let publicKey?):
                if usable[kid] != nil || unusable.contains(kid) {
                    usable[kid] = nil
                    unusable.insert(kid)
                } else {
                    usable[kid] = publicKey
                }
            }
        }
    }

    /// Parses a JWKS document from its bytes; see `init(json:)`.
    public init(bytes: some Collection<UInt8>) throws(JWTError) {
        guard let json = try? JSON.parse(bytes) else { throw .malformed }
        try self.init(json: json)
    }

    /// The key a token's `kid` names.
    public func lookup(_ kid: String) -> Lookup {
        if let key = usable[kid] { return .key(key) }
        return unusable.contains(kid) ? .notForRS256 : .unknown
    }

    /// The number of usable RS256 keys.
    public var count: Int { usable.count }

    /// nil: skip the key (bad material); .some(nil): a key not for RS256
    /// (another `kty`, `alg` or `use`); .some(key): usable.
    private static func entry(_ jwk: JSON) -> RSAPublicKey?? {
        guard let kty = jwk["kty"]?.stringValue else { return nil }
        guard kty == "RSA" else { return .some(nil) }
        guard let n = jwk["n"]?.stringValue.flatMap(Base64URL.decode),
              let e = jwk["e"]?.stringValue.flatMap(Base64URL.decode),
              let key = try? RSAPublicKey(modulus: n, exponent: e)
        else { return nil }
        if let alg = jwk["alg"], alg.stringValue != "RS256" { return .some(nil) }
        if let use = jwk["use"], use.stringValue != "sig" { return .some(nil) }
        return .some(key)
    }
}

extension JWKSet: CustomStringConvertible {
    /// The number of usable keys, never their ids or material.
    public var description: String { "JWKSet(\(usable.count) RS256 keys)" }
}
