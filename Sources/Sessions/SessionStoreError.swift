/// Why a session store operation failed. Every case is safe to log: none
/// carries a key, a record or a token.
public enum SessionStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The backend cannot be reached (connection refused or lost, not
    /// ready). Nothing was done; retry later. The gateway answers 503
    /// `store_unavailable` with `Retry-After`.
    case unavailable
    /// The backend did not answer in time. The operation may or may not
    /// have taken effect.
    case timedOut
    /// The backend answered something this store did not expect (a wrong
    /// type, an error reply). `reason` is a log-safe summary.
    case unexpectedReply(reason: String)
    /// The store failed on its own side (no random bytes for a lock
    /// token, a script the backend refused). `reason` is log-safe.
    case internalFailure(reason: String)

    /// A one-line, log-safe explanation.
    public var description: String {
        switch self {
        case .unavailable: "session store unavailable"
        case .timedOut: "session store timed out"
        case .unexpectedReply(let reason): "session store: unexpected reply: \(reason)"
        case .internalFailure(let reason): "session store failure: \(reason)"
        }
    }
}
