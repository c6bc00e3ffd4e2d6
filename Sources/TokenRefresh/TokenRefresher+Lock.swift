import Core
import Crypto
import Observability
import Sessions

/// Across instances: the session's lock in the store, taken by one
/// request at a time; the others wait for its outcome (a signal, or the
/// record polled) and use the successor it wrote.
extension TokenRefresher {
    /// Refreshes `session`'s token for `audience` once across instances:
    /// the lock's holder redeems (`redeemHolding`), the others wait for its
    /// outcome, at most `settings.waitLimit`.
    func refresh(_ session: Session, audience: String?, client: IPAddress, logger: Logger) async -> RefreshResult {
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
}
