import Core
import Crypto
import Synchronization

/// The simulator's RS256 keys: the current one, which signs, and the one
/// before the last rotation, which stays published so tokens it signed keep
/// verifying. A rotation may leave the new key unpublished for a while, so
/// a client meets a `kid` its cached key set does not hold.
final class SigningKeyRing: Sendable {
    private struct Keys {
        var current: SigningKey
        var currentPublished = true
        var previous: SigningKey?
    }

    private let keys: Mutex<Keys>

    init(_ key: RSAPrivateKey) {
        keys = Mutex(Keys(current: SigningKey(key)))
    }

    /// The key that signs.
    var current: SigningKey { keys.withLock { $0.current } }

    /// The current key's id.
    var kid: String { current.kid }

    /// The current private key.
    var key: RSAPrivateKey { current.key }

    /// The keys `/.well-known/jwks` lists: the current one (once
    /// published) and the previous one.
    var published: [SigningKey] {
        keys.withLock { keys in
            (keys.currentPublished ? [keys.current] : []) + (keys.previous.map { [$0] } ?? [])
        }
    }

    /// Makes `key` current; the current key becomes the previous one (and
    /// the previous one is dropped). Unless `publish`, the new key signs
    /// without appearing in the key set until `publishCurrent()`.
    func rotate(to key: RSAPrivateKey, publish: Bool) {
        let next = SigningKey(key)
        keys.withLock { keys in
            keys = Keys(current: next, currentPublished: publish, previous: keys.current)
        }
    }

    /// Publishes the current key (after `rotate(to:publish: false)`).
    func publishCurrent() {
        keys.withLock { $0.currentPublished = true }
    }

    /// A compact JWS over `claims`, signed by the current key.
    func sign(_ claims: JSON, type: String = "JWT") -> String {
        current.sign(claims, type: type)
    }

    /// The claims of a JWT a published key signed (by its `kid`), or nil.
    func verify(_ token: String) -> JSON? {
        guard let kid = Self.keyID(of: token), let key = published.first(where: { $0.kid == kid }) else { return nil }
        return key.verify(token)
    }

    /// `{"keys":[…]}` with every published key.
    var jwks: JSON {
        .object(["keys": .array(published.flatMap { $0.jwks["keys"]?.arrayValue ?? [] })])
    }

    /// What `GET /dev/keys` shows: the key ids, never key material.
    var json: JSON {
        keys.withLock { keys in
            ["current": .string(keys.current.kid), "currentPublished": .bool(keys.currentPublished),
             "previous": keys.previous.map { .string($0.kid) } ?? .null]
        }
    }

    private static func keyID(of token: String) -> String? {
        guard let dot = token.firstIndex(of: "."), let header = Base64URL.decode(token[..<dot]),
              let json = try? JSON.parse(header) else { return nil }
        return json["kid"]?.stringValue
    }
}
