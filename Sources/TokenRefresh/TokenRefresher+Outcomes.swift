import Modgud
import Observability
import Sessions

/// How a refresh ends once Modgud has answered with tokens, or cannot go
/// on: the successor written into the record, an unknown outcome kept
/// marked, or the session ended with its tokens revoked. Called holding
/// the session's refresh lock.
extension TokenRefresher {
    /// Writes the successor tokens (compare-and-set on the version; we hold
    /// the lock, so a lost race means the session ended or was written by
    /// something else, which is merged with). While the store is away (a
    /// failover), tries again with a growing pause for up to half the lock's
    /// lease, which is renewed meanwhile: the successor exists only here.
    func store(_ tokens: TokenSet, into session: Session, audience: String?, issuedAt now: UInt64,
               logger: Logger) async -> RefreshResult {
        var current = session
        var keepOtherResources = true
        var conflicts = 0
        var waited = Duration.zero
        for attempt in 1... {
            var data = current.data
            let expiresAt = now &+ UInt64(max(0, tokens.expiresIn)) &* 1000
            if !keepOtherResources { data.tokens.resources = [:] }
            if let audience {
                data.tokens.resources[audience] = .init(accessToken: tokens.accessToken, expiresAt: expiresAt)
            } else {
                data.tokens.accessToken = tokens.accessToken
                data.tokens.accessTokenExpiresAt = expiresAt
                if let idToken = tokens.idToken { data.tokens.idToken = idToken }
            }
            if let successor = tokens.refreshToken { data.tokens.refreshToken = successor }
            data.tokens.refreshOutcomeUnknownSince = nil
            do {
                if try await sessions.update(&current, data: data) {
                    logger.info("refresh.completed", ["audience": .bool(audience != nil)])
                    metrics.outcomes.increment(["ok"])
                    return .fresh(current)
                }
                conflicts += 1
                guard conflicts < 3 else { break }
            } catch .recordTooLarge {
                // Too many audiences' tokens: the others are fetched again
                // when needed; the rotated refresh token must be kept.
                logger.warning("refresh.record_too_large", ["resources": .int(data.tokens.resources.count)])
                guard keepOtherResources else { break }
                keepOtherResources = false
                continue
            } catch {
                logger.error("refresh.write_failed", ["attempt": .int(attempt)])
                guard waited < settings.lease / 2 else { break }
                let pause = min(Duration.milliseconds(100 << min(attempt - 1, 4)), .seconds(1))
                try? await clock.sleep(for: pause)
                waited += pause
            }
            let reloaded = await reload(current)
            if let successor = reloaded.session {
                current = successor
            } else if case .ended? = reloaded.failure {
                // Signed out while we refreshed: the new tokens belong to nobody.
                _ = try? await modgud.revoke(tokens.refreshToken ?? tokens.accessToken,
                                             hint: tokens.refreshToken == nil ? "access_token" : "refresh_token")
                metrics.outcomes.increment(["ended"])
                return .ended
            }
        }
        // The successor could not be kept; the stored token is spent. The
        // next attempt finds it unknown-outcome-free and would replay it, so
        // end the session, revoking the successor in hand with it (and with
        // it the family, at Modgud) rather than leave it live.
        logger.error("refresh.successor_lost")
        let successor = SessionTokens(accessToken: tokens.accessToken, refreshToken: tokens.refreshToken)
        return await end(current, outcome: "successor_lost", logger: logger, alsoRevoking: [successor])
    }

    /// A refresh that may have been redeemed without our seeing the
    /// answer: the mark written before sending stays.
    func outcomeUnknown(_ logger: Logger) -> RefreshResult {
        logger.warning("refresh.outcome_unknown")
        metrics.outcomes.increment(["outcome_unknown"])
        return .unavailable
    }

    /// Ends `session`: takes its record (as another instance may have
    /// written it since) and revokes in the background every token it and
    /// the taken record held, and `extra`. `.endedHere` when this call
    /// took the record (it ended the session), `.ended` when someone else
    /// had.
    func end(_ session: Session, outcome: String, logger: Logger, alsoRevoking extra: [SessionTokens] = [])
        async -> RefreshResult
    {
        metrics.outcomes.increment([outcome])
        let taken = (try? await sessions.take(session)) ?? nil
        revoker.revokeInBackground(extra + [taken?.data.tokens, session.data.tokens].compactMap { $0 }, reason: outcome,
                                   logger: logger)
        guard let taken else { return .ended }
        return .endedHere(SessionEnding(outcome: outcome, subject: taken.data.subject))
    }
}
