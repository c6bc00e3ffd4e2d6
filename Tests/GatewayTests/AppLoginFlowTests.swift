import Configuration
import Core
import Foundation
import HTTP
import Sessions
import Testing
import TestSupport
@testable import Gateway

/// The native app hand-off end to end (Docs/handoff.md): the app registers
/// its challenge, the browser's fresh sign-in moves into a code for the
/// app's callback, and the app's web view redeems it for a session of its
/// own holding the moved tokens.
@Suite("App hand-off: the sign-in moves to the app")
struct AppLoginFlowTests {
    @Test func theBrowserSignInMovesToTheWebViewWhoseRefreshUsesTheMovedTokenOnce() async throws {
        let fixture = try await RefreshFixture.start(gateway: { AppLoginSupport.configure(&$0) })
        let harness = fixture.harness
        let browser = harness.browser()
        browser.setCookie("__Host-bff", fixture.cookie)
        let before = try #require(try await fixture.session())
        let movedRefresh = try #require(before.data.tokens.refreshToken)
        let browserUser = try await browser.get("/bff/user")
        try #require(browserUser.status == 200)

        let webView = harness.browser()
        let pair = AppLoginSupport.PKCEPair()
        let started = try await AppLoginSupport.start(webView, pair)
        #expect(started.status == 201)
        #expect(started.json?["expiresIn"]?.intValue == 600)
        let id = try #require(started.json?["requestId"]?.stringValue)
        #expect(id.count == 43, "256 random bits in base64url")
        let described = try await browser.get("/bff/app-login/" + id)
        #expect(described.status == 200)
        #expect(described.json?["app"]?.stringValue == AppLoginSupport.appName)
        #expect((590...600).contains(described.json?["expiresIn"]?.intValue ?? 0))

        let answered = try await AppLoginSupport.code(browser, requestID: id, state: "s p&c=1/~")
        #expect(answered.status == 200)
        let redirect = try #require(answered.json?["redirect"]?.stringValue)
        #expect(redirect.hasPrefix(AppLoginSupport.callback + "?code="))
        #expect(redirect.hasSuffix("&state=s%20p%26c%3D1%2F~") || redirect.hasSuffix("&state=s%20p%26c%3D1%2F%7E"),
                "the state percent-encoded: \(redirect.split(separator: "&").last ?? "")")
        #expect(answered.json?["intent"] == nil, "no Android package configured")
        #expect(answered.setCookie(named: "__Host-bff")?.contains("Max-Age=0") == true, "the browser's cookie expired")
        #expect(browser.cookies["__Host-bff"] == nil)
        let stale = try await LoopbackCall.send(port: harness.port, "GET", "/bff/user",
                                                headers: LoopbackCall.browserHeaders(cookie: fixture.cookie))
        #expect(stale.status == 401, "the browser session ended")
        #expect(try await fixture.session() == nil)
        let code = try #require(AppLoginSupport.query(redirect)["code"])
        #expect(code.count == 43)

        let redeemed = try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier)
        #expect(redeemed.status == 200)
        #expect(redeemed.json?["user"]?["email"]?.stringValue == SignInFlowTests.email)
        let appCookie = try #require(webView.cookies["__Host-bff"])
        #expect(appCookie != fixture.cookie)
        let appSession = try #require(try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + appCookie))
        #expect(appSession.data.method == .app)
        #expect(appSession.data.tokens.refreshToken == movedRefresh, "the tokens moved")
        #expect(appSession.authenticatedAt == before.authenticatedAt, "the original sign-in time is kept")
        let appUser = try await webView.get("/bff/user")
        #expect(appUser.status == 200)
        #expect(appUser.json?["session"]?["authenticatedAt"] == browserUser.json?["session"]?["authenticatedAt"])

        let sessions = try await webView.get("/bff/sessions")
        let listed = try #require(sessions.json?["sessions"]?.arrayValue)
        #expect(listed.count == 1, "only the app session: the browser's moved, it was not copied")
        #expect(listed.first?["method"]?.stringValue == "app")
        #expect(listed.first?["current"]?.boolValue == true)

        // The web view's API call: the 1-second access token is refreshed
        // once, with the moved refresh token, and the call carries the new one.
        fixture.lifetime(3600)
        let mark = harness.simulator.lastRequestSeq
        fixture.upstream.reset()
        let api = try await LoopbackCall.send(port: harness.port, "GET", "/api/items",
                                              headers: LoopbackCall.browserHeaders(cookie: appCookie))
        #expect(api.status == 200)
        #expect(ModgudProbe.refreshCalls(harness.simulator, since: mark).count == 1)
        let refreshed = try #require(try await harness.service.sessions.load(cookieHeader: "__Host-bff=" + appCookie))
        #expect(fixture.upstream.authorizations == ["Bearer " + refreshed.data.tokens.accessToken.revealed])
        #expect(try await fixture.introspect(movedRefresh)["active"]?.boolValue == false, "spent by the one refresh")
        #expect(ModgudProbe.refreshCount(harness.simulator, "replaysRejected") == 0)
        #expect(try await fixture.revokedFamilies() == 0)

        let metrics = try await LoopbackCall.send(port: harness.adminPort, "GET", "/metrics").bodyText
        for step in ["start", "code", "session"] {
            #expect(metricValue(metrics, "bff_app_handoffs_total", #"step="\#(step)",outcome="ok""#) == 1, "\(step)")
        }
        let handoffs = try AuditTrailTests.events(harness).filter { $0["event"]?.stringValue?.hasPrefix("audit.handoff.") == true }
        #expect(handoffs.map { $0["event"]?.stringValue } == ["audit.handoff.start", "audit.handoff.code", "audit.handoff.session"])
        #expect(handoffs.allSatisfy { $0["outcome"]?.stringValue == "ok" })
        for line in harness.audit.lines { #expect(!line.contains(code) && !line.contains(id) && !line.contains(pair.verifier)) }
        await fixture.stop()
    }

    @Test func aPasskeySignInHandsOffTheSameWay() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let authenticator = PasskeyEnrolment()
        try await authenticator.enrol(harness: harness, email: SignInFlowTests.email, origin: "http://localhost:8080")
        let browser = harness.browser()
        let begun = try await browser.post("/bff/passkey/begin")
        let assertion = try await authenticator.assert(options: try #require(begun.json?["options"]), origin: "http://localhost:8080")
        #expect(try await browser.post("/bff/passkey/redeem", ["assertion": assertion]).status == 200)
        let signedIn = try #require(try await SessionsSupport.session(harness, browser))
        #expect(signedIn.data.method == .passkey)

        let webView = harness.browser()
        let pair = AppLoginSupport.PKCEPair()
        let code = try await AppLoginSupport.handOff(browser, webView: webView, pair)
        let redeemed = try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier)
        #expect(redeemed.status == 200)
        let moved = try #require(try await SessionsSupport.session(harness, webView))
        #expect(moved.data.method == .app)
        #expect(moved.data.tokens.refreshToken == signedIn.data.tokens.refreshToken)
        #expect(try await webView.get("/bff/user").status == 200)
        await harness.stop()
    }

    @Test func anOlderSessionOfTheWebViewEndsAndItsTokensAreRevoked() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let webView = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, webView).status == 200)
        let older = try #require(try await SessionsSupport.session(harness, webView))
        let pair = AppLoginSupport.PKCEPair()
        let code = try await AppLoginSupport.handOff(browser, webView: webView, pair)
        #expect(try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier).status == 200)
        #expect(try await harness.service.sessions.reload(older).value == nil, "the web view's older session ended")
        let port = harness.relay.localAddress!.port
        let olderRefresh = try #require(older.data.tokens.refreshToken)
        #expect(try await AppLoginSupport.waitUntil {
            try await ModgudProbe.introspect(port: port, olderRefresh.revealed)["active"]?.boolValue == false
        }, "its refresh token revoked")
        await harness.stop()
    }

    @Test func cancelEndsTheBrowserSignInAndAnswersTheCancelledRedirect() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0, package: "app.mowdeck.mobile") })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let session = try #require(try await SessionsSupport.session(harness, browser))
        let refresh = try #require(session.data.tokens.refreshToken)
        let id = try await AppLoginSupport.requestID(harness.browser(), AppLoginSupport.PKCEPair())
        let cancelled = try await browser.post("/bff/app-login/cancel", ["requestId": .string(id), "state": "xyz"])
        #expect(cancelled.status == 200)
        #expect(cancelled.json?["redirect"]?.stringValue == AppLoginSupport.callback + "?error=cancelled&state=xyz")
        #expect(cancelled.json?["intent"]?.stringValue
            == "intent://auth/callback?error=cancelled&state=xyz#Intent;scheme=mowdeck;package=app.mowdeck.mobile;end")
        #expect(cancelled.setCookie(named: "__Host-bff")?.contains("Max-Age=0") == true)
        #expect(try await harness.service.sessions.reload(session).value == nil, "the browser sign-in ended")
        let port = harness.relay.localAddress!.port
        #expect(try await AppLoginSupport.waitUntil {
            try await ModgudProbe.introspect(port: port, refresh.revealed)["active"]?.boolValue == false
        }, "as at logout: its refresh token revoked")
        let again = try await browser.post("/bff/app-login/cancel", ["requestId": .string(id), "state": "xyz"])
        #expect(again.status == 403)
        #expect(again.json?["error"]?.stringValue == "app_request_invalid")
        await harness.stop()
    }

    @Test func theIntentFormGoesOnlyToTheConfiguredPackage() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0, package: "app.mowdeck.mobile") })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let id = try await AppLoginSupport.requestID(harness.browser(), AppLoginSupport.PKCEPair())
        let answered = try await AppLoginSupport.code(browser, requestID: id, state: "st")
        #expect(answered.status == 200)
        let redirect = try #require(answered.json?["redirect"]?.stringValue)
        let intent = try #require(answered.json?["intent"]?.stringValue)
        let code = try #require(AppLoginSupport.query(redirect)["code"])
        #expect(intent == "intent://auth/callback?code=\(code)&state=st#Intent;scheme=mowdeck;package=app.mowdeck.mobile;end")
        #expect(AppLoginSupport.query(intent)["code"] == code)
        await harness.stop()
    }
}
