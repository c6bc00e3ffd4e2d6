import Core
import Modgud
import Observability
import Sessions

/// Holding the session's lock: the fencing read, the outcome-unknown
/// mark, the one call to Modgud (with the lease renewed meanwhile) and the
/// classification of its answer.
extension TokenRefresher {
    /// Holding the lock: fence, redeem once, write the successor, classify.
    func redeemHolding(_ lock: LockToken, _ session: Session, audience: String?, client: IPAddress,
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
        // The lease is renewed until the successor is written: a store
        // failover while writing it may take seconds.
        defer { renewal.cancel() }
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
