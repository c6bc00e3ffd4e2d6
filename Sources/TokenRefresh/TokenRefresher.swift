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
    public struct Settings: Sendable {
        /// A token this close to expiry is refreshed before use.
        public var skew: Duration
        /// Modgud's reuse leeway: how long after a refresh with an unknown
        /// outcome the same refresh token may be sent again.
        public var reuseLeeway: Duration
        /// The lock's lease; renewed every third of it while Modgud is asked.
        public var lease: Duration
        /// How often a waiter reads the record when no signal wakes it.
        public var pollInterval: Duration
        /// How long a request waits for someone else's refresh in all.
        public var waitLimit: Duration
        /// The audience a refresh of the default token asks for (the
        /// configured default resource), or nil to keep the grant's.
        public var defaultResource: String?
        /// How long a failed refresh (429, Modgud unavailable) is answered
        /// again to whoever takes the lock next, without asking Modgud
        /// (`rememberFailure`); zero: never.
        public var failureHold: Duration

        public init(skew: Duration = .seconds(60), reuseLeeway: Duration = .zero, lease: Duration = .seconds(15),
                    pollInterval: Duration = .milliseconds(50), waitLimit: Duration = .seconds(20),
                    defaultResource: String? = nil, failureHold: Duration = .seconds(1)) {
            self.skew = skew
            self.reuseLeeway = reuseLeeway
            self.lease = lease
            self.pollInterval = pollInterval
            self.waitLimit = waitLimit
            self.defaultResource = defaultResource
            self.failureHold = failureHold
        }
    }

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
        guard case .fresh(let successor) = result else { throw result.refreshFailure ?? .identityServerUnavailable }
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
    private func currentToken(_ session: Session, audience: String?) -> Secret? {
        guard let (token, expiresAt, _) = session.accessToken(for: audience) else { return nil }
        return expiresAt.map { $0 > sessions.now } ?? true ? token : nil
    }

    // MARK: Across instances

    private func refresh(_ session: Session, audience: String?, client: IPAddress, logger: Logger) async -> RefreshResult {
        let deadline = clock.now + settings.waitLimit
        let lockName = "refresh:" + session.lockName
        // What this session's outcomes are tagged with, in Redis and on the channel.
        guard let key = try? session.refreshOutcomeKey() else {
            logger.error("refresh.key_failed")
            return .unavailable
        }
        var current = session
        // Since the lock was first found held: the wait ends with the lock
        // taken (observed then, before this request's own call to Modgud)
        // or with the outcome of the other request's refresh.
        var waitingSince: Duration?
        defer { if let waitingSince { metrics.lockWait.observe((clock.now - waitingSince).seconds) } }
        while true {
            // Listen before looking, so a signal sent in between is kept.
            let waiter = signals.waiter(for: session.lockName, key: key)
            let lock: LockToken?
            do {
                lock = try await store.acquireLock(lockName, lease: settings.lease)
            } catch {
                waiter.cancel()
                return .storeUnavailable
            }
            if let lock {
                waiter.cancel()
                if let since = waitingSince {
                    metrics.lockWait.observe((clock.now - since).seconds)
                    waitingSince = nil
                }
                let result: RefreshResult
                if let failed = await recentFailure(lockName: session.lockName, key: key) {
                    logger.info("refresh.held_back")
                    metrics.outcomes.increment(["held_back"])
                    result = failed
                } else {
                    result = await redeemHolding(lock, current, audience: audience, client: client, logger: logger)
                    await rememberFailure(result, lockName: session.lockName, key: key)
                }
                _ = try? await store.releaseLock(lock)
                if let signal = result.signal { await signals.publish(session.lockName, signal, key: key) }
                return result
            }
            // Another request (maybe on another instance) is refreshing.
            if waitingSince == nil { waitingSince = clock.now }
            let signal = await waiter.next(timeout: settings.pollInterval)
            waiter.cancel()
            let reloaded = await reload(current)
            guard let successor = reloaded.session else { return reloaded.failure ?? .ended }
            if usableToken(successor, audience: audience) != nil {
                metrics.successorHits.increment(["store"])
                return .fresh(successor)
            }
            current = successor
            if let failed = RefreshResult(failure: signal) { return failed }
            if signal == .ended { return .ended }
            // Otherwise another audience's refresh, or not done yet.
            if clock.now >= deadline {
                logger.warning("refresh.wait_exceeded")
                metrics.outcomes.increment(["wait_exceeded"])
                return .unavailable
            }
        }
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

    /// Holding the lock: fence, redeem once, write the successor, classify.
    private func redeemHolding(_ lock: LockToken, _ session: Session, audience: String?, client: IPAddress,
                               logger: Logger) async -> RefreshResult {
        let reloaded = await reload(session)
        guard let current = reloaded.session else { return reloaded.failure ?? .ended }
        if usableToken(current, audience: audience) != nil {
            metrics.successorHits.increment(["store"])
            return .fresh(current)
        }
        guard let refreshToken = current.data.tokens.refreshToken else {
            if currentToken(current, audience: audience) != nil { return .fresh(current) }
            if audience != nil { return .refused }
            logger.info("refresh.no_refresh_token")
            return await end(current, outcome: "no_refresh_token", logger: logger)
        }
        let now = sessions.now
        if let since = current.data.tokens.refreshOutcomeUnknownSince {
            // A mark from the future: within a second, another instance's
            // clock runs a little ahead (sent just now); beyond, nothing
            // tells how long ago it was sent, so it counts as too old.
            let elapsed = now >= since ? now - since : (since - now <= 1_000 ? 0 : UInt64.max)
            let leeway = UInt64(max(0, settings.reuseLeeway.wholeMilliseconds))
            guard elapsed < leeway else {
                // Sending it again could be a replay, which revokes the whole
                // family at Modgud: end this one session instead.
                logger.warning("refresh.replay_avoided", ["unknownForMs": .int(Int(clamping: elapsed))])
                return await end(current, outcome: "replay_avoided", logger: logger)
            }
            logger.info("refresh.resending_within_leeway", ["unknownForMs": .int(Int(clamping: elapsed))])
        }

        // Marked before sending, so that an answer never seen (a timeout,
        // this process dying, a drain cut short) leaves the record saying
        // the token may be spent: the next attempt then never replays it
        // outside Modgud's leeway.
        let markedHere = current.data.tokens.refreshOutcomeUnknownSince == nil
        guard let pending = await markPending(current, since: now, logger: logger) else { return .storeUnavailable }
        let renewal = Task { [store, clock, lease = settings.lease] in
            while !Task.isCancelled {
                guard (try? await clock.sleep(for: lease / 3)) != nil else { return }
                _ = try? await store.renewLock(lock, lease: lease)
            }
        }
        let reply: ModgudReply
        do {
            reply = try await modgud.token(.refresh(refreshToken: refreshToken),
                                           resources: (audience ?? settings.defaultResource).map { [$0] } ?? [],
                                           forwardedFor: client)
        } catch {
            renewal.cancel()
            switch error {
            case .timedOut(requestSent: true), .badResponse, .broken:
                return outcomeUnknown(logger)
            case .timedOut(requestSent: false), .unreachable:
                logger.warning("refresh.modgud_unavailable")
                metrics.outcomes.increment(["unavailable"])
                if markedHere { await removeMark(since: now, from: pending, readFirst: false, logger: logger) }
                return .unavailable
            }
        }
        renewal.cancel()
        if reply.isSuccess {
            guard let json = reply.json, let tokens = TokenSet(json: json) else {
                // Modgud redeemed the token but its successor cannot be
                // read: the session cannot go on, and the family it leaves
                // at Modgud is revoked rather than left live.
                logger.error("refresh.unreadable_answer")
                return await end(pending, outcome: "unreadable_answer", logger: logger)
            }
            return await store(tokens, into: pending, audience: audience, issuedAt: sessions.now, logger: logger)
        }
        // Modgud answered without redeeming: unless it refused the token
        // itself, the token is still good.
        let error = reply.oauthError ?? "unknown"
        let rejected = error == "invalid_grant" || error == "invalid_client"
        // A 504 comes from a proxy in front of Modgud that gave up waiting:
        // Modgud may have redeemed the token, so the mark stays. (A 502 is a
        // proxy that could not get an answer started, most often could not
        // connect: treated as not redeemed, like Modgud's own 5xx.)
        let proxyTimedOut = reply.status.code == 504
        if markedHere, !rejected, !proxyTimedOut { await removeMark(since: now, from: pending, readFirst: false, logger: logger) }
        if reply.isRateLimited {
            metrics.outcomes.increment(["rate_limited"])
            return .rateLimited(reply)
        }
        if reply.status.code >= 500 {
            logger.warning("refresh.modgud_unavailable", ["status": .int(reply.status.code)])
            metrics.outcomes.increment(["unavailable"])
            return .unavailable
        }
        if rejected {
            logger.info("refresh.rejected", ["error": .string(ModgudReply.label(error))])
            return await end(pending, outcome: "rejected", logger: logger)
        }
        logger.warning("refresh.refused", ["error": .string(ModgudReply.label(error)), "status": .int(reply.status.code)])
        metrics.outcomes.increment(["refused"])
        return .refused
    }
}
