import Core
import Crypto

/// In-process access to the signing keys and the back-channel deliveries,
/// for test suites that run the simulator inside their own process.
extension Simulator {
    /// The key id of the key that signs now.
    public var currentKeyID: String { core.state.signingKey.current.kid }

    /// Makes `key` the signing key; the current one stays published as the
    /// previous. Unless `publish`, `/.well-known/jwks` does not list the new
    /// key until `publishCurrentKey()`.
    public func rotateSigningKey(to key: RSAPrivateKey, publish: Bool = true) {
        core.state.signingKey.rotate(to: key, publish: publish)
    }

    /// Lists the current key in `/.well-known/jwks`.
    public func publishCurrentKey() {
        core.state.signingKey.publishCurrent()
    }

    /// Every back-channel logout POST so far, as `GET /dev/backchannel`
    /// lists them (`delivery`, `clientId`, `uri`, `attempt`, `at`,
    /// `delivered`, `status`, `failure`), oldest first.
    public func backchannelAttempts() -> [JSON] {
        core.state.backchannel.attempts.map(\.json)
    }
}
