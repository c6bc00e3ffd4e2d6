import Sessions

/// Taking a session out of the store while no refresh of it can be in
/// flight (the app hand-off moves its tokens elsewhere, Docs/handoff.md).
extension TokenRefresher {
    /// How `takeHoldingLock` ended.
    public enum Takeover: Sendable {
        /// The session's record as it was when taken: the live tokens.
        case taken(Session)
        /// The record was already gone (ended, or never opened).
        case gone
        /// A refresh held the lock longer than `settings.waitLimit`.
        case busy
        /// The store failed.
        case storeUnavailable
    }

    /// Takes `session`'s record (`SessionManager.take`: record, card and
    /// index entries gone) while holding its refresh lock, as a refresher
    /// takes it: a refresh in flight on any instance finishes first (its
    /// successor tokens are what is taken), and a later one finds no
    /// record. Waiters are told the session ended. Revokes nothing.
    public func takeHoldingLock(_ session: Session) async -> Takeover {
        let lockName = "refresh:" + session.lockName
        let deadline = clock.now + settings.waitLimit
        while true {
            let lock: LockToken?
            do {
                lock = try await store.acquireLock(lockName, lease: settings.lease)
            } catch {
                return .storeUnavailable
            }
            if let lock {
                let taken: Session?
                do {
                    taken = try await sessions.take(session)
                } catch {
                    _ = try? await store.releaseLock(lock)
                    return .storeUnavailable
                }
                _ = try? await store.releaseLock(lock)
                if let key = try? session.refreshOutcomeKey() { await signals.publish(session.lockName, .ended, key: key) }
                return taken.map { .taken($0) } ?? .gone
            }
            guard clock.now < deadline, (try? await clock.sleep(for: settings.pollInterval)) != nil else { return .busy }
        }
    }
}
