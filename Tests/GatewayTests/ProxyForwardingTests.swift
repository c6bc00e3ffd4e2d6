import Testing
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// What an upstream behind the gateway may believe (Docs/proxy.md, "What
/// the upstream receives"): no field a browser sends can change the
/// method, the path or the client address an upstream framework sees, and
/// the forwarding fields it gets are the gateway's own.
@Suite("API proxy: forwarding fields", .serialized)
struct ProxyForwardingTests {
    /// Fields some framework or proxy believes, each with a value a
    /// browser would use to steer it.
    static let steering: [(String, String)] = [
        ("X-HTTP-Method-Override", "DELETE"), ("X-Method-Override", "DELETE"), ("X-HTTP-Method", "DELETE"),
        ("X-Original-URL", "/admin"), ("X-Rewrite-URL", "/admin"),
        ("X-Forwarded-For", "6.6.6.6"), ("x-forwarded-proto", "https"), ("X-Forwarded-Host", "evil.example"),
        ("X-Forwarded-Port", "8443"), ("X-Forwarded-Prefix", "/admin"), ("X-Forwarded-Server", "evil"),
        ("X-Forwarded-Ssl", "on"), ("X-FORWARDED-SCHEME", "https"),
        ("Forwarded", "for=6.6.6.6;proto=https"), ("X-Real-IP", "6.6.6.6"), ("True-Client-IP", "6.6.6.6"),
        ("X-Client-IP", "6.6.6.6"), ("CF-Connecting-IP", "6.6.6.6"), ("Fastly-Client-IP", "6.6.6.6"),
        ("X-Cluster-Client-IP", "6.6.6.6"), ("X-Original-Forwarded-For", "6.6.6.6"), ("X-Forwarded", "for=6.6.6.6"),
        ("X-Original-Host", "evil.example"), ("X-Host", "evil.example"), ("Front-End-Https", "on"),
        ("X-Url-Scheme", "https"),
        // Underscore spellings, which CGI-style servers read as the dashed names.
        ("X_Forwarded_For", "6.6.6.6"), ("X_HTTP_Method_Override", "DELETE"), ("X_Original_URL", "/admin"),
        ("Custom_Field", "dropped"),
    ]

    /// Through a GET answered from the loop and a POST through a worker:
    /// none of the steering fields arrives, the fields that only look
    /// alike do, and the forwarding fields are the gateway's: the peer's
    /// address (no proxy is trusted here), the public origin's scheme and
    /// authority.
    @Test(arguments: ["GET", "POST"])
    func fieldsThatSteerAnUpstreamNeverReachIt(method: String) async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.publicOrigin = WebOrigin("https://app.example.com:8443")!
            $0.routes = [RouteConfig(prefix: "/open/", upstream: upstream.url("/base/"), token: .none)]
        })
        let lookalikes = [("X-Forwardedness", "kept"), ("X-Custom", "kept")]
        let browser = harness.browser(origin: "https://app.example.com:8443")
        let response = try await browser.send(method, "/open/echo", body: method == "POST" ? .object([:]) : nil,
                                              headers: Self.steering + lookalikes)
        #expect(response.status == 200)
        let seen = try #require(upstream.requests.last)
        #expect(seen.method == method, "the method as the browser sent it")
        #expect(seen.target == "/base/echo")
        for (name, _) in Self.steering where !["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"].contains(name.lowercased()) {
            #expect(seen.values(name).isEmpty, "\(name) must not reach the upstream")
        }
        for (name, value) in lookalikes { #expect(seen.values(name) == [value], "\(name) is no forwarding field") }
        #expect(seen.values("X-Forwarded-For") == ["127.0.0.1"])
        #expect(seen.values("X-Forwarded-Proto") == ["https"])
        #expect(seen.values("X-Forwarded-Host") == ["app.example.com:8443"])
        await harness.stop()
        await upstream.stop()
    }
}
