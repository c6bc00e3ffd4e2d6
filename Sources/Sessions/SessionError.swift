import Crypto

/// Why a session operation failed. Every case is log-safe. "No session" is
/// not an error (see `SessionLookup`).
public enum SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The store failed (down, slow, or an error reply such as OOM or a
    /// read-only replica); the gateway answers `503 store_unavailable` with
    /// `Retry-After`.
    case store(SessionStoreError)
    /// Randomness, key derivation or sealing failed in OpenSSL.
    case crypto(CryptoError)
    /// The sealed content would exceed `maxRecordBytes` (`size` bytes).
    case recordTooLarge(size: Int)
    /// The data cannot be stored as given (e.g. an update that changes the
    /// subject, a string longer than the format allows).
    case invalidData(reason: String)

    /// A one-line, log-safe explanation.
    public var description: String {
        switch self {
        case .store(let error): error.description
        case .crypto(let error): "session crypto: \(error)"
        case .recordTooLarge(let size): "session record too large: \(size) bytes"
        case .invalidData(let reason): "invalid session data: \(reason)"
        }
    }
}
