import Testing
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// What another origin and a cache in front get from the gateway
/// (Docs/security.md): no CORS grant, ever, and no `/bff/*` answer a
/// cache may keep.
@Suite("Cross-origin and cacheability", .serialized)
struct CrossOriginTests {
    /// A CORS preflight (which cannot carry `X-CSRF`) for a `/bff/*`
    /// endpoint and for a proxied route is refused like any request
    /// without the proof: 403, no `Access-Control-Allow-*` field, nothing
    /// upstream. Nor does any ordinary answer grant another origin access.
    @Test func noOriginIsGrantedCrossOriginAccess() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)]
        })
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        let preflight = [("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST"),
                         ("Access-Control-Request-Headers", "x-csrf, content-type")]
        for path in ["/bff/logout", "/api/items", "/bff/user"] {
            let answer = try await browser.send("OPTIONS", path, body: nil, headers: preflight, csrf: false)
            #expect(answer.status == 403 || answer.status == 405, "\(path): \(answer.status)")
            #expect(!answer.headers.contains { $0.0.lowercased().hasPrefix("access-control-") }, "\(path)")
        }
        #expect(upstream.count == 0, "no preflight reached the upstream")
        for answer in browser.received.withLock({ $0 }) {
            #expect(!answer.headers.contains { $0.0.lowercased().hasPrefix("access-control-") })
        }
        #expect(try await browser.get("/bff/user").status == 200, "the session is untouched")
        await harness.stop()
        await upstream.stop()
    }

    /// Every `/bff/*` answer, success or refusal, says `Cache-Control:
    /// no-store`: a cache in front never keeps a user, a sign-in answer or
    /// a cookie.
    @Test func everyBffAnswerIsNoStore() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        #expect(try await SignInFlowTests.signInWithCode(harness, browser).status == 200)
        _ = try await browser.get("/bff/user")
        _ = try await browser.get("/bff/capabilities")
        _ = try await browser.post("/bff/otp/redeem", ["email": "x@example.com", "code": "000000"])
        _ = try await browser.post("/bff/logout")
        _ = try await browser.get("/bff/user")
        let answers = browser.received.withLock { $0 }
        #expect(answers.count == 7)
        for answer in answers {
            #expect(answer.values("Cache-Control") == ["no-store"], "\(answer.status)")
        }
        await harness.stop()
    }
}
