import Core
import Sessions
import Testing
import TestSupport
@testable import Gateway

/// The hand-off does not look at how the browser signed in: a magic-link
/// sign-in and one through Modgud's own pages (the code flow) move to the
/// app's web view exactly as an e-mail code or a passkey sign-in does
/// (AppLoginFlowTests).
@Suite("App hand-off after every sign-in method")
struct AppLoginMethodTests {
    @Test func aMagicLinkSignInHandsOffTheSameWay() async throws {
        let harness = try await GatewayHarness.start(gateway: { AppLoginSupport.configure(&$0) })
        let browser = harness.browser()
        let email = SignInFlowTests.email
        #expect(try await browser.post("/bff/magic/request", ["email": .string(email)]).status == 200)
        let mail = try #require(harness.simulator.mail(to: email).first { $0.kind.contains("magic") })
        let redeemed = try await browser.post("/bff/magic/redeem", ["userId": .string(try #require(mail.userId)),
                                                                    "token": .string(try #require(mail.token))])
        try #require(redeemed.status == 200)
        let signedIn = try #require(try await SessionsSupport.session(harness, browser))
        #expect(signedIn.data.method == .magic)
        try await Self.expectHandOff(from: browser, signedIn, webView: harness.browser(),
                                     session: { try await SessionsSupport.session(harness, $0) })
        await harness.stop()
    }

    @Test func aCodeFlowSignInHandsOffTheSameWay() async throws {
        let deployment = try await CodeFlowDeployment.start(gateway: { AppLoginSupport.configure(&$0) })
        let browser = deployment.browser()
        let callback = try await deployment.signIn(browser)
        try #require(callback.status == 302)
        let signedIn = try #require(try await deployment.session(of: browser))
        #expect(signedIn.data.method == .code)
        try await Self.expectHandOff(from: browser, signedIn, webView: deployment.browser(),
                                     session: { try await deployment.session(of: $0) })
        await deployment.stop()
    }

    /// The browser's session moves to `webView`: the same refresh token,
    /// `method: app`, the browser signed out and the web view signed in.
    private static func expectHandOff(from browser: Browser, _ signedIn: Session, webView: Browser,
                                      session: (Browser) async throws -> Session?) async throws {
        let pair = AppLoginSupport.PKCEPair()
        let code = try await AppLoginSupport.handOff(browser, webView: webView, pair)
        #expect(try await browser.get("/bff/user").status == 401, "the browser session has ended")
        let redeemed = try await AppLoginSupport.redeem(webView, code: code, verifier: pair.verifier)
        #expect(redeemed.status == 200)
        let moved = try #require(try await session(webView))
        #expect(moved.data.method == .app)
        #expect(moved.data.subject == signedIn.data.subject)
        #expect(moved.data.tokens.refreshToken == signedIn.data.tokens.refreshToken, "moved, not copied or renewed")
        #expect(moved.authenticatedAt == signedIn.authenticatedAt, "the original sign-in time")
        #expect(try await webView.get("/bff/user").status == 200)
    }
}
