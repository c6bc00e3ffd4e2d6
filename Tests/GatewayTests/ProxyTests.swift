import Testing
import Foundation
import Configuration
import Core
import Crypto
import HTTP
import ModgudSimulator
import TestSupport
@testable import Gateway

/// The API proxy over real sockets: a browser, the gateway (real Redis, the
/// Modgud simulator) and an echo upstream. Every test asserts what the
/// browser got and what the upstream got.
@Suite("API proxy", .serialized)
struct ProxyTests {
    static let orders = "https://orders.example.com"

    // MARK: Token modes

    @Test func userRouteSendsTheSessionsAccessTokenAndRefusesWithoutASession() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)]
        })
        let anonymous = try await harness.browser().get("/api/echo")
        #expect(anonymous.status == 401)
        #expect(anonymous.json?["error"]?.stringValue == "unauthenticated")
        #expect(upstream.count == 0, "no session, no call upstream")

        let browser = harness.browser()
        let signedIn = try await SignInFlowTests.signInWithCode(harness, browser)
        let sub = try #require(signedIn.json?["user"]?["sub"]?.stringValue)
        let cookie = try #require(browser.cookies["__Host-bff"])
        let answer = try await browser.get("/api/echo")
        #expect(answer.status == 200)
        #expect(answer.json?["target"]?.stringValue == "/base/echo")

        let seen = try #require(upstream.requests.last)
        let token = try #require(seen.bearer, "the upstream got a Bearer token")
        #expect(!token.contains(cookie) && !cookie.contains(token), "never the browser's cookie")
        #expect(Self.issuedAccessTokens(harness).first == token, "the access token Modgud issued at sign-in")
        let introspected = try await Self.introspect(harness, token)
        #expect(introspected["active"]?.boolValue == true)
        #expect(introspected["client_id"]?.stringValue == "bff")
        #expect(introspected["sub"]?.stringValue == sub)
        await harness.stop()
        await upstream.stop()
    }

    @Test func repeatRequestsAreServedFromTheSessionCacheUntilLogout() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)]
        })
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        func metrics() async throws -> String {
            try await LoopbackCall.send(port: harness.adminPort, "GET", "/metrics").bodyText
        }
        let clock = ContinuousClock(), deadline = clock.now + .seconds(5)
        while metricValue(try await metrics(), "bff_session_cache_current") != 1, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        for _ in 0..<10 { #expect(try await browser.get("/api/echo").status == 200) }
        let text = try await metrics()
        #expect(metricValue(text, "bff_session_cache_current") == 1)
        #expect(metricValue(text, "bff_session_cache_lookups_total", #"result="hit""#) >= 5, "\(text)")
        #expect(metricValue(text, "bff_session_cache_entries") == 1)

        let cookie = try #require(browser.cookies["__Host-bff"])
        #expect(try await browser.post("/bff/logout").status == 204)
        // The browser dropped the expired cookie; a copy of it is sent again.
        let copy = harness.browser()
        copy.setCookie("__Host-bff", cookie)
        #expect(try await copy.get("/api/echo").status == 401, "the logged-out session is not served from memory")
        #expect(upstream.count == 10)
        await harness.stop()
        await upstream.stop()
    }

    @Test func userOrAnonymousAndNoneModes() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/maybe/", upstream: upstream.url("/maybe-base/"), token: .userOrAnonymous),
                         RouteConfig(prefix: "/open/", upstream: upstream.url("/open-base/"), token: .none)]
        })
        let browser = harness.browser()
        #expect(try await browser.get("/maybe/echo").status == 200)
        #expect(try await browser.get("/open/echo").status == 200)
        var seen = upstream.requests
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.header("Authorization") == nil }, "anonymous: no Authorization")

        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        #expect(try await browser.get("/maybe/echo").status == 200)
        #expect(try await browser.get("/open/echo").status == 200)
        seen = upstream.requests
        #expect(seen.count == 4)
        let token = try #require(seen[2].bearer, "user-or-anonymous with a session sends the user's token")
        #expect(Self.issuedAccessTokens(harness).contains(token))
        #expect(try await Self.introspect(harness, token)["client_id"]?.stringValue == "bff")
        #expect(seen[2].target == "/maybe-base/echo")
        #expect(seen[3].target == "/open-base/echo")
        #expect(seen[3].header("Authorization") == nil, "none never sends a token, session or not")
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Resource (audience)

    @Test func routeResourceGetsItsOwnTokenByOneRefreshAndTokensNeverReachTheLogs() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.resource = "https://api.example.com"
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user),
                         RouteConfig(prefix: "/orders/", upstream: upstream.url("/orders-base/"), token: .user,
                                     resource: Self.orders)]
        })
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        let signInToken = try #require(Self.issuedAccessTokens(harness).first)
        let signInIntrospected = try await Self.introspect(harness, signInToken)
        let signInAudience = signInIntrospected["aud"]?.arrayValue?.compactMap { $0.stringValue } ?? []
        #expect(Set(signInAudience) == ["https://api.example.com", Self.orders],
                "sign-in asked for every configured resource")
        #expect(Self.refreshCalls(harness).isEmpty)

        #expect(try await browser.get("/orders/list").status == 200)
        #expect(Self.refreshCalls(harness).count == 1, "one refresh_token grant for the route's audience")
        let ordersToken = try #require(upstream.requests.last?.bearer)
        #expect(ordersToken != signInToken)
        let introspected = try await Self.introspect(harness, ordersToken)
        #expect(introspected["active"]?.boolValue == true)
        #expect(introspected["client_id"]?.stringValue == "bff")
        #expect(introspected["aud"]?.arrayValue?.compactMap(\.stringValue) == [Self.orders],
                "the refresh asked for the route's resource alone")

        // The sign-in's token, valid for both audiences, never reaches an
        // API: a route without a resource gets the default token narrowed
        // to BFF_RESOURCE by a refresh before its first use.
        #expect(try await browser.get("/api/list").status == 200)
        let defaultToken = try #require(upstream.requests.last?.bearer)
        #expect(defaultToken != signInToken, "the multi-audience sign-in token is not used")
        #expect(defaultToken != ordersToken)
        #expect(Self.refreshCalls(harness).count == 2, "one refresh to narrow the default token")
        let narrowed = try await Self.introspect(harness, defaultToken)
        #expect(narrowed["aud"]?.arrayValue?.compactMap(\.stringValue) == ["https://api.example.com"])

        #expect(try await browser.get("/orders/again").status == 200)
        #expect(upstream.requests.last?.bearer == ordersToken, "the audience token is reused")
        #expect(try await browser.get("/api/again").status == 200)
        #expect(upstream.requests.last?.bearer == defaultToken, "the narrowed default token is reused")
        #expect(Self.refreshCalls(harness).count == 2, "no further refresh")

        // Nothing the gateway handled may appear in a log line.
        var secrets = Set(upstream.requests.compactMap(\.bearer))
        for answer in Self.answerBodies(harness) {
            for key in ["access_token", "refresh_token", "id_token"] {
                if let value = answer[key]?.stringValue { secrets.insert(value) }
            }
        }
        #expect(secrets.count >= 5, "tokens to look for")
        let logs = harness.logs.lines.joined(separator: "\n")
        #expect(!logs.isEmpty)
        for secret in secrets { #expect(!logs.contains(secret), "a token reached a log line") }
        if let cookie = browser.cookies["__Host-bff"] { #expect(!logs.contains(cookie), "the session cookie reached a log line") }
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Header hygiene and bodies

    @Test func requestHeadersAreCleanedAndTheBodyArrivesIntact() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/v1/"), token: .user)]
        })
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        browser.setCookie("tracking", "1")
        let hostile: [(String, String)] = [
            ("Authorization", "Bearer browser-supplied"), ("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0"),
            ("TE", "trailers"), ("Upgrade", "websocket"), ("Keep-Alive", "timeout=5"),
            ("Connection", "X-Hop-Secret"), ("X-Hop-Secret", "hop"),
            ("Connection", "keep-alive ,x-other-hop,"), ("X-Other-Hop", "hop"),
            ("Modgud-Forwarded-For", "203.0.113.7"), ("X-Forwarded-For", "203.0.113.9"),
            ("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Proto", "https"), ("Forwarded", "for=203.0.113.9"),
            ("Accept", "application/json"), ("X-Trace-Id", "trace-123"), ("Accept-Language", "de"),
        ]
        let body: JSON = ["name": "Ada Lovelace", "items": [1, 2, 3], "note": "grüße \"quoted\" \\ slash",
                          "nested": ["ok": true, "n": .null]]
        let answer = try await browser.send("POST", "/api/orders/7?expand=items&q=a%20b&empty=", body: body,
                                            headers: hostile)
        #expect(answer.status == 200)
        #expect(answer.json?["method"]?.stringValue == "POST")

        let seen = try #require(upstream.requests.last)
        #expect(seen.method == "POST")
        #expect(seen.target == "/base/v1/orders/7?expand=items&q=a%20b&empty=", "path after the prefix and query, exactly")
        for name in ["Cookie", "X-CSRF", "Proxy-Authorization", "TE", "Upgrade", "Keep-Alive", "X-Hop-Secret", "X-Other-Hop",
                     "Modgud-Forwarded-For", "Forwarded"] {
            #expect(seen.header(name) == nil, "\(name) must not reach the upstream")
        }
        #expect(seen.values("Authorization").count == 1)
        let token = try #require(seen.bearer)
        #expect(token != "browser-supplied" && Self.issuedAccessTokens(harness).contains(token))
        #expect(seen.values("X-Forwarded-For") == ["127.0.0.1"], "the browser's address, not the forged one")
        #expect(seen.values("X-Forwarded-Proto") == ["http"])
        #expect(seen.values("X-Forwarded-Host") == ["localhost:8080"], "from the public origin")
        #expect(seen.header("Accept") == "application/json")
        #expect(seen.header("X-Trace-Id") == "trace-123")
        #expect(seen.header("Accept-Language") == "de")
        #expect(seen.header("Content-Type") == "application/json")
        #expect(seen.header("Host") == "127.0.0.1:\(upstream.port)", "the upstream's own authority")
        #expect(seen.bodyComplete)
        #expect(seen.body == body.serialized, "the JSON body byte for byte")
        #expect(seen.header("Content-Length") == String(body.serialized.count))
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Responses

    @Test func answersAreRelayedWithoutTheGatewaysCookies() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)]
        })
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        let session = try #require(browser.cookies["__Host-bff"])

        let echoed = try await browser.get("/api/echo")
        #expect(echoed.status == 200)
        #expect(echoed.header("X-Upstream") == "echo")
        #expect(echoed.header("Cache-Control") == "private, max-age=5")
        #expect(echoed.header("Content-Type") == "application/json")
        #expect(echoed.json?["target"]?.stringValue == "/base/echo", "the upstream's body")

        let cookies = try await browser.get("/api/set-cookie")
        #expect(cookies.status == 200)
        #expect(cookies.bodyText == "cookies")
        #expect(cookies.setCookies == ["other=1; Path=/"], "the API's own cookie passes, the gateway's names never")
        #expect(cookies.header("Clear-Site-Data") == nil, "an API cannot make the browser drop the session cookie")
        #expect(browser.cookies["__Host-bff"] == session)
        #expect(try await browser.get("/bff/user").status == 200, "the session survived")

        let limited = try await browser.get("/api/status/429")
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "7")
        #expect(limited.header("RateLimit") == EchoUpstream.rateLimitField)
        #expect(limited.header("Content-Type") == "application/problem+json")
        #expect(limited.body == EchoUpstream.statusBody, "the body byte for byte")
        let calls = upstream.requests.map(\.target)
        #expect(calls == ["/base/echo", "/base/set-cookie", "/base/status/429"], "each answered by the upstream, 429 never retried")
        await harness.stop()
        await upstream.stop()
    }

    @Test func unreachableUpstreamIs502() async throws {
        let closed = try RefusingPort()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/down/", upstream: HTTPURL("http://127.0.0.1:\(closed.port)/base/")!, token: .none)]
        })
        let answer = try await harness.browser().get("/down/anything")
        #expect(answer.status == 502)
        #expect(answer.json?["error"]?.stringValue == "upstream_error")
        #expect(harness.logs.lines.contains { $0.contains("proxy.upstream_failed") })
        await harness.stop()
        _ = closed
    }

    @Test func slowUpstreamIs504() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.upstreamTimeout = .milliseconds(300)
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .none)]
        })
        let started = ContinuousClock.now
        let answer = try await harness.browser().get("/api/slow")
        let elapsed = ContinuousClock.now - started
        #expect(answer.status == 504)
        #expect(answer.json?["error"]?.stringValue == "upstream_timeout")
        #expect(elapsed >= .milliseconds(250), "the timeout, not a refusal")
        #expect(elapsed < .seconds(8), "well before the upstream answers (60 s)")
        #expect(upstream.requests.map(\.target) == ["/base/slow"], "the upstream had the request")
        await harness.stop()
        await upstream.stop()
    }

    // MARK: Helpers

    /// Asks the simulator (in process, as the login client) about `token`.
    static func introspect(_ harness: GatewayHarness, _ token: String) async throws -> JSON {
        let basic = "Basic " + Base64.encode(Array("bff:bff-secret".utf8))
        let form = FormURLEncoded.serialize([("token", token)])
        let response = await harness.simulator.respond(PasskeyEnrolment.request(
            .post, "/connect/introspect", body: Array(form.utf8),
            headers: [("Authorization", basic), ("Content-Type", "application/x-www-form-urlencoded")]))
        return try PasskeyEnrolment.json(response)
    }

    /// Every JSON body the simulator answered the gateway with, in order.
    static func answerBodies(_ harness: GatewayHarness) -> [JSON] {
        harness.answers.all.compactMap { answer in
            guard case .bytes(let body) = answer.body else { return nil }
            return try? JSON.parse(body)
        }
    }

    /// Every access token the simulator issued to the gateway, in order.
    static func issuedAccessTokens(_ harness: GatewayHarness) -> [String] {
        answerBodies(harness).compactMap { $0["access_token"]?.stringValue }
    }

    static func tokenCalls(_ harness: GatewayHarness, grant: String) -> [JSON] {
        harness.modgudRequests().filter {
            $0["path"]?.stringValue == "/connect/token" && $0["grantType"]?.stringValue == grant
        }
    }

    static func clientCredentialsCalls(_ harness: GatewayHarness) -> [JSON] { tokenCalls(harness, grant: "client_credentials") }

    static func refreshCalls(_ harness: GatewayHarness) -> [JSON] { tokenCalls(harness, grant: "refresh_token") }

    /// One request written by hand (for bodies the `Browser` does not
    /// send), with the browser's cookies, `X-CSRF` and `Origin`.
    static func raw(_ harness: GatewayHarness, _ browser: Browser, _ requestLine: String, _ fields: [String],
                    body: [UInt8]) async throws -> RawResponse {
        var lines = [requestLine, "Host: localhost:\(harness.port)", "Connection: close", "X-CSRF: 1",
                     "Origin: \(browser.origin)"]
        let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        if !cookie.isEmpty { lines.append("Cookie: \(cookie)") }
        lines += fields
        let client = try RawClient(port: harness.port, timeout: 15)
        await client.send(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body)
        guard let response = await client.readResponses(1).first else { throw Browser.BrowserError.noResponse }
        return response
    }

    /// A HEAD request: the answer's head, and whatever followed it before
    /// the gateway closed (nothing, for a HEAD).
    static func rawHead(_ harness: GatewayHarness, _ path: String) async throws -> (status: Int, body: [UInt8]) {
        let client = try RawClient(port: harness.port, timeout: 15)
        await client.send("HEAD \(path) HTTP/1.1\r\nHost: localhost:\(harness.port)\r\nConnection: close\r\nX-CSRF: 1\r\n\r\n")
        let bytes = await client.readToEnd()
        let text = String(decoding: bytes, as: UTF8.self)
        guard let end = text.range(of: "\r\n\r\n") else { throw Browser.BrowserError.noResponse }
        let statusLine = text[..<end.lowerBound].prefix { $0 != "\r" }.split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Browser.BrowserError.noResponse }
        return (status, Array(text[end.upperBound...].utf8))
    }

    /// `pieces` in chunked framing, with the last chunk.
    static func chunked(_ pieces: [[UInt8]]) -> [UInt8] {
        var bytes: [UInt8] = []
        for piece in pieces {
            bytes += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }
}
