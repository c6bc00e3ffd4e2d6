import Testing
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// Which requests the proxy's routes take, and which they refuse before
/// anything goes upstream: the longest prefix owning its paths for every
/// method, 404 and 405, the gateway's own `/bff/` paths under a route for
/// every path, path escapes, CSRF and body limits. A browser, the gateway
/// (real Redis, the Modgud simulator) and an echo upstream, over real sockets.
@Suite("API proxy: routing and refusals", .serialized)
struct ProxyRoutingTests {
    /// A route for every path (`/`) still leaves `/bff/` to the gateway: a
    /// path there no endpoint serves is the gateway's 404, a method an
    /// endpoint does not take its 405, and neither is sent upstream.
    @Test func aRouteForEveryPathLeavesTheGatewaysOwnPathsAlone() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/", upstream: upstream.url("/base/"), token: .userOrAnonymous)]
        })
        let browser = harness.browser()
        #expect(try await browser.get("/echo").status == 200)
        for path in ["/bff/no-such-endpoint", "/BFF/User"] {
            let answer = try await browser.get(path)
            #expect(answer.status == 404, "\(path)")
            #expect(answer.json?["error"]?.stringValue == "not_found")
        }
        let refused = try await browser.get("/bff/logout")
        #expect(refused.status == 405)
        #expect(refused.header("Allow") == "POST")
        #expect(upstream.requests.map(\.target) == ["/base/echo"])
        #expect(try await browser.get("/bff/user").status == 401, "the gateway's own endpoint still answers")
        await harness.stop()
        await upstream.stop()
    }


    @Test func routingMethodsPathsCSRFAndBodyLimits() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [
                RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .none),
                RouteConfig(prefix: "/api/admin/", upstream: upstream.url("/admin-base/"), token: .none),
                RouteConfig(prefix: "/read/", upstream: upstream.url("/read-base/"), token: .none, methods: ["GET"]),
                RouteConfig(prefix: "/api/reports/", upstream: upstream.url("/reports-base/"), token: .none, methods: ["GET"]),
                RouteConfig(prefix: "/small/", upstream: upstream.url("/small-base/"), token: .none, maxBodyBytes: 1000),
            ]
        })
        let browser = harness.browser()

        // Longest prefix wins, either order of configuration.
        #expect(try await browser.get("/api/admin/users?page=2").status == 200)
        #expect(try await browser.get("/api/users?page=2").status == 200)
        #expect(upstream.requests.map(\.target) == ["/admin-base/users?page=2", "/base/users?page=2"])

        var calls = upstream.count
        let unknown = try await browser.get("/nothing/here")
        #expect(unknown.status == 404)
        #expect(unknown.json?["error"]?.stringValue == "not_found")

        let post = try await browser.post("/read/x", ["a": 1])
        #expect(post.status == 405)
        #expect(post.header("Allow")?.contains("GET") == true)
        // The longer prefix owns its paths for every method: one it refuses
        // is 405, never sent on through the shorter `/api/` route.
        for path in ["/api/reports/x", "/api/reports"] {
            let nested = try await browser.post(path, ["a": 1])
            #expect(nested.status == 405, "\(path)")
            #expect(nested.header("Allow")?.contains("POST") == false, "\(path)")
        }
        // Nor through another spelling of it, which the router (comparing
        // bytes) gives to `/api/` but a lenient upstream reads as `reports`.
        for path in ["/api/Reports/x", "/api/REPORTS", "/api/%72eports/x", "/api/re%70orts", "/api/reports;v=1/x",
                     "/api/rEp%4Frts;a/b"] {
            let respelled = try await browser.post(path, ["a": 1])
            #expect(respelled.status == 400, "\(path)")
            #expect(respelled.json?["error"]?.stringValue == "invalid_request", "\(path)")
            let read = try await browser.get(path)
            #expect(read.status == 400, "\(path): refused on the loop path too")
        }
        #expect(upstream.count == calls, "404 and 405 never reach the upstream")
        for path in ["/api/reportsx/y", "/api/report/y", "/api/x/reports/y"] {
            #expect(try await browser.post(path, ["a": 1]).status == 200, "\(path) is not the narrower route")
        }
        calls = upstream.count

        let head = try await ProxyTests.rawHead(harness, "/read/thing")
        #expect(head.status == 200, "HEAD comes with GET")
        #expect(head.body.isEmpty)
        #expect(upstream.requests.last?.method == "HEAD")
        #expect(upstream.requests.last?.target == "/read-base/thing")
        calls = upstream.count

        let escapes = ["/api/../bff/user", "/api/%2e%2e/x", "/api/a/%2E/b", "/api/x/..",
                       "/api/..#", "/api/x#/../..", "/api/echo?a#b",                // libcurl cuts at #
                       "/api/..;/..;/admin", "/api/.;x/y", "/api/%2e%2E;a=b/c",      // servlet path parameters
                       "/api/..\\..\\admin", "/api/a\\b", "/api/..%5c..%5cadmin",  // backslash
                       "/api/..%2f..%2fadmin", "/api/a%2Fb", "/api/a%00b",            // encoded / and NUL
                       "/api//evil.example/x", "/api/a//b"]                           // empty segments
        for path in escapes {
            let refused = try await browser.get(path)
            #expect(refused.status == 400, "\(path)")
            #expect(refused.json?["error"]?.stringValue == "invalid_request", "\(path)")
        }
        #expect(upstream.count == calls, "no such path ever reaches the upstream")
        for (path, target) in [("/api/a;b=c/x.y/..z/%41~", "/base/a;b=c/x.y/..z/%41~"), ("/api/", "/base/"),
                               ("/api/dir/", "/base/dir/"), ("/api/q?x=%2f..%2f&y=a//b", "/base/q?x=%2f..%2f&y=a//b")] {
            let fine = try await browser.get(path)
            #expect(fine.status == 200, "\(path)")
            #expect(upstream.requests.last?.target == target, "\(path)")
        }
        calls = upstream.count

        let forged = try await browser.send("GET", "/api/echo", body: nil, csrf: false)
        #expect(forged.status == 403)
        #expect(forged.json?["error"]?.stringValue == "csrf_failed")
        let crossSite = try await browser.get("/api/echo", headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(crossSite.status == 403)
        #expect(upstream.count == calls, "CSRF refusals never reach the upstream")

        // Declared length over the route's limit: refused before reading.
        let declared = try await ProxyTests.raw(harness, browser, "POST /small/upload HTTP/1.1",
                                          ["Content-Length: 1500", "Content-Type: application/octet-stream"],
                                          body: [UInt8](repeating: 0x61, count: 1500))
        #expect(declared.status == 413)
        #expect(declared.json?["error"]?.stringValue == "payload_too_large")
        #expect(upstream.count == calls, "a declared length over the limit never reaches the upstream")

        // Within the limit, chunked: passes.
        let small = try await ProxyTests.raw(harness, browser, "POST /small/upload HTTP/1.1", ["Transfer-Encoding: chunked"],
                                       body: ProxyTests.chunked([[UInt8](repeating: 1, count: 400), [UInt8](repeating: 2, count: 500)]))
        #expect(small.status == 200)
        #expect(small.json?["bytes"]?.intValue == 900)
        #expect(upstream.requests.last?.bodyBytes == 900)
        calls = upstream.count

        // Chunked over the limit: 413, and the upstream never gets it all.
        let pieces = (0..<6).map { [UInt8](repeating: UInt8($0), count: 400) }
        let chunkedOver = try await ProxyTests.raw(harness, browser, "POST /small/upload HTTP/1.1", ["Transfer-Encoding: chunked"],
                                             body: ProxyTests.chunked(pieces))
        #expect(chunkedOver.status == 413)
        #expect(chunkedOver.json?["error"]?.stringValue == "payload_too_large")
        try await upstream.settle()
        for seen in upstream.requests.dropFirst(calls) {
            #expect(!seen.bodyComplete, "the upstream saw the body cut off")
            #expect(seen.bodyBytes <= 1000, "no more than the limit was forwarded")
        }
        await harness.stop()
        await upstream.stop()
    }
}
