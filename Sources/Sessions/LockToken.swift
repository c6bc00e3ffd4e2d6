import Crypto

/// Proof of holding a lock from `SessionLockStore.acquireLock`: the lock's name
/// and a random value only the holder knows, compared by the store on
/// renew and release so that only the holder can do either.
public struct LockToken: Sendable, Hashable, CustomStringConvertible {
    /// The lock's logical name, as passed to `acquireLock`.
    public let name: String
    /// The holder's random value (base64url of 16 random bytes).
    public let value: String

    /// A token for `name` with the holder value `value`. Stores create
    /// these; callers only pass them back.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// A token for `name` with a fresh random holder value (16 bytes from
    /// OpenSSL's DRBG), for store implementations.
    public static func random(name: String) throws(SessionStoreError) -> LockToken {
        do {
            return LockToken(name: name, value: try SecureRandom.token(byteCount: 16))
        } catch {
            throw .internalFailure(reason: "no random bytes for a lock token: \(error)")
        }
    }

    /// The name only.
    public var description: String { "LockToken(\(name))" }
}
