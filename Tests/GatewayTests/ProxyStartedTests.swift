import Testing
import Foundation
import Configuration
import HTTP
import TestSupport
@testable import Gateway

/// The API proxy's requests answered without a task (`APIProxy.start`):
/// a request without a body whose token is at hand goes upstream from the
/// loop and its answer comes back from a callback there; everything else
/// goes to a worker. Both give the browser the same answers.
@Suite("API proxy without a task", .serialized)
struct ProxyStartedTests {
    /// What `EchoUpstream.writePattern` sends.
    static func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % (64 * 1024) % 251) } }

    static func withoutTask(_ harness: GatewayHarness) -> Int {
        harness.service.publicServer.stats.answeredWithoutTask.load(ordering: .relaxed)
    }

    @Test func aRememberedSessionIsServedWithoutATaskWithTheSameAnswers() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)]
        })
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        // The first lookups go to the store (the first renews the idle
        // timeout, which the store's cache then reads anew); then memory.
        var warm = false
        for _ in 0..<50 where !warm {
            let count = Self.withoutTask(harness)
            #expect(try await browser.get("/api/echo").status == 200)
            warm = Self.withoutTask(harness) > count
            if !warm { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(warm, "the session came to be served from memory")

        let before = Self.withoutTask(harness)
        let echoed = try await browser.get("/api/echo?x=1")
        #expect(echoed.status == 200)
        #expect(echoed.json?["target"]?.stringValue == "/base/echo?x=1")
        #expect(echoed.header("X-Upstream") == "echo")
        let cookie = try #require(browser.cookies["__Host-bff"])
        let raw = try RawClient(port: harness.port)
        await raw.send("HEAD /api/echo HTTP/1.1\r\nHost: localhost\r\nX-CSRF: 1\r\nCookie: __Host-bff=\(cookie)\r\n"
                       + "Connection: close\r\n\r\n")
        let head = String(decoding: await raw.readToEnd(), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.hasSuffix("\r\n\r\n"), "a head, no body: \(head)")
        let small = try await browser.get("/api/big/3000")
        #expect(small.status == 200 && small.body == Self.pattern(3000), "a sized body, whole")
        let large = try await browser.get("/api/big/300000")
        #expect(large.status == 200 && large.body == Self.pattern(300_000), "a body that streams")
        let limited = try await browser.get("/api/status/429")
        #expect(limited.status == 429 && limited.header("Retry-After") == "7")
        let cookies = try await browser.get("/api/set-cookie")
        #expect(cookies.setCookies == ["other=1; Path=/"], "the gateway's cookie names never pass")
        #expect(Self.withoutTask(harness) - before == 6, "each answered from the loop")

        // The same requests from a worker (a request with two Cookie
        // fields is looked up in the store): the same answers.
        let split = [("Cookie", "__Host-bff=\(cookie)"), ("Cookie", "other=1")]
        let anonymous = harness.browser()
        let worker = try await anonymous.get("/api/echo?x=1", headers: split)
        #expect(worker.status == 200)
        #expect(worker.json?["target"] == echoed.json?["target"])
        #expect(worker.header("X-Upstream") == "echo")
        #expect(try await anonymous.get("/api/big/300000", headers: split).body == large.body)
        #expect(Self.withoutTask(harness) - before == 6, "those went to a worker")

        let bearers = Set(upstream.requests.dropFirst().compactMap(\.bearer))
        #expect(bearers.count == 1, "one access token on both paths")
        #expect(upstream.requests.allSatisfy { $0.header("Cookie") == nil }, "no cookie upstream")
        await harness.stop()
        await upstream.stop()
    }

    /// The stages run on this path too: a request without the CSRF proof
    /// is refused before anything goes upstream, and the answer is counted.
    @Test func theMiddlewareRunsAroundAStartedAnswer() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/open/", upstream: upstream.url("/base/"), token: .none)]
        })
        let browser = harness.browser()
        let refused = try await browser.send("GET", "/open/echo", body: nil, csrf: false)
        #expect(refused.status == 403)
        #expect(refused.json?["error"]?.stringValue == "csrf_failed")
        #expect(upstream.count == 0)
        let answer = try await browser.get("/open/echo")
        #expect(answer.status == 200)
        #expect(answer.header("X-Request-Id") != nil)
        #expect(Self.withoutTask(harness) == 2)
        #expect(harness.service.publicServer.stats.workersStarted.load(ordering: .relaxed) == 0)
        let metrics = try await LoopbackCall.send(port: harness.adminPort, "GET", "/metrics").bodyText
        #expect(metricValue(metrics, "bff_http_requests_total", #"route="/open/*",method="GET",status="200""#) == 1)
        #expect(metricValue(metrics, "bff_http_requests_total", #"route="/open/*",method="GET",status="403""#) == 1)
        await harness.stop()
        await upstream.stop()
    }
}
