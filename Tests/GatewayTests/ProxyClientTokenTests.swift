import Testing
import Foundation
import Configuration
import Core
import HTTP
import ModgudSimulator
import TestSupport
@testable import Gateway

/// The `client` token mode past its first fetch: a machine token that comes
/// within the refresh skew of expiry is fetched again (once, however many
/// requests want it), Modgud's refusals reach the browser as documented
/// with nothing sent upstream, and a route's `resource` gets a token of its
/// own audience. A browser, the gateway (real Redis, the Modgud simulator)
/// and an echo upstream, over real sockets.
@Suite("API proxy: client tokens", .serialized)
struct ProxyClientTokenTests {
    static let orders = "https://orders.example.com"
    static let billing = "https://billing.example.com"

    // MARK: First fetch

    /// One fetched token serves every request while it is fresh, fetched
    /// as the machine client with Basic authentication.
    @Test func clientRouteFetchesOneClientCredentialsTokenForManyRequests() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream)
        let browser = harness.browser()
        for _ in 0..<5 { #expect(try await browser.get("/m2m/echo").status == 200) }
        let tokens = upstream.requests.map(\.bearer)
        #expect(tokens.count == 5)
        let token = try #require(tokens.first ?? nil)
        #expect(tokens.allSatisfy { $0 == token }, "one cached token for every request")
        let introspected = try await ProxyTests.introspect(harness, token)
        #expect(introspected["active"]?.boolValue == true)
        #expect(introspected["client_id"]?.stringValue == "orders-m2m", "the machine client's token, not the login client's")
        let fetches = ProxyTests.clientCredentialsCalls(harness)
        #expect(fetches.count == 1)
        #expect(fetches.first?["clientId"]?.stringValue == "orders-m2m")
        #expect(fetches.first?["clientAuth"]?.stringValue == "basic")
        await harness.stop()
        await upstream.stop()
    }

    /// Twenty first requests at once, the fetch slow: one fetch, one token.
    @Test func concurrentFirstClientRequestsShareOneFetch() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream)
        // A slow first answer, so every request finds the fetch in flight.
        harness.simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 400))
        let statuses = try await Self.concurrentGets(harness, "/m2m/echo", count: 20)
        #expect(statuses == Array(repeating: 200, count: 20))
        let tokens = Set(upstream.requests.compactMap(\.bearer))
        #expect(upstream.count == 20)
        #expect(tokens.count == 1, "all 20 requests carried the same token")
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 1, "20 concurrent first requests, one fetch")
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Expiry

    /// A cached token is served until it comes within the skew of its
    /// expiry; then twenty concurrent requests cause exactly one new
    /// client_credentials call, and every one of them (and the next) carries
    /// the new token. Machine tokens live 3 s against a 1 s skew, so a token
    /// is fresh for 2 s after the gateway got it.
    @Test func aTokenWithinTheSkewOfExpiryIsFetchedAgainOnceForManyConcurrentRequests() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream, skew: .seconds(1), lifetime: 3)
        let browser = harness.browser()
        let started = ContinuousClock.now
        for _ in 0..<3 { #expect(try await browser.get("/m2m/echo").status == 200) }
        let fetched = ContinuousClock.now
        try #require(fetched - started < .seconds(2), "the first requests ran within the token's fresh time")
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 1, "a fresh token comes from the cache")
        let first = try #require(upstream.requests.first?.bearer)
        #expect(upstream.requests.allSatisfy { $0.bearer == first })

        // The token expires at most 3 s after `fetched`, so it is within the
        // 1 s skew from `fetched` + 2 s on. A slow fetch: every request finds it in flight.
        try await Task.sleep(until: fetched + .milliseconds(2_300))
        harness.simulator.injectFault(path: "/connect/token", count: 1, .delay(milliseconds: 400))
        let statuses = try await Self.concurrentGets(harness, "/m2m/echo", count: 20)
        #expect(statuses == Array(repeating: 200, count: 20))
        let calls = ProxyTests.clientCredentialsCalls(harness)
        #expect(calls.count == 2, "twenty concurrent requests past the skew, one new fetch")
        #expect(calls.last?["clientId"]?.stringValue == "orders-m2m")
        let after = upstream.requests.dropFirst(3)
        #expect(after.count == 20)
        let second = try #require(after.first?.bearer)
        #expect(second != first, "the upstream gets the new token")
        #expect(after.allSatisfy { $0.bearer == second }, "all twenty carried the new token")
        #expect(ProxyTests.issuedAccessTokens(harness).last == second, "the token Modgud issued on the second call")
        let introspected = try await ProxyTests.introspect(harness, second)
        #expect(introspected["active"]?.boolValue == true)
        #expect(introspected["client_id"]?.stringValue == "orders-m2m")

        #expect(try await browser.get("/m2m/echo").status == 200)
        #expect(upstream.requests.last?.bearer == second, "the new token is cached in turn")
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 2)
        await harness.stop()
        await upstream.stop()
    }

    /// A machine token that lives no longer than the skew (4 s against the
    /// default 60 s) is still served from the cache for half its life,
    /// rather than fetched again for every request.
    @Test func aTokenLivingNoLongerThanTheSkewIsCachedForHalfItsLife() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream, lifetime: 4)
        let browser = harness.browser()
        let started = ContinuousClock.now
        #expect(try await browser.get("/m2m/echo").status == 200)
        // The token came before this answer: it is due again 2 s after it at the latest.
        let firstAnswered = ContinuousClock.now
        for _ in 0..<4 { #expect(try await browser.get("/m2m/echo").status == 200) }
        try #require(ContinuousClock.now - started < .milliseconds(1_800), "the requests ran within half the token's life")
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 1, "five requests, one fetch")
        #expect(Set(upstream.requests.map(\.bearer)).count == 1)

        try await Task.sleep(until: firstAnswered + .milliseconds(2_200))
        #expect(try await browser.get("/m2m/echo").status == 200)
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 2, "past half its life, fetched again")
        #expect(upstream.requests.last?.bearer != upstream.requests.first?.bearer)
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Modgud refusing or failing

    /// Modgud's 429 to the client_credentials call reaches the browser as
    /// Modgud sent it (status, Retry-After, RateLimit-*, body), nothing
    /// goes upstream, and the call is made once, never retried. The 429 is
    /// not cached: once Modgud lets it, the next request gets its token.
    @Test func aThrottledClientCredentialsCallIsRelayedAndNeverRetried() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream, simulator: { sim in
            // No /connect/token call at all for the machine client for 30 s.
            sim.rateLimits.policies[RateLimitPolicyName.oauthToken] = RateLimitPolicy([
                .client: RateLimitRule(limit: 0, windowSeconds: 30),
            ])
            sim.responses.rateLimitHeaders = true
        })
        let throttled = try await harness.browser().get("/m2m/echo")
        #expect(throttled.status == 429)
        let modgud = try #require(harness.answers.all.last { $0.status.code == 429 })
        #expect(throttled.header("Retry-After") == "30")
        #expect(throttled.header("Retry-After") == modgud.headers["Retry-After"])
        #expect(throttled.header("RateLimit-Limit") == modgud.headers["RateLimit-Limit"])
        #expect(throttled.header("RateLimit-Reset") == modgud.headers["RateLimit-Reset"])
        if case .bytes(let body) = modgud.body { #expect(throttled.body == body, "byte for byte") } else { Issue.record("body") }
        #expect(upstream.count == 0, "nothing reached the upstream")
        let calls = ProxyTests.clientCredentialsCalls(harness)
        #expect(calls.count == 1, "one call, not retried")
        #expect(calls.first?["status"]?.intValue == 429)
        #expect(calls.first?["clientId"]?.stringValue == "orders-m2m")

        harness.simulator.updateConfig { $0.rateLimits.mode = .off }
        #expect(try await harness.browser().get("/m2m/echo").status == 200, "the 429 was not cached")
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 2)
        #expect(upstream.requests.first?.bearer != nil)
        await harness.stop()
        await upstream.stop()
    }

    /// Modgud answering the client_credentials call with a 5xx: the browser
    /// gets `503 upstream_unavailable` with `Retry-After`, nothing goes
    /// upstream, the call is made once, and the failure is not cached.
    @Test(arguments: [500, 503])
    func aFailingModgudIs503WithRetryAfterAndNothingGoesUpstream(status: Int) async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream)
        harness.simulator.injectFault(path: "/connect/token", count: 1, .status(status))
        let failed = try await harness.browser().get("/m2m/echo")
        #expect(failed.status == 503)
        #expect(failed.json?["error"]?.stringValue == "upstream_unavailable")
        #expect(failed.header("Retry-After").flatMap(Int.init).map { $0 > 0 } == true)
        #expect(failed.header("Cache-Control") == "no-store")
        #expect(upstream.count == 0, "nothing reached the upstream")
        #expect(Self.tokenEndpointCalls(harness).map { $0["status"]?.intValue } == [status], "one call, not retried")

        #expect(try await harness.browser().get("/m2m/echo").status == 200, "the failure was not cached")
        #expect(Self.tokenEndpointCalls(harness).count == 2)
        #expect(upstream.count == 1)
        await harness.stop()
        await upstream.stop()
    }

    /// Modgud unreachable (its listener gone): `503 upstream_unavailable`
    /// with `Retry-After`, and nothing goes upstream.
    @Test func anUnreachableModgudIs503WithRetryAfterAndNothingGoesUpstream() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream)
        await harness.relay.shutdown(gracePeriod: .milliseconds(100))
        let failed = try await harness.browser().get("/m2m/echo")
        #expect(failed.status == 503)
        #expect(failed.json?["error"]?.stringValue == "upstream_unavailable")
        #expect(failed.header("Retry-After").flatMap(Int.init).map { $0 > 0 } == true)
        #expect(upstream.count == 0, "nothing reached the upstream")
        #expect(Self.tokenEndpointCalls(harness).isEmpty, "Modgud saw nothing")
        #expect(harness.logs.lines.contains { $0.contains("client_token.unavailable") })
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Audiences

    /// A `client` route with a `resource` gets a token for that audience
    /// alone (the simulator sets `aud` from exactly the `resource` fields of
    /// the client_credentials call, and accepts only the machine client's
    /// registered audiences); a route without one, and a route with another,
    /// each get their own token, fetched once and kept apart.
    @Test func aRouteWithAResourceGetsATokenForThatAudienceKeptApart() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await Self.start(upstream, routes: [
            RouteConfig(prefix: "/m2m/", upstream: upstream.url("/m2m-base/"), token: .client),
            RouteConfig(prefix: "/orders-m2m/", upstream: upstream.url("/orders-base/"), token: .client, resource: Self.orders),
            RouteConfig(prefix: "/billing-m2m/", upstream: upstream.url("/billing-base/"), token: .client, resource: Self.billing),
        ], resources: [Self.orders, Self.billing])
        let browser = harness.browser()

        #expect(try await browser.get("/orders-m2m/list").status == 200)
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 1)
        let orders = try #require(upstream.requests.last?.bearer)
        let ordersClaims = try await ProxyTests.introspect(harness, orders)
        #expect(ordersClaims["active"]?.boolValue == true)
        #expect(ordersClaims["client_id"]?.stringValue == "orders-m2m")
        #expect(Self.audience(ordersClaims) == [Self.orders], "the call asked for the route's resource alone")

        #expect(try await browser.get("/m2m/list").status == 200)
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 2, "the default audience is fetched on its own")
        let plain = try #require(upstream.requests.last?.bearer)
        #expect(plain != orders)
        let plainClaims = try await ProxyTests.introspect(harness, plain)
        #expect(plainClaims["active"]?.boolValue == true)
        #expect(Self.audience(plainClaims).isEmpty, "no resource asked for")

        #expect(try await browser.get("/billing-m2m/list").status == 200)
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 3)
        let billing = try #require(upstream.requests.last?.bearer)
        #expect(billing != orders && billing != plain)
        #expect(Self.audience(try await ProxyTests.introspect(harness, billing)) == [Self.billing])

        for (path, token) in [("/orders-m2m/again", orders), ("/m2m/again", plain), ("/billing-m2m/again", billing)] {
            #expect(try await browser.get(path).status == 200, "\(path)")
            #expect(upstream.requests.last?.bearer == token, "\(path) keeps its own token")
        }
        #expect(ProxyTests.clientCredentialsCalls(harness).count == 3, "each audience fetched once")
        #expect(upstream.requests.map(\.target) == ["/orders-base/list", "/m2m-base/list", "/billing-base/list",
                                                    "/orders-base/again", "/m2m-base/again", "/billing-base/again"])
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Helpers

    /// A harness whose machine client is `orders-m2m` (its tokens living
    /// `lifetime` seconds when given, its audiences `resources` when
    /// given), with `routes` (by default `/m2m/`, token `client`).
    static func start(_ upstream: EchoUpstream, skew: Duration = .seconds(60), lifetime: Int? = nil,
                      routes: [RouteConfig]? = nil, resources: [String]? = nil,
                      simulator simulate: @escaping @Sendable (inout SimulatorConfig) -> Void = { _ in })
        async throws -> GatewayHarness
    {
        try await GatewayHarness.start(gateway: {
            $0.machineClient = ClientCredentials(id: "orders-m2m", secret: Secret("orders-m2m-secret"))
            $0.refreshSkew = skew
            $0.routes = routes ?? [RouteConfig(prefix: "/m2m/", upstream: upstream.url("/m2m-base/"), token: .client)]
        }, simulator: { sim in
            sim.clients.append(ClientRegistration(id: "orders-m2m", secret: "orders-m2m-secret",
                                                  grants: [GrantType.clientCredentials], resources: resources,
                                                  accessTokenLifetimeSeconds: lifetime))
            simulate(&sim)
        })
    }

    /// Sends `count` GETs for `path`, each on its own connection, all on
    /// the wire before any answer is read; their statuses, in order.
    static func concurrentGets(_ harness: GatewayHarness, _ path: String, count: Int) async throws -> [Int] {
        var clients: [RawClient] = []
        for _ in 0..<count {
            let client = try RawClient(port: harness.port, timeout: 15)
            await client.send("GET \(path) HTTP/1.1\r\nHost: localhost:\(harness.port)\r\nConnection: close\r\nX-CSRF: 1\r\n\r\n")
            clients.append(client)
        }
        var statuses: [Int] = []
        for client in clients { statuses.append(await client.readResponses(1).first?.status ?? 0) }
        return statuses
    }

    /// Every call Modgud received at its token endpoint (an injected fault
    /// answers before the grant type is read, so these are not filtered by it).
    static func tokenEndpointCalls(_ harness: GatewayHarness) -> [JSON] {
        harness.modgudRequests().filter { $0["path"]?.stringValue == "/connect/token" }
    }

    /// The `aud` of an introspection answer (empty when it has none).
    static func audience(_ claims: JSON) -> [String] {
        claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
