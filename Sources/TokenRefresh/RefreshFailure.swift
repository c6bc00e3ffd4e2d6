import Modgud

/// Why `TokenRefresher.accessToken` has no usable access token to give:
/// the refresh's outcome in its own terms, which the gateway answers in
/// HTTP terms in one place.
public enum RefreshFailure: Error, Sendable {
    /// The session has ended (Modgud refused the refresh token, an unknown
    /// outcome outlived the reuse leeway, the session was signed out
    /// meanwhile); its tokens are being revoked. `ending` says why when
    /// this very call ended it (nil for every other request that learns
    /// of it: one ending, one account of it).
    case sessionEnded(SessionEnding?)
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

/// Why a refresh ended a session, for the one request whose refresh did.
public struct SessionEnding: Sendable, Equatable {
    /// The refresh outcome that ended it (`rejected`, `replay_avoided`,
    /// `successor_lost`, `unreadable_answer`, `no_refresh_token`).
    public let outcome: String
    /// The session's user.
    public let subject: String

    /// Whether the session simply ran out: its access token expired with
    /// no refresh token to renew it. Every other outcome is a refused or
    /// unusable refresh.
    public var isExpiry: Bool { outcome == "no_refresh_token" }
}

extension RefreshResult {
    /// The failure this result stands for, or nil for `.fresh`; the
    /// ending only for the request that started the attempt (`joined`
    /// false), so requests that shared it do not report it again.
    func refreshFailure(joined: Bool) -> RefreshFailure? {
        switch self {
        case .fresh: nil
        case .ended: .sessionEnded(nil)
        case .endedHere(let ending): .sessionEnded(joined ? nil : ending)
        case .rateLimited(let reply): .rateLimited(reply)
        case .unavailable: .identityServerUnavailable
        case .storeUnavailable: .storeUnavailable
        case .refused: .audienceRefused
        }
    }
}
