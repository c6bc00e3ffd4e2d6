import Routing
import Testing
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Configuration
import HTTP
import System
import TestSupport
@testable import Gateway

/// The API proxy's requests answered without a task (`ProxyRoute.fastPath`):
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
        #expect(try await Self.warm(harness, browser, "/api/echo"), "the session came to be served from memory")

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

    /// With a session in memory, the gateway's own paths under a route
    /// for every path are still refused on this path (by the route's
    /// plan, answered from the loop): nothing goes upstream with the
    /// user's token.
    @Test func aRouteForEveryPathStillLeavesTheGatewaysOwnPathsAlone() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/", upstream: upstream.url("/base/"), token: .user)]
        })
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        #expect(try await Self.warm(harness, browser, "/echo"))
        let calls = upstream.count
        let before = Self.withoutTask(harness)
        for path in ["/bff/no-such-endpoint", "/BFF/User", "/Bff/x"] {
            let answer = try await browser.get(path)
            #expect(answer.status == 404, "\(path)")
        }
        #expect(upstream.count == calls, "none of them went upstream")
        #expect(Self.withoutTask(harness) - before == 3, "the plan refused them on the loop, with no worker")
        await harness.stop()
        await upstream.stop()
    }

    /// A session in memory whose access token is due for a refresh is not
    /// served on this path: the worker refreshes it once, and the upstream
    /// gets the new token.
    @Test func aTokenDueForRefreshGoesToAWorker() async throws {
        let upstream = try await EchoUpstream.start()
        // Tokens living 66 s against a 60 s skew: usable for 6 s from when
        // the gateway got them, which is before the sign-in's answer.
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .user)]
            $0.refreshSkew = .seconds(60)
        }, simulator: { $0.tokens.accessTokenLifetimeSeconds = 66 })
        let browser = harness.browser()
        _ = try await SignInFlowTests.signInWithCode(harness, browser)
        let signedIn = ContinuousClock.now
        #expect(try await Self.warm(harness, browser, "/api/echo"))
        let firstToken = try #require(upstream.requests.last?.bearer)
        try await Task.sleep(until: signedIn + .milliseconds(6_300))

        let refreshes = ProxyTests.refreshCalls(harness).count
        let before = Self.withoutTask(harness)
        #expect(try await browser.get("/api/echo").status == 200)
        #expect(Self.withoutTask(harness) == before, "not answered on the loop")
        #expect(ProxyTests.refreshCalls(harness).count == refreshes + 1, "refreshed once")
        let newToken = try #require(upstream.requests.last?.bearer)
        #expect(newToken != firstToken, "the upstream got the new token")
        await harness.stop()
        await upstream.stop()
    }

    /// Sends `path` until the session is served from memory (answered
    /// without a task); false when it never is.
    static func warm(_ harness: GatewayHarness, _ browser: Browser, _ path: String) async throws -> Bool {
        for _ in 0..<50 {
            let count = withoutTask(harness)
            guard try await browser.get(path).status == 200 else { return false }
            if withoutTask(harness) > count { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
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

    /// A small sized body that comes after its head is collected by a task
    /// of its own, and the answer still goes through the stages; one cut
    /// short is a 502, as on a worker.
    @Test(arguments: [("hello", 200), (nil, 502)] as [(String?, Int)])
    func aSmallBodyThatComesAfterItsHeadIsCollected(body: String?, status: Int) async throws {
        let upstream = try SplitUpstream(body: body)
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/split/", upstream: HTTPURL("http://127.0.0.1:\(upstream.port)/")!, token: .none)]
        })
        let answer = try await harness.browser().get("/split/x")
        #expect(answer.status == status)
        if body != nil {
            #expect(answer.bodyText == "hello")
            #expect(answer.header("Content-Length") == "5")
        } else {
            #expect(answer.json?["error"]?.stringValue == "upstream_error")
        }
        #expect(answer.header("X-Request-Id") != nil)
        #expect(Self.withoutTask(harness) == 1)
        await harness.stop()
        upstream.stop()
    }
}

/// An upstream that sends a sized answer's head, then, 50 ms later, its
/// five-byte body (or closes instead), one connection at a time.
final class SplitUpstream: Sendable {
    private let socket: RefusingPort
    var port: UInt16 { socket.port }

    init(body: String?) throws {
        socket = try RefusingPort()
        guard listen(socket.fd, 8) == 0 else { throw SystemError("listen", errno: errno) }
        let fd = socket.fd
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while !received.ends(with: Array("\r\n\r\n".utf8)) {
                    let count = read(client, &buffer, buffer.count)
                    guard count > 0 else { break }
                    received += buffer[0..<count]
                }
                let head = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n".utf8)
                _ = head.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                usleep(50_000)
                if let body { _ = Array(body.utf8).withUnsafeBytes { write(client, $0.baseAddress, $0.count) } }
                Glibc.close(client)
            }
        }
    }

    /// Ends the accepting thread.
    func stop() { shutdown(socket.fd, Int32(SHUT_RDWR)) }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
