import Testing
import Configuration
import Core
import HTTP
import ModgudSimulator
import Sessions
import TestSupport
@testable import Gateway

/// Every way a session ends revokes the tokens it held at Modgud, so no
/// token family outlives its session there (Docs/sessions.md, "Ending a
/// session"). Logout and an access token Modgud stopped honouring are
/// tested with their endpoints (`AccountEndpointTests`), an unknown
/// refresh outcome with the refresh (`RefreshTests`).
@Suite("Session end revokes its tokens", .serialized)
struct SessionEndRevocationTests {
    /// A sign-in in a browser that has a session ends that session, and
    /// its family at Modgud with it; the new session is unaffected.
    @Test func signingInOverASessionRevokesTheEarlierFamily() async throws {
        let fixture = try await RefreshFixture.start()
        fixture.lifetime(3600)
        let earlier = try #require(try await fixture.tokens())
        let browser = fixture.harness.browser()
        browser.setCookie("__Host-bff", fixture.cookie)
        #expect(try await SignInFlowTests.signInWithCode(fixture.harness, browser).status == 200)
        #expect(browser.cookies["__Host-bff"] != fixture.cookie, "a new session")

        try await fixture.expectFamilyRevokedByRevocation(since: 0)
        #expect(try await fixture.introspect(try #require(earlier.refreshToken))["active"]?.boolValue == false)
        #expect(try await fixture.introspect(earlier.accessToken)["active"]?.boolValue == false)
        #expect(try await fixture.get("/bff/user").status == 401, "the earlier cookie names nothing")
        #expect(try await browser.get("/bff/user").status == 200, "the new session lives")
        await fixture.stop()
    }

    /// Modgud answers a refresh with a 200 whose body holds no tokens: the
    /// successor cannot be read, so the session ends (`401
    /// session_expired`) and its family is revoked rather than left live.
    @Test func aRefreshAnswerThatCannotBeReadEndsTheSessionAndRevokesItsFamily() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        let before = try #require(try await fixture.tokens())
        simulator.injectFault(path: "/connect/token", count: 1, .status(200))
        let mark = simulator.lastRequestSeq

        let ended = try await fixture.get()
        #expect(ended.status == 401)
        #expect(ended.json?["error"]?.stringValue == "session_expired")
        #expect(try await fixture.tokens() == nil)
        try await fixture.expectFamilyRevokedByRevocation(since: mark)
        #expect(try await fixture.introspect(try #require(before.refreshToken))["active"]?.boolValue == false)
        #expect(fixture.harness.logs.lines.contains { $0.contains(#""event":"refresh.unreadable_answer""#) })
        #expect(fixture.upstream.authorizations.isEmpty)
        await fixture.stop()
    }

    /// Modgud rotates the token, and the store goes down before the
    /// successor is written: the successor in hand is revoked, and with it
    /// the family, though the session's record cannot even be removed.
    @Test func aSuccessorThatCannotBeStoredIsRevoked() async throws {
        let fixture = try await RefreshFixture.start()
        let simulator = fixture.harness.simulator
        simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 2000))
        let mark = simulator.lastRequestSeq
        async let answer = fixture.get()
        // The refresh reached Modgud (its slow answer is under way): the store goes down now.
        _ = try await simulator.faultsStruck()
        await fixture.harness.redis.stop()
        let response = try await answer
        #expect(response.status != 200)
        #expect(ModgudProbe.refreshCount(simulator, "redemptions") == 1)
        try await fixture.expectFamilyRevokedByRevocation(since: mark)
        #expect(fixture.harness.logs.lines.contains { $0.contains(#""event":"refresh.successor_lost""#) })
        await fixture.stop()
    }

    /// A revocation still running when the gateway is asked to stop is
    /// waited for (within the drain) before the client to Modgud closes:
    /// the session that ended just before shutdown leaves no live family.
    @Test func aShutdownWaitsForTheRevocationsStillRunning() async throws {
        let fixture = try await RefreshFixture.start(gateway: { $0.shutdownTimeout = .seconds(5) })
        fixture.lifetime(3600)
        let simulator = fixture.harness.simulator
        simulator.injectFault(path: "/connect/revoke", count: 2, .delay(milliseconds: 1500))
        let browser = fixture.harness.browser()
        browser.setCookie("__Host-bff", fixture.cookie)
        #expect(try await SignInFlowTests.signInWithCode(fixture.harness, browser).status == 200)
        await fixture.stop()
        #expect(ModgudProbe.refreshCount(simulator, "familyRevocations") == 1, "revoked before the gateway stopped")
    }
}
