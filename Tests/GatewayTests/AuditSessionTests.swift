import Core
import Testing
import TestSupport
@testable import Gateway

/// `audit.session.ended` (Docs/operations.md, "Audit trail"): once per
/// action, with its reason, the user's `sub` and how many sessions ended.
@Suite("Audit trail: sessions ended", .serialized)
struct AuditSessionTests {
    static func ended(_ harness: GatewayHarness) throws -> [JSON] {
        AuditTrailTests.named("audit.session.ended", try AuditTrailTests.events(harness))
    }

    static func sub(_ browser: Browser) async throws -> String {
        try #require(try await browser.get("/bff/user").json?["user"]?["sub"]?.stringValue)
    }

    @Test func aSecondSignInEndsTheFirstAsReplacedAndALogoutEndsTheSecond() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let sub = try await Self.sub(browser)
        var ended = try Self.ended(harness)
        #expect(ended.map { $0["reason"]?.stringValue } == ["replaced"])
        #expect(ended.first?["sub"]?.stringValue == sub && ended.first?["sessions"]?.intValue == 1)
        #expect(try await browser.post("/bff/logout").status == 204)
        ended = try Self.ended(harness)
        #expect(ended.map { $0["reason"]?.stringValue } == ["replaced", "logout"])
        #expect(ended.last?["sub"]?.stringValue == sub)
        await harness.stop()
    }

    @Test func removingASessionAndLoggingOutEverywhereAreEachOneEvent() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser(), phone = harness.browser(), tablet = harness.browser()
        for (browser, agent) in [(laptop, SessionsSupport.chromeOnMacOS), (phone, SessionsSupport.firefoxOnLinux),
                                 (tablet, SessionsSupport.firefoxOnLinux)] {
            _ = try await SessionsSupport.signIn(harness, browser, userAgent: agent)
        }
        let sub = try await Self.sub(laptop)
        let sessions = try #require(try await laptop.get("/bff/sessions").json?["sessions"]?.arrayValue)
        let phoneID = try #require(sessions.first { $0["current"]?.boolValue == false }?["id"]?.stringValue)
        #expect(try await laptop.send("DELETE", "/bff/sessions/" + phoneID, body: nil).status == 204)
        #expect(try Self.ended(harness).map { $0["reason"]?.stringValue } == ["removed"])
        #expect(try await laptop.post("/bff/logout", ["everywhere": true]).status == 204)
        let ended = try Self.ended(harness)
        #expect(ended.map { $0["reason"]?.stringValue } == ["removed", "everywhere"])
        #expect(ended.last?["sub"]?.stringValue == sub && ended.last?["sessions"]?.intValue == 2)
        await harness.stop()
    }

    @Test func aBackChannelLogoutIsOneEventForEverySessionItEnds() async throws {
        let harness = try await GatewayHarness.start()
        let laptop = harness.browser(), phone = harness.browser()
        _ = try await SessionsSupport.signIn(harness, laptop, userAgent: SessionsSupport.chromeOnMacOS)
        _ = try await SessionsSupport.signIn(harness, phone, userAgent: SessionsSupport.firefoxOnLinux)
        let sub = try await Self.sub(laptop)
        let token = SessionsSupport.logoutToken(SessionsSupport.logoutClaims(harness, [("sub", .string(sub))]))
        #expect(try await SessionsSupport.backchannel(harness, token: token).status == 200)
        let ended = try Self.ended(harness)
        #expect(ended.count == 1 && ended.first?["reason"]?.stringValue == "backchannel")
        #expect(ended.first?["sub"]?.stringValue == sub && ended.first?["sessions"]?.intValue == 2)
        await harness.stop()
    }
}
