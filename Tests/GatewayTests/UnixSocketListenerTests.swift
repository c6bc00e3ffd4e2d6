import Foundation
import Testing
import Configuration
import Core
import HTTP
import System
import TestSupport
@testable import Gateway

/// The public listener on a Unix-domain socket: every peer is the proxy,
/// so the proxy's header names the client (never the client's own part of
/// it), a request without one has the unknown address, and the
/// per-address cap counts the forwarded address, never the socket peer.
@Suite("Gateway on a Unix-domain socket")
struct UnixSocketListenerTests {
    static let resolver = ClientAddressResolver(trustedProxies: [], peersAreProxies: true)

    static func resolve(_ resolver: ClientAddressResolver, _ headers: [(String, String)]) -> String {
        let head = HTTPRequestHead(method: .get, target: "/", headers: HTTPHeaders(headers.map { HTTPField(name: $0.0, value: $0.1) }))
        return resolver.clientAddress(of: HTTPRequest(head: head, peer: nil)).description
    }

    @Test(arguments: [
        // nginx appended its peer (the client) to what the client sent.
        ([("X-Forwarded-For", "6.6.6.6, 127.0.0.1")], "127.0.0.1"),
        ([("X-Forwarded-For", "198.51.100.1")], "198.51.100.1"),
        ([("X-Forwarded-For", "6.6.6.6"), ("X-Forwarded-For", "203.0.113.9")], "203.0.113.9"),
        // No header, or a malformed last entry: unknown, never the client's choice.
        ([], "0.0.0.0"),
        ([("X-Forwarded-For", "6.6.6.6, not-an-ip")], "0.0.0.0"),
        // The other header is never read.
        ([("Forwarded", "for=6.6.6.6")], "0.0.0.0"),
    ])
    func theProxysLastEntryIsTheClient(headers: [(String, String)], client: String) {
        #expect(Self.resolve(Self.resolver, headers) == client)
    }

    @Test func theForwardedHeaderAndTrustedHopsBeforeTheProxyAreWalked() {
        let rfc7239 = ClientAddressResolver(trustedProxies: [], header: .forwarded, peersAreProxies: true)
        #expect(Self.resolve(rfc7239, [("Forwarded", "for=6.6.6.6, for=\"[2001:db8::7]:443\"")]) == "2001:db8::7")
        #expect(Self.resolve(rfc7239, [("X-Forwarded-For", "6.6.6.6")]) == "0.0.0.0")
        // A load balancer before nginx (10.0.0.0/8) is walked past, as over TCP.
        let behindBalancer = ClientAddressResolver(trustedProxies: [CIDR("10.0.0.0/8")!], peersAreProxies: true)
        #expect(Self.resolve(behindBalancer, [("X-Forwarded-For", "6.6.6.6, 198.51.100.4, 10.0.0.7")]) == "198.51.100.4")
        #expect(Self.resolve(behindBalancer, [("X-Forwarded-For", "10.0.0.8, 10.0.0.7")]) == "10.0.0.8")
    }

    /// Over TCP nothing changes: an untrusted peer is the client.
    @Test func overTCPThePeerStillDecides() {
        let tcp = ClientAddressResolver(trustedProxies: [CIDR("127.0.0.1/32")!])
        let head = HTTPRequestHead(method: .get, target: "/", headers: HTTPHeaders([HTTPField(name: "X-Forwarded-For", value: "6.6.6.6")]))
        let request = HTTPRequest(head: head, peer: SocketAddress(ip: IPAddress("203.0.113.5")!, port: 4000))
        #expect(tcp.clientAddress(of: request).description == "203.0.113.5")
        #expect(!tcp.peersAreProxies && tcp.readsForwardedHeader)
        #expect(!ClientAddressResolver(trustedProxies: []).readsForwardedHeader)
    }

    static func socketPath() -> String { NSTemporaryDirectory() + "bff-gw-\(UUID().uuidString.prefix(8)).sock" }

    @Test func modgudAndTheUpstreamGetTheProxysClientAndTheCapCountsIt() async throws {
        let path = Self.socketPath()
        let upstream = try await EchoUpstream.start()
        let harness = try await GatewayHarness.start(gateway: {
            $0.listen = ListenAddress(socketPath: path)
            $0.maxConnectionsPerAddress = 1
            $0.routes = [RouteConfig(prefix: "/api/", upstream: upstream.url("/base/"), token: .none)]
        })
        func slow(forwardedFor: String) async throws -> RawClient {
            let connection = try RawClient(socketPath: path, timeout: 15)
            await connection.send("GET /api/slow HTTP/1.1\r\nHost: localhost\r\nX-CSRF: 1\r\n"
                + "X-Forwarded-For: \(forwardedFor)\r\n\r\n")
            return connection
        }
        // The client's own 6.6.6.6 before the address nginx appended.
        let first = try await slow(forwardedFor: "6.6.6.6, 203.0.113.1")
        let other = try await slow(forwardedFor: "6.6.6.6, 203.0.113.2")
        _ = try await upstream.waitFor(count: 2)
        let forwarded = upstream.requests.map { $0.values("X-Forwarded-For") }
        #expect(Set(forwarded) == [["203.0.113.1"], ["203.0.113.2"]], "the upstream never sees 6.6.6.6")

        let refused = await (try slow(forwardedFor: "6.6.6.6, 203.0.113.1")).readResponses(1).first
        #expect(refused?.status == 429, "the forwarded address is counted")
        #expect(refused?.header("Retry-After") == "1")
        #expect(harness.service.publicServer.stats.refusedConnections.load(ordering: .relaxed) == 0,
                "the socket peer is never counted by the server's cap")
        #expect(metricValue(harness.service.metrics.render(), "bff_http_forwarded_client_refusals_total") == 1)
        upstream.release()
        #expect(await first.readResponses(1).first?.status == 200)
        #expect(await other.readResponses(1).first?.status == 200)

        // Modgud-Forwarded-For: the proxy's client, or 0.0.0.0 without a header.
        for (header, expected) in [("X-Forwarded-For: 6.6.6.6, 203.0.113.7\r\n", "203.0.113.7"), ("", "0.0.0.0")] {
            let since = harness.modgudRequests().count
            let client = try RawClient(socketPath: path, timeout: 15)
            let body = #"{"email":"ada@example.com"}"#
            await client.send("POST /bff/otp/request HTTP/1.1\r\nHost: localhost\r\nX-CSRF: 1\r\n"
                + "Origin: \(GatewayConfig.defaults.publicOrigin)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\(header)"
                + "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n\r\n\(body)")
            #expect(await client.readResponses(1).first?.status == 200)
            let call = harness.modgudRequests().dropFirst(since).first { $0["path"]?.stringValue == "/api/account/native/otp/request" }
            #expect(call?["forwardedFor"]?.stringValue == expected)
            #expect(call?["traceparent"]?.stringValue?.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") == true,
                    "the proxy's trace is continued")
        }
        await harness.stop()
        await upstream.stop()
        #expect(!FileManager.default.fileExists(atPath: path), "the socket file is removed at shutdown")
    }
}
