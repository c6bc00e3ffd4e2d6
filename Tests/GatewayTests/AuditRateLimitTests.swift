import Configuration
import Core
import Testing
import TestSupport
@testable import Gateway

/// `audit.ratelimited` (Docs/operations.md, "Audit trail"): once per 429,
/// Modgud's passed through and the gateway's own, with its policy and
/// dimension.
@Suite("Audit trail: rate limits", .serialized)
struct AuditRateLimitTests {
    @Test func everyModgud429PassedThroughIsAuditedOnce() async throws {
        let harness = try await GatewayHarness.start(simulator: { $0.responses.rateLimitHeaders = true })
        let browser = harness.browser()
        var limited = 0
        for _ in 0..<8 where try await browser.post("/bff/otp/request", ["email": "ada@example.com"]).status == 429 {
            limited += 1
        }
        #expect(limited == 3)
        let events = AuditTrailTests.named("audit.ratelimited", try AuditTrailTests.events(harness))
        #expect(events.count == limited)
        for event in events {
            #expect(event["source"]?.stringValue == "modgud" && event["policy"]?.stringValue == "native-otp")
            #expect(event["dimension"]?.stringValue == "target" && event["route"]?.stringValue == "/bff/otp/request")
            #expect(event["address"]?.stringValue == "127.0.0.1")
        }
        await harness.stop()
    }

    @Test func theGatewaysOwnLimitIsAuditedWithTheClientsAddress() async throws {
        let harness = try await GatewayHarness.start(gateway: { config in
            AppLoginSupport.configure(&config)
            config.appLoginStartRate = RateLimit(count: 1, period: .seconds(3600), burst: 1)
            config.trustedProxies = [CIDR("127.0.0.1/32")!]
        })
        let pair = AppLoginSupport.PKCEPair()
        let body: JSON = ["codeChallenge": .string(pair.challenge), "codeChallengeMethod": "S256"]
        let client = [("X-Forwarded-For", "203.0.113.7")]
        let webView = harness.browser()
        #expect(try await webView.post("/bff/app-login/start", body, headers: client).status == 201)
        #expect(try await webView.post("/bff/app-login/start", body, headers: client).status == 429)
        let events = AuditTrailTests.named("audit.ratelimited", try AuditTrailTests.events(harness))
        #expect(events.count == 1)
        #expect(events.first?["source"]?.stringValue == "gateway" && events.first?["policy"]?.stringValue == "app-login-start")
        #expect(events.first?["dimension"]?.stringValue == "source" && events.first?["address"]?.stringValue == "203.0.113.7")
        await harness.stop()
    }

    /// A request whose body has not arrived holds its client's one slot;
    /// the next from that address is the gateway's own 429, audited with
    /// the per-address cap as its policy.
    @Test func thePerAddressCapIsAuditedAsTheGatewaysOwn() async throws {
        let harness = try await GatewayHarness.start(gateway: { config in
            config.trustedProxies = [CIDR("127.0.0.1/32")!]
            config.maxConnectionsPerAddress = 1
        })
        let held = try RawClient(port: harness.port, timeout: 15)
        await held.send("POST /bff/otp/request HTTP/1.1\r\nHost: localhost:\(harness.port)\r\nX-CSRF: 1\r\n"
            + "Origin: http://localhost:8080\r\nContent-Type: application/json\r\nContent-Length: 40\r\n"
            + "X-Forwarded-For: 203.0.113.9\r\n\r\n")
        var refused: RawResponse?
        for _ in 0..<50 {
            refused = try await harness.browser().post("/bff/otp/request", ["email": "ada@example.com"],
                                                       headers: [("X-Forwarded-For", "203.0.113.9")])
            if refused?.status == 429 { break }
            try await Task.sleep(for: .milliseconds(20))   // until the held request's head is in
        }
        #expect(refused?.status == 429 && refused?.json?["error"]?.stringValue == "too_many_requests")
        let events = AuditTrailTests.named("audit.ratelimited", try AuditTrailTests.events(harness))
        #expect(events.count == 1)
        #expect(events.first?["source"]?.stringValue == "gateway")
        #expect(events.first?["policy"]?.stringValue == "max_connections_per_address")
        #expect(events.first?["address"]?.stringValue == "203.0.113.9")
        #expect(events.first?["route"]?.stringValue == "/bff/otp/request")
        withExtendedLifetime(held) {}
        await harness.stop()
    }
}
