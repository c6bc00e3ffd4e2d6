import Crypto
import HTTP
import ModgudSimulator
import Observability
import Sessions
import Testing
import TestSupport
import TokenRefreshRedis
@testable import Gateway
@testable import TokenRefresh

/// What anyone able to write to Redis, without a session's cookie, can make
/// of its refresh: nothing a browser is answered with. Forged outcomes on
/// the channel and forged failure records beside the session are refused.
@Suite("Token refresh: outcomes in Redis are authenticated")
struct RefreshOutcomeTrustTests {
    static let foreignKey = try! MACKey(derivedFrom: [UInt8](repeating: 9, count: 32), info: Array("attacker".utf8))

    /// Failure records written straight into the store beside the session
    /// (the old unauthenticated form, a tag under another key, the
    /// session's genuine record kept past its own expiry) are refused: the
    /// next holder asks Modgud and gets fresh tokens, never the forged 429.
    @Test func aForgedFailureRecordIsIgnored() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        let metrics = MetricsRegistry()
        let holder = try fixture.coordinator(.init(skew: .seconds(60), failureHold: .seconds(30)), metrics: metrics)
        let context = RefreshFixture.context()
        var session = try #require(try await fixture.session())
        let lockName = session.lockName
        let now = fixture.harness.service.sessions.now
        let forged429 = RefreshSignal.rateLimited(fields: [.init("Retry-After", "3600")], body: Array("forged".utf8))
        let records = [
            StoredRecord(bytes: Array(#"rate_limited {"headers":[["Retry-After","3600"]],"body":"forged"}"#.utf8),
                         absoluteExpiry: now + 30_000),
            StoredRecord(bytes: forged429.record(lockName: lockName, absoluteExpiry: now + 30_000, key: Self.foreignKey),
                         absoluteExpiry: now + 30_000),
            StoredRecord(bytes: forged429.record(lockName: lockName, absoluteExpiry: now + 10, key: try session.refreshOutcomeKey()),
                         absoluteExpiry: now + 30_000),
        ]
        for (index, record) in records.enumerated() {
            try await fixture.harness.service.refreshStore.rememberFailure("refresh-failed:" + lockName, record: record, hold: .seconds(30))
            let mark = simulator.lastRequestSeq
            let token = try await holder.accessToken(for: &session, audience: nil, client: .v4(0x7F00_0001), context: context)
            #expect(!token.revealed.isEmpty, "record \(index): answered with a fresh token")
            #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1, "record \(index): Modgud was asked")
        }
        let text = fixture.harness.service.metrics.render()
        #expect(metricValue(text, "bff_refresh_outcomes_refused_total", #"source="record""#) == 3)
        #expect(metricValue(metrics.render(), "bff_refresh_total", #"outcome="held_back""#) == 0)
        #expect(!fixture.harness.logs.lines.contains { $0.contains("refresh.outcome_refused") && $0.contains("forged") })
        await fixture.stop()
    }

    /// While a request on another instance waits for a refresh that Modgud
    /// answers with 429, forged outcomes are published into Redis for the
    /// session (no tag, another key's tag): the waiter ignores them and
    /// gets Modgud's real 429, not the forged one.
    @Test func aForgedSignalIsIgnoredAndTheWaiterGetsTheRealOutcome() async throws {
        let fixture = try await RefreshFailureTests.throttled()
        let simulator = fixture.harness.simulator
        let elsewhere = try fixture.coordinator(.init(skew: .seconds(60), pollInterval: .seconds(10), waitLimit: .seconds(20)),
                                                metrics: MetricsRegistry())
        fixture.lifetime(3600)
        let session = try #require(try await fixture.session())
        // Modgud's real answer comes 9 s after the call (under the gateway's
        // 10 s Modgud timeout): time enough, on a loaded machine, for the
        // waiter to register and both forged messages to reach it before the
        // real outcome ends its wait. A message for a lock nobody waits on
        // any more is dropped unread; 6 s proved too short in a loaded
        // parallel run.
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 9000))
        let mark = simulator.lastRequestSeq

        let first = Task { try await fixture.get() }
        try await RefreshFailureTests.waitUntilLocked(fixture, session.lockName)
        let waiting = Task { [session] in
            var session = session
            do {
                _ = try await elsewhere.accessToken(for: &session, audience: nil, client: .v4(0x7F00_0001),
                                                    context: RefreshFixture.context())
                return HTTPResponse?.none
            } catch let answer as RelayedAnswer {
                return answer.response
            }
        }
        // The waiter is registered (a message for nobody is dropped unread).
        let registered = ContinuousClock.now + .seconds(10)
        while fixture.harness.service.refreshSignals.waiterCount(for: session.lockName) == 0, ContinuousClock.now < registered {
            try await Task.sleep(for: .milliseconds(10))
        }
        let forged = RefreshSignal.rateLimited(fields: [.init("Retry-After", "3600")], body: Array("forged".utf8))
        let messages = [
            Array((session.lockName + #" rate_limited {"headers":[["Retry-After","3600"]],"body":"forged"}"#).utf8),
            forged.message(lockName: session.lockName, key: Self.foreignKey),
        ]
        // The gateway's subscription starts in the background: until Redis
        // counts a subscriber, a message would reach nobody. A message for a
        // lock nobody waits on is dropped unread, so it probes safely.
        let subscribed = ContinuousClock.now + .seconds(10)
        while try await fixture.harness.service.redis.publish(RedisRefreshStore.channel, Array("probe-lock refreshed".utf8)) == 0,
              ContinuousClock.now < subscribed {
            try await Task.sleep(for: .milliseconds(10))
        }
        for message in messages { _ = try await fixture.harness.service.redis.publish(RedisRefreshStore.channel, message) }
        #expect(fixture.harness.service.refreshSignals.waiterCount(for: session.lockName) > 0,
                "the real outcome came before the forged messages were sent")
        let relayed = try await waiting.value
        let leader = try await first.value

        #expect(leader.status == 429)
        #expect(relayed?.status == .tooManyRequests)
        #expect(relayed?.headers["Retry-After"] != "3600")
        #expect(relayed?.headers["Retry-After"] == leader.header("Retry-After"), "Modgud's own 429")
        if case .bytes(let body)? = relayed?.body { #expect(body != Array("forged".utf8)) }
        #expect(ModgudProbe.refreshCalls(simulator, since: mark).count == 1, "the waiter did not ask Modgud")
        #expect(metricValue(fixture.harness.service.metrics.render(), "bff_refresh_outcomes_refused_total", #"source="message""#) == 2)
        await fixture.stop()
    }
}
