import Testing
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// Which audiences a sign-in asks for, and what a session's first API call
/// gets (Docs/proxy.md, "Audiences").
@Suite("Sign-in audiences", .serialized)
struct SignInAudienceTests {
    static let api = "https://api.example.com"
    static let orders = "https://orders.example.com"
    static let machine = "https://machine.example.com"

    /// The default audience and the user routes' own; never a `client`
    /// route's, whose audience no user token may carry.
    @Test func aSignInAsksForTheUserRoutesAudiencesOnly() throws {
        var config = GatewayConfig.defaults
        let upstream = HTTPURL("https://up.example.com/")!
        config.routes = [RouteConfig(prefix: "/a/", upstream: upstream, token: .user),
                         RouteConfig(prefix: "/m/", upstream: upstream, token: .client, resource: Self.machine)]
        #expect(GatewayService.signInAudiences(config).isEmpty, "a client route's audience is not asked for")
        config.routes.append(RouteConfig(prefix: "/o/", upstream: upstream, token: .userOrAnonymous, resource: Self.orders))
        config.resource = Self.api
        #expect(GatewayService.signInAudiences(config) == [Self.api, Self.orders])
    }

    /// The magic-link grant asks for no audience, so its token carries
    /// Modgud's default one and is used as it is on a route without a
    /// resource: no refresh to narrow it (which Modgud would refuse for a
    /// grant made without one).
    @Test func aMagicLinkSessionUsesItsTokenAsIssued() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.resource = Self.api
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user),
                         RouteConfig(prefix: "/orders/", upstream: upstream.url("/orders/"), token: .user, resource: Self.orders)]
        })
        let browser = harness.browser()
        let email = SignInFlowTests.email
        #expect(try await browser.post("/bff/magic/request", ["email": .string(email)]).status == 200)
        let mail = try #require(harness.simulator.mail(to: email).first { $0.kind.contains("magic") })
        let redeemed = try await browser.post("/bff/magic/redeem", ["userId": .string(try #require(mail.userId)),
                                                                    "token": .string(try #require(mail.token))])
        #expect(redeemed.status == 200)
        let issued = try #require(ProxyTests.issuedAccessTokens(harness).first)
        #expect(try await ProxyTests.introspect(harness, issued)["aud"] == nil, "Modgud's default audience")

        #expect(try await browser.get("/api/items").status == 200)
        #expect(upstream.requests.last?.bearer == issued)
        #expect(ProxyTests.refreshCalls(harness).isEmpty, "nothing to narrow")
        await harness.stop()
        await upstream.stop()
    }
}
