import Core
import Modgud
import Observability
import Routing
import Sessions
import TokenRefresh

/// The gateway's side of the token refresh (module `TokenRefresh`): asks
/// the `TokenRefresher` for a session's access token and answers its
/// failures in HTTP terms, in this one place. A class: the proxy binds
/// it on every request, and a reference is one retain to copy.
final class RefreshCoordinator: Sendable {
    typealias Settings = TokenRefresher.Settings

    let refresher: TokenRefresher
    let relay: ModgudRelay
    let sessions: SessionManager
    /// Where a session the refresh ended is recorded (`audit.session.ended`).
    let audit: AuditTrail

    init(modgud: ModgudClient, sessions: SessionManager, store: any RefreshStore, signals: RefreshSignals,
         settings: Settings, relay: ModgudRelay, metrics: MetricsRegistry, audit: AuditTrail = .off) {
        refresher = TokenRefresher(modgud: modgud, sessions: sessions, store: store, signals: signals, settings: settings,
                                   metrics: metrics)
        self.relay = relay
        self.sessions = sessions
        self.audit = audit
    }

    var settings: Settings { refresher.settings }
    /// Revokes the tokens of the sessions that end here, and at logout.
    var revoker: TokenRevoker { refresher.revoker }

    /// The token for `audience` if it is good for longer than the skew.
    func usableToken(_ session: Session, audience: String?) -> Secret? {
        refresher.usableToken(session, audience: audience)
    }

    /// A usable access token of `session` for `audience` (nil: the default
    /// one), refreshed first when it is near expiry. `session` becomes the
    /// record the token came from.
    ///
    /// - Throws: `GatewayError` 401 `session_expired` (the session has
    ///   ended; the cookie is expired), 503 with `Retry-After` (Modgud or
    ///   the store unavailable; the session stays), 502 (Modgud refused
    ///   the audience); `RelayedAnswer` with Modgud's 429.
    func accessToken(for session: inout Session, audience: String?, client: IPAddress,
                     context: RequestContext) async throws -> Secret {
        do throws(RefreshFailure) {
            return try await refresher.accessToken(for: &session, audience: audience, client: client, logger: context.logger)
        } catch {
            switch error {
            case .sessionEnded(let ending):
                if let ending {
                    // `expired`: the access token ran out with nothing to renew it.
                    audit.sessionEnded(reason: ending.isExpiry ? "expired" : "refresh_refused", subject: ending.subject,
                                       cause: ending.outcome, context, address: client)
                }
                throw GatewayError.sessionExpired(cookie: sessions.expiringCookie())
            case .rateLimited(let reply):
                throw relay.rateLimited(reply, endpoint: "refresh", context: context)
            case .identityServerUnavailable:
                throw GatewayError.tokenUnavailable
            case .storeUnavailable:
                throw GatewayError.storeUnavailable
            case .audienceRefused:
                throw GatewayError(.badGateway, "upstream_error", "The identity server refused a token for this API.")
            }
        }
    }
}

extension GatewayError {
    /// Modgud could not be asked for a token (down, failing or slow); the
    /// session stays.
    static let tokenUnavailable = GatewayError(.serviceUnavailable, "upstream_unavailable",
                                               "The identity server cannot issue a token right now; try again shortly.",
                                               headers: ["Retry-After": "5"])

    static func sessionExpired(cookie: String) -> GatewayError {
        GatewayError(.unauthorized, "session_expired", "The session has ended; sign in again.", headers: ["Set-Cookie": cookie])
    }
}
