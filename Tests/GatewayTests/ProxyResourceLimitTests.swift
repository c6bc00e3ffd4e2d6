import Testing
import Configuration
import Core
import HTTP
import TestSupport
@testable import Gateway

/// The limits that keep one client from holding the proxy's resources:
/// the default body limit of a route without its own, and the cap on
/// requests in flight per forwarded client address behind a trusted proxy.
struct ProxyResourceLimitTests {
    @Test func aRouteWithoutItsOwnLimitRefusesBodiesOverTheDefault() async throws {
        #expect(GatewayConfig.defaults.proxyMaxBodyBytes == 10 << 20, "10 MiB unless configured")
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.proxyMaxBodyBytes = 2000
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .none)]
        })
        let browser = harness.browser()

        // Declared over the default: 413 before anything goes upstream.
        let declared = try await ProxyTests.raw(harness, browser, "POST /api/upload HTTP/1.1",
                                                ["Content-Length: 3000", "Content-Type: application/octet-stream"],
                                                body: [UInt8](repeating: 0x61, count: 3000))
        #expect(declared.status == 413)
        #expect(declared.json?["error"]?.stringValue == "payload_too_large")
        #expect(upstream.count == 0, "a declared length over the default never reaches the upstream")

        // Chunked past it: cut with 413; the upstream never gets it whole.
        let pieces = (0..<6).map { [UInt8](repeating: UInt8($0), count: 400) }
        let chunked = try await ProxyTests.raw(harness, browser, "POST /api/upload HTTP/1.1", ["Transfer-Encoding: chunked"],
                                               body: ProxyTests.chunked(pieces))
        #expect(chunked.status == 413)
        #expect(chunked.json?["error"]?.stringValue == "payload_too_large")
        try await upstream.settle()
        for seen in upstream.requests {
            #expect(!seen.bodyComplete, "the upstream saw the body cut off")
            #expect(seen.bodyBytes <= 2000, "no more than the limit was forwarded")
        }
        // Within it: passes.
        let small = try await ProxyTests.raw(harness, browser, "POST /api/upload HTTP/1.1",
                                             ["Content-Length: 1500", "Content-Type: application/octet-stream"],
                                             body: [UInt8](repeating: 0x61, count: 1500))
        #expect(small.status == 200)
        #expect(small.json?["bytes"]?.intValue == 1500)
        // Counted by body: the cut request may reach the upstream late.
        try await upstream.settle()
        #expect(upstream.requests.filter { $0.bodyComplete && $0.bodyBytes == 1500 }.count == 1)
        await harness.stop()
        await upstream.stop()
    }

    /// Behind a trusted proxy every request comes from the proxy's
    /// address: the cap counts each forwarded client apart, and one over
    /// it is 429 with `Retry-After` while another client still gets in.
    @Test func requestsThroughATrustedProxyAreCountedPerForwardedAddress() async throws {
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.trustedProxies = [CIDR("127.0.0.1/32")!]
            $0.maxConnectionsPerAddress = 1
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .none)]
        })
        func slow(for client: String) async throws -> RawClient {
            let connection = try RawClient(port: harness.port, timeout: 15)
            await connection.send("GET /api/slow HTTP/1.1\r\nHost: localhost:\(harness.port)\r\nX-CSRF: 1\r\n"
                + "X-Forwarded-For: \(client)\r\n\r\n")
            return connection
        }
        let first = try await slow(for: "203.0.113.1")
        let other = try await slow(for: "203.0.113.2")
        _ = try await upstream.waitFor(count: 2)
        #expect(upstream.count == 2, "another client's request is not held back by the first's")

        let refused = await (try slow(for: "203.0.113.1")).readResponses(1).first
        #expect(refused?.status == 429)
        #expect(refused?.header("Retry-After") == "1")
        #expect(refused?.json?["error"]?.stringValue == "too_many_requests")
        #expect(upstream.count == 2, "the refused request never reaches the upstream")
        #expect(metricValue(harness.service.metrics.render(), "bff_http_forwarded_client_refusals_total") == 1)
        #expect(harness.service.publicServer.stats.refusedConnections.load(ordering: .relaxed) == 0,
                "the trusted proxy's connections are not capped by its own address")

        upstream.release()
        #expect(await first.readResponses(1).first?.status == 200)
        #expect(await other.readResponses(1).first?.status == 200)
        let after = await (try slow(for: "203.0.113.1")).readResponses(1).first
        #expect(after?.status == 200, "the first client's count went down when its answer came")
        await harness.stop()
        await upstream.stop()
    }
}
