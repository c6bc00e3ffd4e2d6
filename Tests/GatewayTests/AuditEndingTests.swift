import Core
import Testing
import TestSupport
@testable import Gateway

/// `audit.session.ended` for the endings no browser asked for, and the
/// app hand-off's sign-in (Docs/operations.md, "Audit trail"): each once
/// per ending, however many requests learn of it.
@Suite("Audit trail: sessions the gateway ends, and the app hand-off")
struct AuditEndingTests {
    @Test func aRefusedRefreshIsOneEndingForEveryRequestThatMetIt() async throws {
        let fixture = try await RefreshFixture.start()
        let session = try #require(try await fixture.session())
        let refreshToken = try #require(session.data.tokens.refreshToken)
        #expect(try await ModgudProbe.revoke(port: fixture.modgudPort, refreshToken.revealed) == 200)
        try await Task.sleep(for: .milliseconds(1100))   // the 1-second access token has lapsed
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await fixture.get().status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0 == 401 }, "\(answers)")
        let ended = try AuditSessionTests.ended(fixture.harness)
        #expect(ended.count == 1, "\(ended)")
        #expect(ended.first?["reason"]?.stringValue == "refresh_refused" && ended.first?["cause"]?.stringValue == "rejected")
        #expect(ended.first?["sub"]?.stringValue == session.data.subject)
        await fixture.stop()
    }

    @Test func anAccessTokenThatRunsOutWithNothingToRenewItIsAnExpiry() async throws {
        let fixture = try await RefreshFixture.start(gateway: { $0.scopes = "openid profile email" })
        let session = try #require(try await fixture.session())
        #expect(session.data.tokens.refreshToken == nil, "no offline_access: no refresh token")
        try await Task.sleep(for: .milliseconds(1100))
        let answer = try await fixture.get()
        #expect(answer.status == 401 && answer.json?["error"]?.stringValue == "session_expired")
        let ended = try AuditSessionTests.ended(fixture.harness)
        #expect(ended.map { $0["reason"]?.stringValue } == ["expired"])
        #expect(ended.first?["cause"]?.stringValue == "no_refresh_token")
        #expect(ended.first?["sub"]?.stringValue == session.data.subject)
        await fixture.stop()
    }

    @Test func theHandOffEndsTheBrowserSessionAndSignsInTheWebView() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let browser = harness.browser(), webView = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let sub = try await AuditSessionTests.sub(browser)
        let pair = AppLoginSupport.PKCEPair()
        let code = try await AppLoginSupport.handOff(browser, webView: webView, pair)
        #expect(try AuditSessionTests.ended(harness).map { $0["reason"]?.stringValue } == ["handed_off"])
        #expect(try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier).status == 200)
        let succeeded = AuditTrailTests.named("audit.signin.succeeded", try AuditTrailTests.events(harness))
        #expect(succeeded.map { $0["method"]?.stringValue } == ["otp", "app"])
        #expect(succeeded.last?["sub"]?.stringValue == sub)
        let signIns = harness.service.metrics.counter("bff_signins_total", help: "", labels: ["method", "outcome"])
        #expect(signIns.value(["app", "succeeded"]) == 1)

        // A second code, redeemed with the wrong verifier: a failed sign-in, and the code is burnt.
        let again = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, again).status == 200)
        let burnt = try await AppLoginSupport.handOff(again, webView: harness.browser(), AppLoginSupport.PKCEPair())
        #expect(try await AppLoginSupport.redeem(harness.browser(), code: burnt, verifier: pair.verifier).status == 400)
        #expect(try await AppLoginSupport.redeem(harness.browser(), code: burnt, verifier: pair.verifier).status == 400)
        let failed = AuditTrailTests.named("audit.signin.failed", try AuditTrailTests.events(harness))
        #expect(failed.map { $0["reason"]?.stringValue } == ["wrong_verifier", "invalid_code"])
        #expect(failed.allSatisfy { $0["method"]?.stringValue == "app" })
        #expect(failed.first?["sub"]?.stringValue == sub && failed.last?["sub"] == nil)
        #expect(signIns.value(["app", "failed"]) == 2)
        for line in harness.audit.lines { #expect(!line.contains(code) && !line.contains(burnt) && !line.contains(pair.verifier)) }
        await harness.stop()
    }

    @Test func aCancelledHandOffEndsTheBrowserSessionItCarried() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let sub = try await AuditSessionTests.sub(browser)
        let id = try await AppLoginSupport.requestID(harness.browser(), AppLoginSupport.PKCEPair())
        let cancelled = try await browser.post("/bff/app-login/cancel", ["requestId": .string(id), "state": "s"])
        #expect(cancelled.status == 200)
        let events = try AuditTrailTests.events(harness)
        let ended = AuditTrailTests.named("audit.session.ended", events)
        #expect(ended.map { $0["reason"]?.stringValue } == ["handoff_cancelled"] && ended.first?["sub"]?.stringValue == sub)
        #expect(AuditTrailTests.named("audit.handoff.cancel", events).map { $0["outcome"]?.stringValue } == ["ok"])
        for line in harness.audit.lines { #expect(!line.contains(id)) }
        await harness.stop()
    }
}
