import Configuration
import Core
import Foundation
import HTTP
import ModgudSimulator
import Observability
import Sessions
import Testing
import TestSupport
@testable import Gateway

/// The session's token refresh (Sources/TokenRefresh/TokenRefresher.swift)
/// through a proxied `user` route, against the simulator's rotating
/// refresh tokens: single flight in one process and across instances, the
/// failure classes, and the unknown outcome of a timed-out refresh.
///
/// The simulator issues 1-second access tokens at sign-in, well inside the
/// gateway's 60 s skew, so the first proxied request must refresh; each
/// test sets the lifetime of the tokens the refresh gets before sending
/// it (long ones, unless a second refresh is wanted). No test waits for
/// real time to make a token expire.
@Suite("Token refresh")
struct RefreshTests {
    @Test func aRefreshRotatesTheRefreshTokenAndTheNextRefreshUsesTheNewOne() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        let original = try #require(try await fixture.tokens())
        let firstRefreshToken = try #require(original.refreshToken)
        // Still inside the skew: the request after the next refreshes again.
        fixture.lifetime(5)
        let mark = simulator.lastRequestSeq

        #expect(try await fixture.get().status == 200)
        let afterFirst = try #require(try await fixture.tokens())
        let secondRefreshToken = try #require(afterFirst.refreshToken)
        #expect(secondRefreshToken != firstRefreshToken, "the rotated refresh token is stored")
        #expect(afterFirst.accessToken != original.accessToken)
        #expect(fixture.upstream.authorizations == ["Bearer " + afterFirst.accessToken.revealed])
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1, "refreshed once")
        #expect(try await fixture.introspect(firstRefreshToken)["active"]?.boolValue == false, "spent at Modgud")
        #expect(try await fixture.introspect(secondRefreshToken)["active"]?.boolValue == true)

        #expect(try await fixture.get().status == 200)
        let afterSecond = try #require(try await fixture.tokens())
        #expect(afterSecond.refreshToken != nil && afterSecond.refreshToken != secondRefreshToken)
        #expect(fixture.upstream.authorizations.last == "Bearer " + afterSecond.accessToken.revealed)
        let calls = ModgudProbe.refreshCalls(simulator, since: mark)
        #expect(calls.map { $0["status"]?.intValue } == [200, 200])
        // Had the gateway sent the first refresh token again, Modgud would
        // have seen a replay and revoked the family.
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 2)
        #expect(ModgudProbe.refreshCount(simulator, "replaysRejected") == 0)
        #expect(ModgudProbe.refreshCount(simulator, "leewayReplays") == 0)
        #expect(try await fixture.revokedFamilies() == 0)

        let metrics = try await LoopbackCall.send(port: fixture.harness.adminPort, "GET", "/metrics").bodyText
        #expect(metricValue(metrics, "bff_refresh_total", #"outcome="ok""#) == 2)
        #expect(metricValue(metrics, "bff_refresh_wait_seconds_count") == 2)
        #expect(metrics.contains("# TYPE bff_refresh_successor_hits_total counter"))
        await fixture.stop()
    }

    @Test func fiftyConcurrentRequestsAfterExpiryShareOneRedemption() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        let original = try #require(try await fixture.tokens())
        fixture.lifetime(3600)
        // Modgud answers slowly, so every request arrives while the refresh is out.
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 2000))
        let mark = simulator.lastRequestSeq

        let responses = try await LoopbackCall.burst("/api/items", cookie: fixture.cookie, ports: [fixture.harness.port],
                                                     perPort: 50)
        #expect(responses.map { $0?.status ?? 0 } == Array(repeating: 200, count: 50))
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1)
        let refreshed = try #require(try await fixture.tokens())
        #expect(refreshed.accessToken != original.accessToken)
        let seen = fixture.upstream.authorizations
        #expect(seen.count == 50)
        #expect(Set(seen) == ["Bearer " + refreshed.accessToken.revealed])
        let metrics = fixture.harness.service.metrics.render()
        #expect(metricValue(metrics, "bff_refresh_total", #"outcome="ok""#) == 1)
        let hits = metricValue(metrics, "bff_refresh_successor_hits_total")
        #expect(hits >= 1 && hits <= 49, "requests joined the one refresh (\(hits))")
        await fixture.stop()
    }

    @Test func twoInstancesShareOneRedemptionThroughTheStore() async throws {
        let fixture = try await RefreshFixture.start()
        let harness = fixture.harness
        let simulator = harness.simulator
        // A second instance on the same Redis and the same Modgud.
        let secondLogs = LogCapture()
        let second = try GatewayService(config: harness.service.config, group: harness.group,
                                        logger: Logger(level: .debug, sink: .capturing(secondLogs)))
        try await second.start()
        for _ in 0..<500 where !second.redis.isReady { try await Task.sleep(for: .milliseconds(10)) }
        fixture.lifetime(3600)
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 2500))
        let mark = simulator.lastRequestSeq

        let responses = try await LoopbackCall.burst("/api/items", cookie: fixture.cookie,
                                                     ports: [harness.port, second.publicServer.localAddress!.port], perPort: 25)
        #expect(responses.map { $0?.status ?? 0 } == Array(repeating: 200, count: 50))
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1)
        let refreshed = try #require(try await fixture.tokens())
        #expect(Set(fixture.upstream.authorizations) == ["Bearer " + refreshed.accessToken.revealed])
        #expect(fixture.upstream.authorizations.count == 50)
        #expect(ModgudProbe.refreshCount(simulator, "replaysRejected") == 0)
        #expect(try await fixture.revokedFamilies() == 0)

        let texts = [harness.service.metrics.render(), second.metrics.render()]
        #expect(texts.map { metricValue($0, "bff_refresh_total", #"outcome="ok""#) }.reduce(0, +) == 1)
        let hits = texts.map { metricValue($0, "bff_refresh_successor_hits_total") }
        #expect(hits.allSatisfy { $0 >= 1 }, "each instance used the one refresh: \(hits)")
        let fromStore = texts.map { metricValue($0, "bff_refresh_successor_hits_total", #"source="store""#) }
        #expect(fromStore.reduce(0, +) >= 1, "the other instance read the successor from the store")
        #expect(hits.reduce(0, +) <= 49)
        await second.shutdown()
        await fixture.stop()
    }

    // MARK: Failure classes

    @Test func refusedRefreshEndsTheSession() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        let refreshToken = try #require(try await fixture.tokens()?.refreshToken)
        // Revoked at Modgud (its family goes with it): the refresh gets invalid_grant.
        #expect(try await ModgudProbe.revoke(port: fixture.modgudPort, refreshToken.revealed) == 200)
        let mark = simulator.lastRequestSeq

        let refused = try await fixture.get()
        #expect(refused.status == 401)
        #expect(refused.json?["error"]?.stringValue == "session_expired")
        #expect(refused.setCookies.contains { $0.hasPrefix("__Host-bff=") && $0.contains("Max-Age=0") })
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).map { $0["status"]?.intValue } == [400])
        #expect(fixture.upstream.authorizations.isEmpty)
        // The ended session's tokens are revoked too (in the background).
        try await RefreshFixture.waitUntil {
            simulator.requests(since: mark).contains { $0["path"]?.stringValue == "/connect/revoke" }
        }

        #expect(try await fixture.get("/bff/user").status == 401, "the old cookie")
        #expect(try await fixture.tokens() == nil, "the session record is gone from Redis")
        #expect(metricValue(fixture.harness.service.metrics.render(), "bff_refresh_total", #"outcome="rejected""#) == 1)
        await fixture.stop()
    }

    @Test func throttledRefreshRelaysThe429AndKeepsTheSession() async throws {
        let fixture = try await RefreshFixture.start(simulator: { sim in
            // One /connect/token call per hour for the client: sign-in takes it.
            sim.rateLimits.policies[RateLimitPolicyName.oauthToken] = RateLimitPolicy([
                .client: RateLimitRule(limit: 1, windowSeconds: 3600),
            ])
            sim.responses.rateLimitHeaders = true
        })
        let harness = fixture.harness
        fixture.lifetime(3600)
        let before = try #require(try await fixture.tokens())

        let throttled = try await fixture.get()
        #expect(throttled.status == 429)
        let modgud = try #require(harness.answers.all.last { $0.status.code == 429 })
        #expect(throttled.header("Retry-After") != nil)
        #expect(throttled.header("Retry-After") == modgud.headers["Retry-After"])
        #expect(throttled.header("RateLimit-Limit") == modgud.headers["RateLimit-Limit"])
        if case .bytes(let body) = modgud.body { #expect(throttled.body == body, "byte for byte") } else { Issue.record("body") }
        #expect(fixture.upstream.authorizations.isEmpty)
        let kept = try #require(try await fixture.tokens(), "the session stays")
        #expect(kept.refreshToken == before.refreshToken)
        #expect(kept.refreshOutcomeUnknownSince == nil)
        #expect(metricValue(harness.service.metrics.render(), "bff_refresh_total", #"outcome="rate_limited""#) == 1)

        harness.simulator.updateConfig { $0.rateLimits.mode = .off }
        try await RefreshFixture.waitOutTheFailureHold()
        #expect(try await fixture.get().status == 200, "the session works once Modgud lets it")
        #expect(ModgudProbe.refreshCount(harness.simulator, "redemptions") == 1)
        await fixture.stop()
    }

    @Test func failingModgudAnswers503AndKeepsTheSession() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        fixture.lifetime(3600)
        let before = try #require(try await fixture.tokens())
        simulator.injectFault(path: "/connect/token", count: 1, .status(503))

        let failed = try await fixture.get()
        #expect(failed.status == 503)
        #expect(failed.json?["error"]?.stringValue == "upstream_unavailable")
        #expect(failed.header("Retry-After").flatMap(Int.init).map { $0 > 0 } == true)
        #expect(!failed.setCookies.contains { $0.hasPrefix("__Host-bff=") })
        #expect(try await fixture.tokens()?.refreshToken == before.refreshToken, "the session stays")

        try await RefreshFixture.waitOutTheFailureHold()
        #expect(try await fixture.get().status == 200)
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 1)
        #expect(metricValue(fixture.harness.service.metrics.render(), "bff_refresh_total", #"outcome="unavailable""#) == 1)
        await fixture.stop()
    }

    @Test func unreachableModgudAnswers503AndKeepsTheSession() async throws {
        let fixture = try await RefreshFixture.start()
        let before = try #require(try await fixture.tokens())
        await fixture.harness.relay.shutdown(gracePeriod: .milliseconds(100))

        let failed = try await fixture.get()
        #expect(failed.status == 503)
        #expect(failed.json?["error"]?.stringValue == "upstream_unavailable")
        #expect(failed.header("Retry-After") != nil)
        #expect(fixture.upstream.authorizations.isEmpty)
        #expect(try await fixture.get("/bff/user").status == 200, "the session stays")
        let kept = try #require(try await fixture.tokens())
        #expect(kept.refreshToken == before.refreshToken)
        #expect(kept.refreshOutcomeUnknownSince == nil, "nothing reached Modgud: the outcome is known")
        await fixture.stop()
    }

    // MARK: Unknown outcome

    /// Modgud redeems (rotates) the refresh token but answers after the
    /// gateway's timeout; without a reuse leeway, sending the spent token
    /// again would be a replay, so the gateway ends this one session
    /// instead, and revokes its token (with it the family and the successor
    /// nobody holds) through `/connect/revoke`, never through a replay.
    @Test func timedOutRefreshWithoutLeewayEndsTheSessionWithoutAReplay() async throws {
        let fixture = try await RefreshFixture.start(gateway: { $0.modgudTimeout = .seconds(3) })
        let simulator = fixture.harness.simulator
        fixture.lifetime(3600)
        let before = try #require(try await fixture.tokens())
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 6000))
        let mark = simulator.lastRequestSeq

        let timedOut = try await fixture.get()
        #expect(timedOut.status == 503)
        #expect(timedOut.json?["error"]?.stringValue == "upstream_unavailable")
        #expect(try await fixture.tokens()?.refreshOutcomeUnknownSince != nil)
        try await RefreshFixture.waitUntil { ModgudProbe.refreshCount(simulator, "redemptions") == 1 }

        let ended = try await fixture.get()
        #expect(ended.status == 401)
        #expect(ended.json?["error"]?.stringValue == "session_expired")
        #expect(ended.setCookies.contains { $0.hasPrefix("__Host-bff=") && $0.contains("Max-Age=0") })
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1, "no second redemption reached Modgud")
        #expect(ModgudProbe.refreshCount(simulator, "replaysRejected") == 0)
        try await fixture.expectFamilyRevokedByRevocation(since: mark)
        #expect(try await fixture.tokens() == nil)
        #expect(fixture.upstream.authorizations.isEmpty)
        fixture.expectOutcomeUnknownLogged(hiding: [before])
        #expect(fixture.harness.logs.lines.contains { $0.contains(#""event":"refresh.replay_avoided""#) })
        let metrics = fixture.harness.service.metrics.render()
        #expect(metricValue(metrics, "bff_refresh_total", #"outcome="outcome_unknown""#) == 1)
        #expect(metricValue(metrics, "bff_refresh_total", #"outcome="replay_avoided""#) == 1)
        await fixture.stop()
    }

    /// With a reuse leeway on both sides, the same refresh token is sent
    /// again within it and Modgud answers with fresh tokens.
    @Test func timedOutRefreshWithinTheLeewayResendsTheSameToken() async throws {
        let fixture = try await RefreshFixture.start(gateway: { config in
            config.modgudTimeout = .seconds(3)
            config.refreshReuseLeeway = .seconds(30)
        }, simulator: { $0.tokens.refreshReuseLeewaySeconds = 30 })
        let simulator = fixture.harness.simulator
        fixture.lifetime(3600)
        let before = try #require(try await fixture.tokens())
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 6000))
        let mark = simulator.lastRequestSeq

        #expect(try await fixture.get().status == 503)
        try await RefreshFixture.waitUntil { ModgudProbe.refreshCount(simulator, "redemptions") == 1 }

        #expect(try await fixture.get().status == 200)
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).map { $0["status"]?.intValue } == [200, 200])
        #expect(ModgudProbe.refreshCount(simulator, "leewayReplays") == 1, "the same refresh token, within the leeway")
        #expect(ModgudProbe.refreshCount(simulator, "familyRevocations") == 0)
        #expect(try await fixture.revokedFamilies() == 0)
        let refreshed = try #require(try await fixture.tokens())
        #expect(refreshed.refreshOutcomeUnknownSince == nil)
        #expect(refreshed.refreshToken != before.refreshToken)
        #expect(fixture.upstream.authorizations == ["Bearer " + refreshed.accessToken.revealed])
        #expect(try await fixture.introspect(refreshed.accessToken.revealed)["active"]?.boolValue == true)
        fixture.expectOutcomeUnknownLogged(hiding: [before, refreshed])
        #expect(fixture.harness.logs.lines.contains { $0.contains(#""event":"refresh.resending_within_leeway""#) })
        await fixture.stop()
    }

    /// Modgud redeems the refresh token, then the connection breaks before
    /// its answer arrives: as after a timeout, the token may be spent, so
    /// the next attempt ends the session rather than replay it, and revokes
    /// its family.
    @Test func connectionLostAfterRedemptionEndsTheSessionWithoutAReplay() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        fixture.lifetime(3600)
        let before = try #require(try await fixture.tokens())
        simulator.injectFault(path: "/connect/token", count: 1, .dropAfterHandling)
        let mark = simulator.lastRequestSeq

        let broken = try await fixture.get()
        #expect(broken.status == 503)
        #expect(broken.json?["error"]?.stringValue == "upstream_unavailable")
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 1, "Modgud rotated the token")
        #expect(try await fixture.tokens()?.refreshOutcomeUnknownSince != nil, "the mark stays: the outcome is unknown")

        try await RefreshFixture.waitOutTheFailureHold()
        let ended = try await fixture.get()
        #expect(ended.status == 401)
        #expect(ended.json?["error"]?.stringValue == "session_expired")
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1, "the spent token was never sent again")
        #expect(ModgudProbe.refreshCount(simulator, "replaysRejected") == 0)
        try await fixture.expectFamilyRevokedByRevocation(since: mark)
        fixture.expectOutcomeUnknownLogged(hiding: [before])
        await fixture.stop()
    }

    /// A 504 comes from a proxy in front of Modgud that gave up waiting for
    /// an answer Modgud may have given: 503 for the browser, the session
    /// stays, and the mark stays with it; a 502 or a 503 redeemed nothing.
    @Test func gatewayTimeoutAnswerKeepsTheMark() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        fixture.lifetime(3600)
        simulator.injectFault(path: "/connect/token", count: 1, .status(504))
        let failed = try await fixture.get()
        #expect(failed.status == 503)
        #expect(failed.header("Retry-After") != nil)
        let kept = try #require(try await fixture.tokens(), "the session stays")
        #expect(kept.refreshOutcomeUnknownSince != nil)

        for status in [502, 503] {
            let other = try await RefreshFixture.start()
            other.lifetime(3600)
            other.harness.simulator.injectFault(path: "/connect/token", count: 1, .status(status))
            #expect(try await other.get().status == 503)
            #expect(try await other.tokens()?.refreshOutcomeUnknownSince == nil, "\(status): the mark is cleared")
            try await RefreshFixture.waitOutTheFailureHold()
            #expect(try await other.get().status == 200, "\(status): the next request refreshes")
            await other.stop()
        }
        await fixture.stop()
    }

    /// A mark written by an instance whose clock runs ahead: nothing tells
    /// how long ago the token was sent, so it is never sent again (and
    /// nothing traps on the negative age).
    @Test func markFromTheFutureIsNeverResent() async throws {
        let fixture = try await RefreshFixture.start(gateway: { $0.refreshReuseLeeway = .seconds(30) })
        let simulator = fixture.harness.simulator
        let sessions = fixture.harness.service.sessions
        var session = try #require(try await sessions.load(cookieHeader: "__Host-bff=" + fixture.cookie))
        var data = session.data
        data.tokens.refreshOutcomeUnknownSince = sessions.now + 3_600_000
        #expect(try await sessions.update(&session, data: data))
        let mark = simulator.lastRequestSeq

        let ended = try await fixture.get()
        #expect(ended.status == 401)
        #expect(ended.json?["error"]?.stringValue == "session_expired")
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).isEmpty, "nothing was sent")
        #expect(fixture.harness.logs.lines.contains { $0.contains(#""event":"refresh.replay_avoided""#) })
        await fixture.stop()
    }

}

