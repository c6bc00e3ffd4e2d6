import Configuration
import Core
import HTTP
import Observability
import Sessions
import System
import Testing
import TestSupport
import TokenRefresh
@testable import Gateway

/// The refresh lock in Redis while Modgud is asked: its lease is renewed
/// for as long as the call lasts, so no other instance takes the lock and
/// sends the token a second time, and the time others wait for it is
/// measured on its own.
@Suite("Token refresh: the lock", .serialized)
struct RefreshLockTests {
    /// Two coordinators on one Redis, as two instances have, with a lease
    /// (2 s) far shorter than Modgud's answer (6 s). Without renewal
    /// the second would take the expired lock, find the token marked as
    /// possibly spent and end the session; renewed, it waits and gets the
    /// successor, woken by the outcome published through Redis.
    @Test func theLeaseIsRenewedWhileModgudIsAsked() async throws {
        let fixture = try await RefreshFixture.start()
        let service = fixture.harness.service
        let simulator = fixture.harness.simulator
        // The waiter polls the record only every 20 s: the published outcome must wake it.
        let settings = RefreshCoordinator.Settings(skew: .seconds(60), lease: .seconds(2),
                                                   pollInterval: .seconds(20), waitLimit: .seconds(30))
        let (firstMetrics, secondMetrics) = (MetricsRegistry(), MetricsRegistry())
        let first = try fixture.coordinator(settings, metrics: firstMetrics)
        let second = try fixture.coordinator(settings, metrics: secondMetrics)
        let context = RefreshFixture.context()
        let session = try #require(try await fixture.session())
        fixture.lifetime(3600)
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 6000))
        let mark = simulator.lastRequestSeq

        let leading = Task {
            var copy = session
            return try await first.accessToken(for: &copy, audience: nil, client: .v4(0x7F00_0001), context: context).revealed
        }
        try await Task.sleep(for: .milliseconds(4500))
        let probe = try await service.refreshStore.acquireLock("refresh:" + session.lockName, lease: .seconds(1))
        #expect(probe == nil, "the lock is still held after two and a quarter leases")
        if let probe { _ = try await service.refreshStore.releaseLock(probe) }

        var copy = session
        let waitStarted = ContinuousClock.now
        let waited = try await second.accessToken(for: &copy, audience: nil, client: .v4(0x7F00_0001), context: context).revealed
        #expect(ContinuousClock.now - waitStarted < .seconds(10), "woken by the signal, not by its 20 s poll")
        let refreshed = try await leading.value
        #expect(waited == refreshed, "the second got the successor")
        #expect(try await fixture.tokens()?.accessToken.revealed == refreshed)
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1)
        #expect(ModgudProbe.refreshCount(simulator, "replaysRejected") == 0)
        #expect(try await fixture.revokedFamilies() == 0)

        // Only the one that waited counts a lock wait: about the last 1.5 s
        // of Modgud's 6 s, never the leader's own call.
        let firstText = firstMetrics.render()
        let secondText = secondMetrics.render()
        #expect(metricValue(firstText, "bff_refresh_lock_wait_seconds_count") == 0)
        #expect(metricValue(firstText, "bff_refresh_wait_seconds_count") == 1)
        #expect(metricValue(secondText, "bff_refresh_lock_wait_seconds_count") == 1)
        let lockWait = metricValue(secondText, "bff_refresh_lock_wait_seconds_sum")
        #expect(lockWait > 0.5 && lockWait < 6, "\(lockWait) s")
        #expect(metricValue(secondText, "bff_refresh_successor_hits_total", #"source="store""#) == 1)
        await fixture.stop()
    }

    /// A lock taken by an instance that then died (its 800 ms lease runs
    /// out): the request waits, takes the lock and refreshes. Its wait
    /// counts once, about the lease; its own call to Modgud (1 s) does not.
    @Test func aWaiterThatTakesTheLockCountsItsWaitOnce() async throws {
        let fixture = try await RefreshFixture.start()
        let service = fixture.harness.service
        let metrics = MetricsRegistry()
        let coordinator = try fixture.coordinator(.init(skew: .seconds(60)), metrics: metrics)
        let context = RefreshFixture.context()
        var session = try #require(try await fixture.session())
        let abandoned = try await service.refreshStore.acquireLock("refresh:" + session.lockName, lease: .milliseconds(800))
        #expect(abandoned != nil)
        fixture.lifetime(3600)
        fixture.harness.simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 1000))

        _ = try await coordinator.accessToken(for: &session, audience: nil, client: .v4(0x7F00_0001), context: context)
        let text = metrics.render()
        #expect(metricValue(text, "bff_refresh_total", #"outcome="ok""#) == 1, "it refreshed itself")
        #expect(metricValue(text, "bff_refresh_lock_wait_seconds_count") == 1, "one wait, counted once")
        let waited = metricValue(text, "bff_refresh_lock_wait_seconds_sum")
        #expect(waited > 0.5 && waited < 1.5, "about the lease, without the call: \(waited) s")
        #expect(metricValue(text, "bff_refresh_wait_seconds_sum") > 1.5, "the whole wait has the call too")
        await fixture.stop()
    }

    /// Fifty requests of one instance: the one that refreshes counts no
    /// lock wait; each that joined it counts one.
    @Test func requestsThatJoinALocalRefreshCountTheirWait() async throws {
        let fixture = try await RefreshFixture.start()
        fixture.lifetime(3600)
        fixture.harness.simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 1000))
        let responses = try await LoopbackCall.burst("/api/items", cookie: fixture.cookie, ports: [fixture.harness.port],
                                                     perPort: 50)
        #expect(responses.map { $0?.status ?? 0 } == Array(repeating: 200, count: 50))
        let metrics = fixture.harness.service.metrics.render()
        let joined = metricValue(metrics, "bff_refresh_successor_hits_total", #"source="local""#)
        #expect(joined >= 1)
        #expect(metricValue(metrics, "bff_refresh_lock_wait_seconds_count") == joined)
        #expect(metricValue(metrics, "bff_refresh_wait_seconds_count") >= joined + 1)
        await fixture.stop()
    }

    /// The refresh skew is 60 s unless configured, as the issue and
    /// Docs/configuration.md say.
    @Test func theDefaultSkewIsSixtySeconds() {
        #expect(GatewayConfig.defaults.refreshSkew == .seconds(60))
        #expect(GatewayService.refreshSettings(GatewayConfig.defaults).skew == .seconds(60))
    }
}
