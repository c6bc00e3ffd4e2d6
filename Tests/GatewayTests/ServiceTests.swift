import Foundation
import Testing
import Configuration
import Core
import HTTP
import Observability
import System
import TestSupport
@testable import Gateway

@Suite("The gateway service over real sockets")
struct ServiceTests {
    static func config() -> GatewayConfig {
        var config = GatewayConfig.defaults
        config.listen = ListenAddress(host: IPAddress("127.0.0.1")!, port: 0)
        config.adminListen = ListenAddress(host: IPAddress("127.0.0.1")!, port: 0)
        config.shutdownTimeout = .milliseconds(500)
        return config
    }

    static func withService(_ body: (GatewayService, LogCapture) async throws -> Void) async throws {
        let group = try EventLoopGroup(loops: 2)
        let capture = LogCapture()
        let service = try GatewayService(config: config(), group: group, logger: Logger(sink: .capturing(capture)))
        try await service.start()
        try await body(service, capture)
        await service.shutdown()
        group.shutdown()
    }

    static func get(_ port: UInt16, _ path: String) async throws -> RawResponse? {
        let client = try RawClient(port: port)
        await client.send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        return await client.readResponses(1).first
    }

    @Test func adminListenerAnswersHealthReadinessAndMetrics() async throws {
        try await Self.withService { service, _ in
            let admin = service.adminServer.localAddress!.port
            let health = try await Self.get(admin, "/healthz")
            #expect(health?.status == 200)
            #expect(health?.bodyText == #"{"status":"ok"}"#)
            // No Redis runs for this test: readiness says so.
            let ready = try await Self.get(admin, "/readyz")
            #expect(ready?.status == 503)
            #expect(ready?.bodyText == #"{"status":"not_ready","checks":{"redis":"unreachable"}}"#)

            _ = try await Self.get(service.publicServer.localAddress!.port, "/nowhere")
            let metrics = try #require(try await Self.get(admin, "/metrics"))
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = metrics.bodyText
            #expect(text.contains(#"bff_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
            #expect(text.contains(#"bff_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
            #expect(text.contains("# TYPE bff_http_request_duration_seconds histogram"))
            #expect(text.contains(#"bff_http_open_connections{listener="admin"}"#))
            #expect(text.contains(#"bff_http_accepted_connections_total{listener="public"} 1"#))
            #expect(text.contains("bff_http_requests_in_flight"))
        }
    }

    @Test func adminRoutesAreNotOnThePublicListener() async throws {
        try await Self.withService { service, _ in
            let response = try await Self.get(service.publicServer.localAddress!.port, "/metrics")
            #expect(response?.status == 404)
        }
    }

    @Test func publicListenerLogsOneAccessLinePerRequest() async throws {
        try await Self.withService { service, capture in
            _ = try await Self.get(service.publicServer.localAddress!.port, "/bff/whatever?token=abc")
            let lines = capture.lines.filter { $0.contains(#""event":"http.access""#) }
            #expect(lines.count == 1)
            #expect(lines.first?.contains("token=abc") == false)
            #expect(lines.first?.contains(#""status":404"#) == true)
        }
    }

    @Test func readinessFailsWhenACheckFails() async throws {
        let endpoints = AdminEndpoints(checks: [ClosureReadinessCheck("redis") { "unreachable" },
                                                ClosureReadinessCheck("modgud") { nil }],
                                       metrics: MetricsRegistry())
        let response = await endpoints.readiness()
        #expect(response.status == .serviceUnavailable)
        guard case .bytes(let bytes) = response.body else { Issue.record("no body"); return }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"status":"not_ready","checks":{"redis":"unreachable","modgud":"ok"}}"#)
    }
}
