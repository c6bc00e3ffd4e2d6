import Testing
import Core
import TestSupport
@testable import Gateway

/// A store that pauses while a refresh's successor is being written (what a
/// Redis failover looks like from the gateway): the successor is kept.
@Suite("Refresh across a short store outage", .serialized)
struct RefreshStoreOutageTests {
    /// Modgud rotates the token while Redis holds writes for 4 s
    /// (`CLIENT PAUSE … WRITE`): the writes time out and are tried again
    /// until Redis is back; the session keeps the successor, Modgud saw one
    /// redemption, and no family is revoked.
    @Test func theSuccessorIsWrittenOnceTheStoreIsBack() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        let before = try #require(try await fixture.tokens())
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 1000))
        fixture.lifetime(3600)
        async let answer = fixture.get()
        _ = try await simulator.faultsStruck()
        // Writes block from now until 3 s after Modgud's answer: longer than
        // a few quick retries would last.
        let port = fixture.harness.redis.port
        let paused = await blocking { RedisControl.call(port: port, ["CLIENT", "PAUSE", "4000", "WRITE"]) }
        #expect(paused == .simple("OK"))
        let response = try await answer
        #expect(response.status == 200)
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 1)
        let after = try #require(try await fixture.tokens(), "the session ended")
        #expect(after.refreshToken != before.refreshToken)
        #expect(after.refreshOutcomeUnknownSince == nil)
        #expect(try await fixture.introspect(try #require(after.refreshToken))["active"]?.boolValue == true)
        #expect(fixture.harness.logs.lines.contains { $0.contains(#""event":"refresh.write_failed""#) })
        #expect(!fixture.harness.logs.lines.contains { $0.contains(#""event":"refresh.successor_lost""#) })
        await fixture.stop()
    }
}
