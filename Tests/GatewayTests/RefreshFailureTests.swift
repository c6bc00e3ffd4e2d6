import Configuration
import Core
import HTTP
import ModgudSimulator
import Observability
import Redis
import System
import Testing
import TestSupport
@testable import Gateway

/// The refresh failure classes `RefreshTests` leaves out: Modgud refusing
/// the gateway itself, a refresh that never reached Modgud, and a 429
/// reaching the requests that waited for it on another instance.
@Suite("Token refresh: more failure classes")
struct RefreshFailureTests {
    /// `invalid_client` on a refresh (the gateway's secret no longer
    /// matches Modgud's) ends the session as `invalid_grant` does: the
    /// refresh token cannot be used by this client any more.
    @Test func invalidClientEndsTheSession() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        fixture.lifetime(3600)
        simulator.updateConfig { config in
            for index in config.clients.indices where config.clients[index].id == "bff" {
                config.clients[index].secret = "rotated-at-modgud"
            }
        }
        let mark = simulator.lastRequestSeq

        let refused = try await fixture.get()
        #expect(refused.status == 401)
        #expect(refused.json?["error"]?.stringValue == "session_expired")
        #expect(refused.setCookies.contains { $0.hasPrefix("__Host-bff=") && $0.contains("Max-Age=0") })
        #expect(refused.header("WWW-Authenticate") == nil, "never a Basic challenge for the browser")
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).map { $0["status"]?.intValue } == [401])
        #expect(fixture.upstream.authorizations.isEmpty)
        #expect(try await fixture.tokens() == nil, "the session record is gone")
        #expect(fixture.harness.logs.lines.contains {
            $0.contains(#""event":"refresh.rejected""#) && $0.contains("invalid_client")
        })
        #expect(metricValue(fixture.harness.service.metrics.render(), "bff_refresh_total", #"outcome="rejected""#) == 1)
        await fixture.stop()
    }

    /// Modgud's address stops answering (its connection queue full): the
    /// connect times out before anything is sent. Nothing was redeemed, so
    /// the browser gets 503 with `Retry-After`, the session stays and its
    /// refresh token is not marked as possibly spent.
    @Test func aRefreshThatNeverReachedModgudKeepsTheSessionUnmarked() async throws {
        let fixture = try await RefreshFixture.start()
        fixture.lifetime(3600)
        let before = try #require(try await fixture.tokens())
        let port = fixture.modgudPort
        await fixture.harness.relay.shutdown(gracePeriod: .milliseconds(100))
        let silent = try #require(BlackHoleListener(port: port))

        let started = ContinuousClock.now
        let failed = try await fixture.get()
        #expect(ContinuousClock.now - started >= .seconds(1), "it waited for the connect to time out")
        #expect(failed.status == 503)
        #expect(failed.json?["error"]?.stringValue == "upstream_unavailable")
        #expect(failed.header("Retry-After").flatMap(Int.init).map { $0 > 0 } == true)
        #expect(!failed.setCookies.contains { $0.hasPrefix("__Host-bff=") })
        #expect(fixture.upstream.authorizations.isEmpty)
        let kept = try #require(try await fixture.tokens(), "the session stays")
        #expect(kept.refreshToken == before.refreshToken)
        #expect(kept.refreshOutcomeUnknownSince == nil, "nothing was sent: the outcome is known")
        let lines = fixture.harness.logs.lines
        #expect(lines.contains { $0.contains(#""event":"refresh.modgud_unavailable""#) })
        #expect(!lines.contains { $0.contains(#""event":"refresh.outcome_unknown""#) })
        #expect(metricValue(fixture.harness.service.metrics.render(), "bff_refresh_total", #"outcome="unavailable""#) == 1)
        withExtendedLifetime(silent) {}
        await fixture.stop()
    }

    /// Modgud answers the one refresh with 429 while a request elsewhere
    /// waits for it: a second coordinator on the same Redis, as another
    /// instance has (its own single flight, so it can only wait on the
    /// lock), which reads the record only every 10 s and so learns the
    /// outcome from the signal published through Redis. It gets the same
    /// 429 with its `Retry-After` without asking Modgud itself, and the
    /// session stays.
    @Test func a429ReachesTheRequestsWaitingOnAnotherInstance() async throws {
        let fixture = try await Self.throttled()
        let simulator = fixture.harness.simulator
        let metrics = MetricsRegistry()
        let elsewhere = try fixture.coordinator(.init(skew: .seconds(60), pollInterval: .seconds(10), waitLimit: .seconds(20)),
                                                metrics: metrics)
        let context = RefreshFixture.context()
        fixture.lifetime(3600)
        let before = try #require(try await fixture.tokens())
        var session = try #require(try await fixture.session())
        // The refresh stays at Modgud long enough for the other coordinator to wait on its lock.
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 1500))
        let mark = simulator.lastRequestSeq

        let first = Task { try await fixture.get() }
        try await Self.waitUntilLocked(fixture, session.lockName)
        let started = ContinuousClock.now
        var relayed: HTTPResponse?
        do {
            _ = try await elsewhere.accessToken(for: &session, audience: nil, client: .v4(0x7F00_0001), context: context)
        } catch let answer as RelayedAnswer {
            relayed = answer.response
        }
        #expect(ContinuousClock.now - started < .seconds(5), "woken by the signal, not by its 10 s poll")
        let leader = try await first.value

        #expect(leader.status == 429)
        let retryAfter = try #require(leader.header("Retry-After"))
        #expect(relayed?.status == .tooManyRequests)
        #expect(relayed?.headers["Retry-After"] == retryAfter, "Modgud's Retry-After, as it was")
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1, "the waiter did not ask Modgud")
        #expect(fixture.upstream.authorizations.isEmpty)
        let kept = try #require(try await fixture.tokens(), "the session stays")
        #expect(kept.refreshToken == before.refreshToken)
        #expect(kept.refreshOutcomeUnknownSince == nil)
        let text = metrics.render()
        #expect(metricValue(text, "bff_refresh_total") == 0, "the waiter never refreshed")
        #expect(metricValue(text, "bff_refresh_lock_wait_seconds_count") == 1)
        await fixture.stop()
    }

    /// A request that takes the lock just after a refresh got 429 (as a
    /// waiter that missed the published outcome does) answers the same 429
    /// without asking Modgud. The first refresh here keeps its failure for
    /// 30 s rather than the gateway's 1 s, so that a slow machine cannot
    /// outlast it; that the gateway's second runs out, `RefreshTests` shows
    /// (its tests wait it out, then refresh).
    @Test func a429IsSharedWithTheNextHolder() async throws {
        let fixture = try await Self.throttled()
        let simulator = fixture.harness.simulator
        let metrics = MetricsRegistry()
        let holder = try fixture.coordinator(.init(skew: .seconds(60), failureHold: .seconds(30)), metrics: MetricsRegistry())
        let elsewhere = try fixture.coordinator(.init(skew: .seconds(60)), metrics: metrics)
        let context = RefreshFixture.context()
        fixture.lifetime(3600)
        var session = try #require(try await fixture.session())
        let mark = simulator.lastRequestSeq
        func attempt(_ coordinator: RefreshCoordinator) async throws -> HTTPResponse? {
            do {
                _ = try await coordinator.accessToken(for: &session, audience: nil, client: .v4(0x7F00_0001), context: context)
                return nil
            } catch let answer as RelayedAnswer {
                return answer.response
            }
        }

        let first = try await attempt(holder)
        #expect(first?.status == .tooManyRequests)
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1)
        let shared = try await attempt(elsewhere)
        #expect(shared?.status == .tooManyRequests)
        #expect(shared?.headers["Retry-After"] != nil)
        #expect(shared?.headers["Retry-After"] == first?.headers["Retry-After"], "Modgud's own, as it was")
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1, "shared, not sent again")
        #expect(metricValue(metrics.render(), "bff_refresh_total", #"outcome="held_back""#) == 1)
        #expect(try await fixture.tokens() != nil, "the session stays")
        await fixture.stop()
    }

    /// A fixture whose Modgud allows the client one /connect/token call
    /// an hour, which the sign-in takes: every refresh gets 429.
    static func throttled() async throws -> RefreshFixture {
        try await RefreshFixture.start(simulator: { sim in
            sim.rateLimits.policies[RateLimitPolicyName.oauthToken] = RateLimitPolicy([
                .client: RateLimitRule(limit: 1, windowSeconds: 3600),
            ])
        })
    }

    /// Waits (up to 5 s) until some request holds the refresh lock of the
    /// session `lockName` names, read from Redis without taking it.
    static func waitUntilLocked(_ fixture: RefreshFixture, _ lockName: String) async throws {
        let key = Array(("bff:l:refresh:" + lockName).utf8)
        for _ in 0..<500 {
            if try await fixture.harness.service.redis.send([Array("EXISTS".utf8), key]).integer == 1 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the refresh lock was never taken")
    }
}
