import Modgud

/// Why `TokenRefresher.accessToken` has no usable access token to give:
/// the refresh's outcome in its own terms, which the gateway answers in
/// HTTP terms in one place.
public enum RefreshFailure: Error, Sendable {
    /// The session has ended (Modgud refused the refresh token, an unknown
    /// outcome outlived the reuse leeway, the session was signed out
    /// meanwhile); its tokens are being revoked.
    case sessionEnded
    /// Modgud answered 429: the answer to relay as it came (its
    /// Retry-After, RateLimit-* and Content-Type fields and its body).
    case rateLimited(ModgudReply)
    /// Modgud could not be asked, failed or was slow, or gave no usable
    /// token; the session stays, and a retry after a moment may succeed.
    case identityServerUnavailable
    /// The session store did not answer; the session stays.
    case storeUnavailable
    /// Modgud refused a token for the audience asked for (`invalid_target`, …).
    case audienceRefused
}

extension RefreshResult {
    /// The failure this result stands for, or nil for `.fresh`.
    var refreshFailure: RefreshFailure? {
        switch self {
        case .fresh: nil
        case .ended: .sessionEnded
        case .rateLimited(let reply): .rateLimited(reply)
        case .unavailable: .identityServerUnavailable
        case .storeUnavailable: .storeUnavailable
        case .refused: .audienceRefused
        }
    }
}
