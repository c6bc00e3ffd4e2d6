import Configuration
import Foundation
import Testing
import TestSupport
@testable import Gateway

/// Static files in the whole gateway (real Redis, the Modgud simulator, an
/// echo upstream): the router's last resort, so every `/bff/` endpoint and
/// API route wins, and the gateway's own paths are never files.
@Suite("Static files: route precedence in the gateway", .serialized)
struct StaticRoutingTests {
    @Test func gatewayRoutesAndAPIRoutesAlwaysWin() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bff-static-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = StaticSite.Files(root: directory.path)
        try files.write("index.html", "<p>app")
        try files.write("app.js", "js")
        try files.write("api/users", "a file where a route is")
        try files.write("bff/capabilities", "a file where an endpoint is")
        try files.write("bff/user.json", "a file below /bff/")
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .none)]
            $0.staticRoot = directory.path
        })
        let browser = harness.browser()
        let html = [("Accept", "text/html")]

        let page = try await browser.get("/", headers: html)
        #expect(page.status == 200 && page.bodyText == "<p>app")
        #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(try await browser.get("/app.js").bodyText == "js")
        #expect(try await browser.get("/some/view", headers: html).bodyText == "<p>app", "the fallback")

        let routed = try await browser.get("/api/users", headers: html)
        #expect(routed.status == 200 && routed.json?["target"]?.stringValue == "/base/users", "the API route, not the file")
        #expect(upstream.requests.map(\.target) == ["/base/users"])

        let capabilities = try await browser.get("/bff/capabilities", headers: html)
        #expect(capabilities.status == 200 && capabilities.json != nil, "the endpoint, not the file")
        for path in ["/bff/user.json", "/bff/no-such-endpoint", "/BFF/view"] {
            let own = try await browser.get(path, headers: html)
            #expect(own.status == 404, "\(path)")
            #expect(!own.bodyText.contains("<p>app") && !own.bodyText.contains("a file"), "\(path): never a file or the fallback")
        }
        let logout = try await browser.get("/bff/logout", headers: html)
        #expect(logout.status == 405 && logout.header("Allow") == "POST", "an endpoint's own 405")
        let posted = try await browser.post("/app.js", ["a": 1])
        #expect(posted.status == 405 && posted.header("Allow") == "GET, HEAD")
        #expect(upstream.requests.count == 1, "nothing static reaches the upstream")

        let head = try await ProxyTests.rawHead(harness, "/app.js")
        #expect(head.status == 200 && head.body.isEmpty)
        await harness.stop()
        await upstream.stop()
    }

    @Test func withoutARootNothingIsServed() async throws {
        let harness = try await GatewayHarness.start()
        let browser = harness.browser()
        let missing = try await browser.get("/", headers: [("Accept", "text/html")])
        #expect(missing.status == 404 && missing.json?["error"]?.stringValue == "not_found")
        #expect(try await browser.post("/index.html", ["a": 1]).status == 404, "no route: 404 for every method")
        await harness.stop()
    }

    @Test func checkConfigRefusesARootThatIsMissingOrNoDirectory() async throws {
        let missing = try await GatewayMainTests.run(["--check-config"], environment: ["BFF_STATIC_ROOT": "/nonexistent-bff-static"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("BFF_STATIC_ROOT: the directory /nonexistent-bff-static does not exist"), "\(missing.stderr)")
        let file = try await GatewayMainTests.run(["--check-config"], environment: ["BFF_STATIC_ROOT": "/etc/passwd"])
        #expect(file.status == 2)
        #expect(file.stderr.contains("BFF_STATIC_ROOT: /etc/passwd is not a directory"), "\(file.stderr)")
        let fine = try await GatewayMainTests.run(["--check-config"], environment: ["BFF_STATIC_ROOT": NSTemporaryDirectory()])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}
