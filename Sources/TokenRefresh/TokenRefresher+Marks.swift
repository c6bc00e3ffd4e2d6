import Observability
import Sessions

/// The mark "a refresh was sent at T" on a session record: written before
/// the refresh token goes to Modgud, so that an answer never seen leaves
/// the token marked as possibly spent; taken out again when nothing was
/// redeemed. Called holding the session's refresh lock.
extension TokenRefresher {
    /// Records "a refresh was sent at `now`" (keeping an earlier mark);
    /// nil when the store cannot take the write, and nothing is sent then.
    /// A write that failed may still have landed (its reply lost to the
    /// command timeout): a mark of ours is then taken out again, since no
    /// token was sent.
    func markPending(_ session: Session, since now: UInt64, logger: Logger) async -> Session? {
        var current = session
        var data = current.data
        let markedHere = data.tokens.refreshOutcomeUnknownSince == nil
        if markedHere { data.tokens.refreshOutcomeUnknownSince = now }
        do {
            if try await sessions.update(&current, data: data) { return current }
        } catch {
            if markedHere { await removeMark(since: now, from: session, readFirst: true, logger: logger) }
        }
        return nil
    }

    /// Takes out our mark "sent at `since`" when no redemption stands
    /// behind it: Modgud answered without redeeming, or the mark's own
    /// write failed and nothing was sent. Left behind, it would make the
    /// next attempt treat a good token as possibly spent and end the
    /// session. We still hold the lock; after a failure the record is read
    /// afresh and the mark taken out only while it is still ours. A few
    /// tries, then it is left (and logged). `session` is the record as our
    /// mark left it, or (`readFirst`) one whose record is read first.
    func removeMark(since: UInt64, from session: Session, readFirst: Bool, logger: Logger) async {
        var current: Session? = readFirst ? nil : session
        for attempt in 0..<3 {
            if attempt > 0 { try? await clock.sleep(for: .milliseconds(100 << attempt)) }
            if current == nil {
                switch try? await sessions.reload(session) {
                case .found(let latest)?: current = latest
                case nil: continue
                default: return // the session ended meanwhile
                }
            }
            guard var record = current, record.data.tokens.refreshOutcomeUnknownSince == since else { return }
            var data = record.data
            data.tokens.refreshOutcomeUnknownSince = nil
            if (try? await sessions.update(&record, data: data)) == true { return }
            current = nil
        }
        logger.warning("refresh.mark_left")
    }
}
