import Testing
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// A browser request naming the session cookie twice (a cookie planted
/// beside the gateway's own) is served as one without a session, in either
/// order, and its answer expires the cookie (Docs/sessions.md, "The cookie").
@Suite("Doubled session cookie", .serialized)
struct DoubledCookieTests {
    @Test func aDoubledSessionCookieIsNoSessionAndIsExpired() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user),
                         RouteConfig(prefix: "/maybe/", upstream: upstream.url("/base/"), token: .userOrAnonymous)]
        })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let cookie = try #require(browser.cookies["__Host-bff"])
        let expiring = "__Host-bff=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
        for header in ["__Host-bff=\(cookie); __Host-bff=planted", "__Host-bff=planted; __Host-bff=\(cookie)"] {
            let doubled = harness.browser()
            let user = try await doubled.get("/bff/user", headers: [("Cookie", header)])
            #expect(user.status == 401)
            #expect(user.values("Set-Cookie") == [expiring])
            let api = try await doubled.get("/api/echo", headers: [("Cookie", header)])
            #expect(api.status == 401)
            #expect(api.values("Set-Cookie") == [expiring])
            let maybe = try await doubled.get("/maybe/echo", headers: [("Cookie", header)])
            #expect(maybe.status == 200)
            #expect(maybe.values("Set-Cookie") == [expiring])
            #expect(upstream.requests.last?.bearer == nil, "served without a token")
        }
        #expect(upstream.count == 2, "only the anonymous calls went upstream")
        #expect(try await browser.get("/api/echo").status == 200, "the session itself lives on")
        await harness.stop()
        await upstream.stop()
    }

    /// The second sign-in step with the flow cookie named twice, in either
    /// order: no step is found (the flow is not taken), the answer expires
    /// the flow cookie, and the browser's own flow cookie still finishes
    /// the step afterwards.
    @Test func aDoubledFlowCookieContinuesNoStepAndIsExpired() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let grace = "grace@example.com"
        #expect(try await SignInFlowTests.signInWithCode(harness, browser, email: grace).json?["error"]?.stringValue
                == "mfa_required")
        let flow = try #require(browser.cookies["__Host-bff-flow"])
        let totp = try #require(harness.simulator.totpCode(for: grace))
        let expiring = "__Host-bff-flow=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
        for header in ["__Host-bff-flow=\(flow); __Host-bff-flow=planted", "__Host-bff-flow=planted; __Host-bff-flow=\(flow)"] {
            let refused = try await harness.browser().post("/bff/mfa", ["totpCode": .string(totp)], headers: [("Cookie", header)])
            #expect(refused.status == 400)
            #expect(refused.json?["error"]?.stringValue == "invalid_request")
            #expect(refused.values("Set-Cookie") == [expiring])
        }
        let done = try await browser.post("/bff/mfa", ["totpCode": .string(totp)])
        #expect(done.status == 200, "the step was never taken")
        await harness.stop()
    }
}
