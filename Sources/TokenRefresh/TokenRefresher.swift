import Core
import Modgud
import Observability
import Sessions
import Synchronization

/// Hands out a session's access tokens, refreshing them near expiry so
/// that a rotating refresh token is redeemed once, however many requests
/// race for it on however many gateway instances (Docs/sessions.md,
/// "Refresh"):
///
/// 1. Requests of one instance for one session and audience share one
///    refresh (an in-process single flight).
/// 2. Across instances, the refresher holds the session's lock in the
///    store, with a lease it renews while Modgud is asked. Holding it, it
///    reads the record again (the fencing step): a successor already there
///    is used, never a second redemption.
/// 3. The rotated tokens are written with compare-and-set on the record's
///    version before any request uses them; then the lock is released and
///    the outcome published, so waiters on every instance read the
///    successor instead of refreshing again. Waiters also poll the record,
///    since a published signal can be lost; a failure (429, Modgud
///    unavailable) is kept beside the record for a second, so a waiter
///    that missed it and takes the lock answers the same without asking
///    Modgud again (TokenRefresher+Failures.swift). Both are
///    authenticated with the session's own key and refused otherwise
///    (RefreshSignal+Authentication.swift).
///
/// The lock, the failure memo and the outcome messages live in a
/// `RefreshStore`; the session record is read and written through
/// `SessionManager`; time comes from a `RefreshClock`. A failure comes out
/// as a `RefreshFailure`, which the gateway answers in HTTP terms.
public final class TokenRefresher: Sendable {
    let modgud: ModgudClient
    let sessions: SessionManager
    let store: any RefreshStore
    let signals: RefreshSignals
    let clock: RefreshClock
    /// The settings.
    public let settings: Settings
    /// `settings.skew` in milliseconds, converted once: every proxied
    /// request compares its token's expiry with it.
    private let skewMilliseconds: UInt64
    let metrics: RefreshMetrics
    /// Revokes the tokens of the sessions that end here, and at logout.
    public let revoker: TokenRevoker
    private let inFlight = Mutex<[String: Task<RefreshResult, Never>]>([:])

    /// A refresher asking `modgud`, keeping sessions through `sessions`,
    /// locks and failure memos in `store`, telling waiters through
    /// `signals`, on `clock`.
    public init(modgud: ModgudClient, sessions: SessionManager, store: any RefreshStore, signals: RefreshSignals,
                settings: Settings, clock: RefreshClock = .continuous, metrics: MetricsRegistry) {
        self.modgud = modgud
        self.sessions = sessions
        self.store = store
        self.signals = signals
        self.settings = settings
        self.clock = clock
        skewMilliseconds = UInt64(settings.skew.wholeMilliseconds)
        self.metrics = RefreshMetrics(metrics)
        revoker = TokenRevoker(modgud: modgud, metrics: metrics)
    }

    /// A usable access token of `session` for `audience` (nil: the default
    /// one), refreshed first when it is near expiry. `session` becomes the
    /// record the token came from.
    ///
    /// - Throws: why there is none (`RefreshFailure`): the session ended,
    ///   Modgud's 429, Modgud or the store unavailable (the session stays),
    ///   the audience refused.
    public func accessToken(for session: inout Session, audience: String?, client: IPAddress,
                            logger: Logger) async throws(RefreshFailure) -> Secret {
        if let token = usableToken(session, audience: audience) { return token }
        let key = session.lockName + "|" + (audience ?? "")
        let started = clock.now
        let (task, joined) = inFlight.withLock { table -> (Task<RefreshResult, Never>, Bool) in
            if let running = table[key] { return (running, true) }
            let task = Task { [session] in
                let result = await self.refresh(session, audience: audience, client: client, logger: logger)
                _ = self.inFlight.withLock { $0.removeValue(forKey: key) }
                return result
            }
            table[key] = task
            return (task, false)
        }
        let result = await task.value
        let waited = (clock.now - started).seconds
        if joined {
            metrics.successorHits.increment(["local"])
            metrics.lockWait.observe(waited)
        }
        metrics.wait.observe(waited)
        guard case .fresh(let successor) = result else { throw result.refreshFailure(joined: joined) ?? .identityServerUnavailable }
        session = successor
        if let token = usableToken(successor, audience: audience) ?? currentToken(successor, audience: audience) {
            return token
        }
        throw .identityServerUnavailable
    }

    // MARK: Tokens in a record

    /// The token for `audience` if it is good for longer than the skew (or
    /// until it expires, when there is no refresh token to renew it).
    public func usableToken(_ session: Session, audience: String?) -> Secret? {
        guard let (token, expiresAt, renewable) = session.accessToken(for: audience) else { return nil }
        guard let expiresAt else { return token }
        return expiresAt > sessions.now &+ (renewable ? skewMilliseconds : 0) ? token : nil
    }

    /// The token for `audience` while it has not expired, skew or not.
    func currentToken(_ session: Session, audience: String?) -> Secret? {
        guard let (token, expiresAt, _) = session.accessToken(for: audience) else { return nil }
        return expiresAt.map { $0 > sessions.now } ?? true ? token : nil
    }

    /// The session as stored now, or why there is none to use
    /// (`.ended` or `.storeUnavailable`).
    func reload(_ session: Session) async -> (session: Session?, failure: RefreshResult?) {
        do {
            switch try await sessions.reload(session) {
            case .found(let reloaded): return (reloaded, nil)
            default: return (nil, .ended)
            }
        } catch {
            return (nil, .storeUnavailable)
        }
    }
}
